package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.xiaochong.posts.PostGenerator;
import org.xiaochong.posts.PostLoader;

/**
 * {@code dedup-spark run} against {@code dedup run --full} on the same generated posts (realistic
 * vocabulary), in Spark local mode against the ITs' real MariaDB: the same decisions, byte for
 * byte, and an apply that archives exactly those rows and that {@code restore} undoes.
 */
@Tag("db")
class SparkRunIT extends DbTestSupport {
  private static final long SEED = 20261125L;
  private static final String TABLE = "supply_demand";

  @TempDir Path dir;

  /** The report folders of the last {@link #bothDry}: the single machine's, then the job's. */
  private Path[] lastReports;

  @BeforeAll
  static void startSpark() {
    SparkTestSession.get();
  }

  private static long load(long records) {
    return PostLoader.reload(
        database(), SEED, records, PostGenerator.Vocabulary.REALISTIC, null, n -> {}, p -> {});
  }

  private static CliRun spark(String... args) {
    return SparkRuns.spark(args);
  }

  private Path config() {
    return writeConfig(dir, TABLE, dir.resolve("index"), Map.of());
  }

  /** A config with {@code extra} keys, and an index folder of its own for the single machine. */
  private Path config(Map<String, String> extra) {
    return writeConfig(dir, TABLE, dir.resolve("index-" + System.nanoTime()), extra);
  }

  /**
   * Adds the column {@code paid} (TINYINT NULL): 1 for ids divisible by 7, NULL for the other ids
   * divisible by 5, else 0; a keep policy on it ranks NULLs last and breaks ties by the time.
   */
  private static void addPaidColumn() {
    useHandle(
        h -> {
          h.execute("ALTER TABLE supply_demand ADD COLUMN paid TINYINT(1) NULL");
          h.execute(
              "UPDATE supply_demand SET paid ="
                  + " CASE WHEN id % 7 = 0 THEN 1 WHEN id % 5 = 0 THEN NULL ELSE 0 END");
        });
  }

  /** The single machine's decisions alone, dry ({@code dedup run --full}). */
  private String singleDry(Path config, String method) throws IOException {
    return decisions(SparkRuns.single(dir, config, method));
  }

  private static String decisions(Path report) throws IOException {
    return Files.readString(report.resolve("decisions.jsonl"));
  }

  /** Both runs' decisions, dry: the single machine's first, then the job's. */
  private String[] bothDry(Path config, String method, String... options) throws IOException {
    Path single = SparkRuns.single(dir, config, method, options);
    Path job = SparkRuns.job(dir, config, method, options);
    lastReports = new Path[] {single, job};
    return new String[] {decisions(single), decisions(job)};
  }

  /**
   * Marks the first {@code n} removals of a report's decisions as not duplicates ({@code
   * dedup_apart}).
   */
  private static void markApart(String decisions, int n) {
    database().runScript("/sql/dedup.sql"); // the bookkeeping tables, dedup_apart among them
    org.xiaochong.archive.ApartTable marks =
        new org.xiaochong.archive.ApartTable(database(), TABLE);
    decisions
        .lines()
        .limit(n)
        .forEach(
            line ->
                marks.add(
                    Long.parseLong(line.replaceAll(".*\"removed_id\":(\\d+),.*", "$1")),
                    Long.parseLong(line.replaceAll(".*\"kept_id\":(\\d+),.*", "$1"))));
  }

  /**
   * Marks the first {@code n} removals of a report's decisions as a restore does: each kept row and
   * the rows removed for it one group ({@code dedup_apart_group}, {@code dedup_apart_member}).
   */
  private static void markGroups(String decisions, int n) {
    database()
        .jdbi()
        .useHandle(
            h ->
                decisions
                    .lines()
                    .limit(n)
                    .forEach(
                        line -> {
                          long removed =
                              Long.parseLong(line.replaceAll(".*\"removed_id\":(\\d+),.*", "$1"));
                          long kept =
                              Long.parseLong(line.replaceAll(".*\"kept_id\":(\\d+),.*", "$1"));
                          h.execute(
                              "INSERT IGNORE INTO dedup_apart_group (source_table, reason, run_id,"
                                  + " anchor_id, created_at) VALUES (?, 'restore', 0, ?, NOW(3))",
                              TABLE,
                              kept);
                          long group =
                              h.createQuery(
                                      "SELECT id FROM dedup_apart_group WHERE source_table = ?"
                                          + " AND run_id = 0 AND anchor_id = ?")
                                  .bind(0, TABLE)
                                  .bind(1, kept)
                                  .mapTo(Long.class)
                                  .one();
                          h.execute(
                              "INSERT IGNORE INTO dedup_apart_member (group_id, source_table,"
                                  + " row_id, role) VALUES (?, ?, ?, 'kept'), (?, ?, ?, 'restored')",
                              group,
                              TABLE,
                              kept,
                              group,
                              TABLE,
                              removed);
                        }));
  }

  @Test
  void exactAndSimhash_unmarkedAndWithPairsMarkedApart_decideAsTheSingleMachine()
      throws IOException {
    load(3_000);
    Path config = config();
    String[] exactUnmarked = bothDry(config, "exact");
    String unmarked = exactUnmarked[0];
    assertThat(unmarked.lines().count())
        .as("the generator made exact duplicates")
        .isGreaterThan(100);
    assertThat(exactUnmarked[1]).isEqualTo(unmarked);
    markApart(unmarked, 5);
    String[] exact = bothDry(config, "exact");
    assertThat(exact[0]).as("the marks keep pairs apart").isNotEqualTo(unmarked);
    assertThat(exact[1]).isEqualTo(exact[0]);
    markGroups(exact[0], 5); // as a restore marks them: a group per kept row
    String[] grouped = bothDry(config, "exact");
    assertThat(grouped[0]).as("the groups keep rows apart").isNotEqualTo(exact[0]);
    assertThat(grouped[1]).isEqualTo(grouped[0]);
    String[] simhashBoth = bothDry(config, "simhash");
    String simhashUnmarked = simhashBoth[0];
    assertThat(simhashUnmarked.lines().count())
        .as("simhash finds pairs in the generated posts")
        .isGreaterThan(100);
    assertThat(simhashBoth[1]).isEqualTo(simhashUnmarked);
    markApart(simhashUnmarked, 5);
    String[] simhash = bothDry(config, "simhash");
    assertThat(simhash[0]).as("the marks keep pairs apart").isNotEqualTo(simhashUnmarked);
    assertThat(simhash[1]).isEqualTo(simhash[0]);
  }

  @Test
  void near_dryRun_decidesAsTheSingleMachineByteForByte() throws IOException {
    load(3_000);
    String[] both = bothDry(config(), "near");
    assertThat(both[0].lines().count())
        .as("near finds pairs in the generated posts")
        .isGreaterThan(100);
    assertThat(both[1]).isEqualTo(both[0]);
  }

  @Test
  void exactThenNear_reportAndPairsMarkedApart_decideAsTheSingleMachine() throws IOException {
    load(3_000);
    Path config = config();
    String[] unmarkedBoth = bothDry(config, "exact,near");
    String unmarked = unmarkedBoth[0];
    assertThat(unmarked).contains("\"rule\":\"near\"");
    assertThat(unmarkedBoth[1]).isEqualTo(unmarked);
    // The report counts the near pass as the single machine's.
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    com.fasterxml.jackson.databind.JsonNode single =
        json.readTree(lastReports[0].resolve("summary.json").toFile()).get("near");
    com.fasterxml.jackson.databind.JsonNode job =
        json.readTree(lastReports[1].resolve("summary.json").toFile()).get("near");
    assertThat(single.get("removed").asLong()).isPositive();
    for (String field : List.of("removed", "examined", "candidates", "empty", "min_similarity")) {
      assertThat(job.get(field)).as(field).isEqualTo(single.get(field));
    }
    markApart(
        unmarked
            .lines()
            .filter(l -> l.contains("\"rule\":\"near\""))
            .reduce("", (a, b) -> a + b + "\n"),
        5);
    String[] both = bothDry(config, "exact,near");
    assertThat(both[0]).as("the marks keep pairs apart").isNotEqualTo(unmarked);
    assertThat(both[1]).isEqualTo(both[0]);
  }

  @Test
  void exactAndNear_timeWindow_decideAsTheSingleMachine() throws IOException {
    load(3_000);
    Path config = config();
    String[] both = bothDry(config, "exact", "--since", "2025-06-01", "--until", "2025-12-31");
    assertThat(both[0].lines().count()).isPositive();
    assertThat(both[1]).isEqualTo(both[0]);
    String[] near = bothDry(config, "exact,near", "--since", "2025-06-01", "--until", "2025-12-31");
    assertThat(near[0]).contains("\"rule\":\"near\"");
    assertThat(near[1]).isEqualTo(near[0]);
  }

  /**
   * Every method in one run, in two orders: each record carries the near and the simhash columns,
   * in the order of the run's methods, and each stage finds its own by name. The decisions are the
   * single machine's either way.
   */
  @ParameterizedTest
  @ValueSource(strings = {"exact,near,simhash", "simhash,near"})
  void severalMethods_inEitherOrder_decideAsTheSingleMachine(String methods) throws IOException {
    load(3_000);
    String[] both = bothDry(config(), methods);
    assertThat(both[0]).contains("\"rule\":\"near\"").contains("\"rule\":\"simhash\"");
    assertThat(both[1]).isEqualTo(both[0]);
  }

  /**
   * Linkage decides with the weights the single machine froze with its index: refused in one line
   * before there are any; then, after an exact stage (before and after a run that indexed the rows
   * exact removes) and in a time window, with pairs marked apart, and applied and restored, the
   * single machine's decisions and counts.
   */
  @Test
  void linkage_frozenWeights_windowMarksAndApply_decideAsTheSingleMachine() throws IOException {
    load(3_000);
    Path config = config(Map.of("linkage.columns", "title,contact,phone,region"));
    CliRun refused =
        spark("run", "--config", config.toString(), "--master", "local[2]", "--method", "linkage");
    assertThat(refused.exitCode()).as(refused.err()).isEqualTo(2);
    assertThat(refused.err().strip())
        .startsWith("dedup-spark: the linkage method decides with the column kinds and weights")
        .endsWith("run it once on one machine first")
        .doesNotContain("\n");

    String[] window =
        bothDry(config, "exact,linkage", "--since", "2025-06-01", "--until", "2025-12-31");
    assertThat(window[0]).contains("\"rule\":\"linkage\"").contains("\"rule\":\"exact\"");
    assertThat(window[1]).isEqualTo(window[0]);
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    com.fasterxml.jackson.databind.JsonNode single =
        json.readTree(lastReports[0].resolve("summary.json").toFile()).get("linkage");
    com.fasterxml.jackson.databind.JsonNode job =
        json.readTree(lastReports[1].resolve("summary.json").toFile()).get("linkage");
    assertThat(single.get("skipped").asLong()).as("records exact removed").isPositive();
    for (String field :
        List.of(
            "removed",
            "examined",
            "skipped",
            "candidates",
            "links",
            "groups",
            "kept_indirect",
            "postings",
            "repointed",
            "model")) {
      assertThat(job.get(field)).as(field).isEqualTo(single.get(field));
    }

    // Whether an earlier run indexed the rows exact removes does not change the decisions.
    String[] full = bothDry(config, "exact,linkage");
    assertThat(full[1]).isEqualTo(full[0]);
    String unmarked = bothDry(config, "linkage")[0];
    assertThat(bothDry(config, "exact,linkage")).containsExactly(full[0], full[0]);
    markApart(
        unmarked
            .lines()
            .filter(l -> l.contains("\"rule\":\"linkage\""))
            .reduce("", (a, b) -> a + b + "\n"),
        5);
    String[] marked = bothDry(config, "linkage");
    assertThat(marked[0]).as("the marks keep pairs apart").isNotEqualTo(unmarked);
    assertThat(marked[1]).isEqualTo(marked[0]);
    applyAndRestore(config, "linkage");
  }

  /** {@code dedup-spark bench} on the configured table: both runs timed, the same decisions. */
  @Test
  void bench_onTheConfiguredTable_timesBothAndFindsTheSameDecisions() {
    load(3_000);
    CliRun bench =
        spark(
            "bench",
            "--config",
            config().toString(),
            "--master",
            "local[2]",
            "--method",
            "exact,near");

    assertThat(bench.exitCode()).as(bench.err() + bench.out()).isZero();
    assertThat(bench.out())
        .containsPattern("(?m)^near +\\d+\\.\\d +\\d+\\.\\d$")
        .containsPattern("decisions: ([1-9][\\d,]*) single machine, \\1 Spark, identical");
  }

  /** Exact alone; exact then near is applied under a column policy below. */
  @Test
  void apply_archivesExactlyTheSingleMachinesRemovalsAndRestoreBringsThemBack() throws IOException {
    load(3_000);
    applyAndRestore(config(), "exact");
  }

  /**
   * Under keep.policy=earliest and a policy on a column with NULLs and ties ({@code paid desc,
   * reg_time desc}: a rank of two longs), the job keeps the records the single machine keeps, for
   * every method; each policy keeps other records than latest.
   */
  @Test
  void keepPolicies_earliestAndAColumn_decideAsTheSingleMachine() throws IOException {
    load(3_000);
    addPaidColumn();
    List<String> methods = List.of("exact", "simhash", "exact,near");
    Path latest = config();
    Map<String, String> underLatest = new java.util.HashMap<>();
    for (String method : methods) {
      underLatest.put(method, singleDry(latest, method));
    }
    for (String policy : List.of("earliest", "paid desc, reg_time desc")) {
      Path config = config(Map.of("keep.policy", policy));
      for (String method : methods) {
        String[] both = bothDry(config, method);
        assertThat(both[0])
            .as("%s under %s keeps other records than under latest", method, policy)
            .isNotEqualTo(underLatest.get(method));
        assertThat(both[1]).as("%s under %s", method, policy).isEqualTo(both[0]);
      }
    }
  }

  /**
   * An apply under a column policy archives the rows its dry run decides, as the single machine.
   */
  @Test
  void apply_underAColumnPolicy_archivesTheSingleMachinesRemovals() throws IOException {
    load(3_000);
    addPaidColumn();
    applyAndRestore(config(Map.of("keep.policy", "paid desc, reg_time desc")), "exact,near");
  }

  /**
   * simhash.weights=tf-idf: the job counts the table's feature frequencies and fingerprints with
   * them, as the single machine's index built from empty: the same decisions, other than tf's.
   */
  @Test
  void simhash_tfIdfWeights_decideAsTheSingleMachine() throws IOException {
    load(3_000);
    String tf = singleDry(config(), "simhash");
    String[] both = bothDry(config(Map.of("simhash.weights", "tf-idf")), "simhash");
    assertThat(both[0].lines().count())
        .as("simhash finds pairs in the generated posts")
        .isGreaterThan(100);
    assertThat(both[0]).as("tf-idf weights make other fingerprints").isNotEqualTo(tf);
    assertThat(both[1]).isEqualTo(both[0]);
  }

  /**
   * The job's apply of {@code method} archives exactly the removals of both dry runs (which agree),
   * and {@code restore} brings the table back.
   */
  private void applyAndRestore(Path config, String method) throws IOException {
    List<List<String>> before = snapshot(TABLE);
    String[] dry = bothDry(config, method);
    assertThat(dry[1]).isEqualTo(dry[0]);
    String planned = dry[0];

    Path applied = SparkRuns.job(dir, config, method, "--apply");
    assertThat(decisions(applied))
        .isEqualTo(planned.replace("\"outcome\":\"planned\"", "\"outcome\":\"moved\""));
    List<Long> removedIds =
        planned
            .lines()
            .map(l -> Long.parseLong(l.replaceAll(".*\"removed_id\":(\\d+),.*", "$1")))
            .toList();
    assertThat(ids(TABLE + "_removed")).containsExactlyInAnyOrderElementsOf(removedIds);
    assertThat(count(TABLE)).isEqualTo(before.size() - removedIds.size());
    long runId =
        withHandle(
            h ->
                h.createQuery("SELECT MAX(id) FROM dedup_run WHERE status = 'applied'")
                    .mapTo(Long.class)
                    .one());
    assertThat(count("dedup_spark_decision")).as("the staged decisions are dropped").isZero();

    CliRun restore = cli("restore", "--config", config.toString(), "--run", Long.toString(runId));
    assertThat(restore.exitCode()).as(restore.err()).isZero();
    assertThat(snapshot(TABLE)).isEqualTo(before);
  }
}
