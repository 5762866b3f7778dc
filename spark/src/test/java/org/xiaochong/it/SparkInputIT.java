package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.posts.PostGenerator;
import org.xiaochong.posts.PostLoader;

/**
 * Where a Spark run reads its records: a Parquet export ({@code dedup-spark export}, or one written
 * by another tool) or a replica ({@code db.read-url}). The decisions equal {@code dedup run --full}
 * on the live table; the apply goes to the live table and re-checks each row there.
 */
@Tag("db")
class SparkInputIT extends DbTestSupport {
  private static final long SEED = 20261126L;
  private static final String TABLE = "supply_demand";
  private static final String REPLICA = "xiaochong_replica";

  @TempDir Path dir;

  @BeforeAll
  static void startSpark() {
    SparkTestSession.get();
  }

  private static void load(long records) {
    PostLoader.reload(
        database(), SEED, records, PostGenerator.Vocabulary.REALISTIC, null, n -> {}, p -> {});
  }

  private static CliRun spark(String... args) {
    return SparkRuns.spark(args);
  }

  private String singleMachine(Path config, String method) throws IOException {
    return SparkRuns.decisions(SparkRuns.single(dir, config, method));
  }

  private String job(Path config, String method, String... options) throws IOException {
    return SparkRuns.decisions(SparkRuns.job(dir, config, method, options));
  }

  private String export(Path config) {
    String export = dir.resolve("export-" + System.nanoTime()).toString();
    CliRun run =
        spark("export", "--config", config.toString(), "--master", "local[2]", "--parquet", export);
    assertThat(run.exitCode()).as(run.err()).isZero();
    return export;
  }

  private static long removedId(String decisionLine) {
    return Long.parseLong(decisionLine.replaceAll(".*\"removed_id\":(\\d+),.*", "$1"));
  }

  @Test
  void parquetExport_decidesAsTheSingleMachineOnTheTable() throws IOException {
    load(3_000);
    Path config = writeConfig(dir, TABLE, dir.resolve("index"), Map.of());
    String export = export(config);
    for (String method : List.of("exact", "exact,near", "simhash")) {
      String single = singleMachine(config, method);
      assertThat(single.lines().count()).as(method).isGreaterThan(100);
      assertThat(job(config, method, "--parquet", export)).as(method).isEqualTo(single);
    }
  }

  @Test
  void parquetOfAnotherTool_timestampTimeAndTypedColumns_decidesAsTheSingleMachine()
      throws IOException {
    load(3_000);
    Path config = writeConfig(dir, TABLE, dir.resolve("index"), Map.of());
    String export = export(config);
    // As Spark's JDBC source run in UTC writes a table: the DATETIME as a TIMESTAMP, the id an int.
    String other = dir.resolve("other").toString();
    SparkSession session = SparkTestSession.get();
    session
        .read()
        .parquet(export)
        .withColumn("reg_time", functions.col("reg_time").cast(DataTypes.TimestampType))
        .withColumn("id", functions.col("id").cast(DataTypes.IntegerType))
        .withColumn("unused", functions.lit(1.5))
        .write()
        .mode(SaveMode.ErrorIfExists)
        .parquet(other);
    String single = singleMachine(config, "exact,near");
    assertThat(job(config, "exact,near", "--parquet", other)).isEqualTo(single);
  }

  @Test
  void parquetExport_apply_reDecidesRowsChangedOnTheTableSinceTheExport() throws IOException {
    load(3_000);
    Path config = writeConfig(dir, TABLE, dir.resolve("index"), Map.of());
    String export = export(config);
    String planned = singleMachine(config, "exact");
    long edited = removedId(planned.lines().findFirst().orElseThrow());
    // The live row changes after the export: it is no longer anybody's duplicate.
    useHandle(
        h ->
            h.execute(
                "UPDATE " + TABLE + " SET content = ?, title = ? WHERE id = ?",
                "一条导出之后改写的独有内容",
                "改写之后的标题",
                edited));
    SparkRuns.job(dir, config, "exact", "--parquet", export, "--apply");
    List<Long> others =
        planned.lines().map(SparkInputIT::removedId).filter(id -> id != edited).toList();
    assertThat(ids(TABLE + "_removed"))
        .as("the edited row is decided again on the live table, the others are moved")
        .containsExactlyInAnyOrderElementsOf(others);
    assertThat(ids(TABLE)).contains(edited);
  }

  @Test
  void parquetExport_withoutAConfiguredColumn_isRefusedInOneLine() {
    load(200);
    Path config = writeConfig(dir, TABLE, dir.resolve("index"), Map.of());
    Path narrow =
        writeConfig(
            dir,
            TABLE,
            dir.resolve("index"),
            Map.of("fields.exact", "title,content", "fields.near", "title,content"));
    String export = export(narrow);
    CliRun run =
        spark("run", "--config", config.toString(), "--master", "local[2]", "--parquet", export);
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err().strip())
        .startsWith("dedup-spark: the Parquet export")
        .contains("has no column category")
        .doesNotContain("\n");
    CliRun missing =
        spark(
            "run",
            "--config",
            config.toString(),
            "--master",
            "local[2]",
            "--parquet",
            dir.resolve("nothing-here").toString());
    assertThat(missing.exitCode()).as(missing.err()).isEqualTo(2);
    assertThat(missing.err()).contains("is not a readable Parquet export");
    CliRun exists =
        spark("export", "--config", config.toString(), "--master", "local[2]", "--parquet", export);
    assertThat(exists.exitCode()).isEqualTo(2);
    assertThat(exists.err()).contains("already exists");
  }

  @Test
  void replica_readsThereAndAppliesOnThePrimary() throws IOException {
    load(3_000);
    useHandle(
        h -> {
          h.execute("DROP DATABASE IF EXISTS " + REPLICA);
          h.execute("CREATE DATABASE " + REPLICA);
          h.execute("CREATE TABLE " + REPLICA + "." + TABLE + " LIKE " + TABLE);
          h.execute("INSERT INTO " + REPLICA + "." + TABLE + " SELECT * FROM " + TABLE);
        });
    long replicaBefore =
        withHandle(
            h ->
                h.createQuery("SELECT COUNT(*) FROM " + REPLICA + "." + TABLE)
                    .mapTo(Long.class)
                    .one());
    Path primary = writeConfig(dir, TABLE, dir.resolve("index"), Map.of());
    String replicaUrl =
        database().jdbcSettings().url().replaceFirst("(//[^/]+/)[^?]*", "$1" + REPLICA);
    Path config = writeConfig(dir, TABLE, dir.resolve("index"), Map.of("db.read-url", replicaUrl));
    String planned = singleMachine(primary, "exact,near");
    assertThat(job(config, "exact,near")).isEqualTo(planned);

    // The replica has not caught up with a row the primary removed by hand: the job reads the
    // replica (it still plans that row), and the apply on the primary skips it.
    long gone = removedId(planned.lines().findFirst().orElseThrow());
    useHandle(h -> h.execute("DELETE FROM " + TABLE + " WHERE id = ?", gone));
    assertThat(singleMachine(primary, "exact,near")).doesNotContain("\"removed_id\":" + gone + ",");
    assertThat(job(config, "exact,near"))
        .as("the executors read the replica, which still has the row")
        .isEqualTo(planned);
    Path applied = dir.resolve("applied");
    CliRun run =
        spark(
            "run",
            "--config",
            config.toString(),
            "--master",
            "local[2]",
            "--method",
            "exact,near",
            "--apply",
            "--report",
            applied.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("reading the records from the replica");
    List<Long> moved = ids(TABLE + "_removed");
    assertThat(moved).doesNotContain(gone).isNotEmpty();
    assertThat(moved)
        .containsExactlyInAnyOrderElementsOf(
            planned.lines().map(SparkInputIT::removedId).filter(id -> id != gone).toList());
    long replicaRows =
        withHandle(
            h ->
                h.createQuery("SELECT COUNT(*) FROM " + REPLICA + "." + TABLE)
                    .mapTo(Long.class)
                    .one());
    assertThat(replicaRows).as("nothing is written to the replica").isEqualTo(replicaBefore);
    useHandle(h -> h.execute("DROP DATABASE " + REPLICA));
  }
}
