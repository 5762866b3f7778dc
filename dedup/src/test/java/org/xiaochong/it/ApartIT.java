package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.ApartTable;
import org.xiaochong.archive.ArchiveTables;
import org.xiaochong.archive.PlanMover;
import org.xiaochong.archive.RunLog;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.source.RecordSource;

/**
 * Decisions a person undid stay undone: rows {@code restore} put back are not removed by the next
 * run, and pairs marked with {@code dedup apart add} are never removed one for the other; through
 * the CLI, as a site owner runs it.
 */
@Tag("db")
class ApartIT extends DbTestSupport {
  private static final String TABLE = "supply_demand";
  private static final Pattern RUN_ID = Pattern.compile("run (\\d+) \\(applied\\)");

  @TempDir Path dir;

  @Test
  void runApply_afterRestore_restoredRowsStay() throws Exception {
    long loaded = PostLoader.reload(database(), 11L, 2_000, null, n -> {}, p -> {});
    List<List<String>> before = snapshot(TABLE);
    Path config = writeConfig(dir, TABLE, dir.resolve("index"), Map.of());

    CliRun first = cli("run", "--config", config.toString(), "--method", "exact,near", "--apply");
    assertThat(first.exitCode()).as(first.err()).isZero();
    long runId = runId(first);
    long removed = loaded - count(TABLE);
    assertThat(removed).isPositive();

    CliRun restore = cli("restore", "--config", config.toString(), "--run", Long.toString(runId));
    assertThat(restore.exitCode()).as(restore.err()).isZero();
    assertThat(snapshot(TABLE)).isEqualTo(before);
    assertThat(new ApartTable(database(), TABLE).count()).isGreaterThanOrEqualTo(removed);

    // The nightly run (incremental: the restored rows were indexed again, so it examines them).
    Path report = dir.resolve("report");
    CliRun nightly =
        cli(
            "run",
            "--config",
            config.toString(),
            "--method",
            "exact,near",
            "--apply",
            "--report",
            report.toString());

    assertThat(nightly.exitCode()).as(nightly.err()).isZero();
    assertThat(snapshot(TABLE)).isEqualTo(before);
    assertThat(nightly.out())
        .containsPattern(
            "apart: [\\d,]+ marks \\(pairs and rows of restored groups\\), [1-9][\\d,]* kept apart");
    JsonNode apart =
        new ObjectMapper().readTree(report.resolve("summary.json").toFile()).get("apart");
    assertThat(apart.get("marks").asLong()).isEqualTo(new ApartTable(database(), TABLE).count());
    assertThat(apart.get("honoured").asLong()).isPositive();
    assertThat(Files.readString(report.resolve("report.html")))
        .contains("data-key=\"apart.honoured\"");
    // Every run after it too, over all records.
    CliRun full =
        cli(
            "run",
            "--config",
            config.toString(),
            "--method",
            "exact,near,simhash",
            "--full",
            "--apply");
    assertThat(full.exitCode()).as(full.err()).isZero();
    assertThat(snapshot(TABLE)).isEqualTo(before);

    CliRun stats = cli("stats", "--config", config.toString());
    ApartTable.Counts marks = new ApartTable(database(), TABLE).counts();
    assertThat(stats.out())
        .contains(
            String.format(
                "marks: 0 pairs and %,d rows in %,d restored groups kept apart",
                marks.groupRows(), marks.groups()));
  }

  /**
   * Two undone runs of two methods: an exact run restored, then a near run restored. The near run's
   * restored rows have, besides the kept row they were removed for, that row's exact twins restored
   * by the first undo, as similar as it: the next run of every method must not take one of them.
   * (Rows no run removed are not the undo's: simhash, which has no veto on another price or place,
   * may take one of a pair that near keeps apart, e.g. one seller's lemons at 1.89 and 2.37 元/箱.)
   */
  @Test
  void runApply_afterRestoresOfAnExactAndANearRun_noRestoredRowRemovedByAnyMethod() {
    PostLoader.reload(database(), 5L, 2_000, null, n -> {}, p -> {});
    List<List<String>> before = snapshot(TABLE);
    Path config = writeConfig(dir, TABLE, dir.resolve("index"), Map.of());
    long exactRun = runId(applied(config, "exact", "--apply"));
    Set<String> restored = new TreeSet<>(archivedIds(exactRun));
    assertThat(
            cli("restore", "--config", config.toString(), "--run", Long.toString(exactRun))
                .exitCode())
        .isZero();
    long nearRun = runId(applied(config, "exact,near", "--full", "--apply"));
    assertThat(count(TABLE))
        .isLessThan(before.size()); // the near pass found duplicates the exact undo left
    restored.addAll(archivedIds(nearRun));
    assertThat(
            cli("restore", "--config", config.toString(), "--run", Long.toString(nearRun))
                .exitCode())
        .isZero();
    assertThat(snapshot(TABLE)).isEqualTo(before);

    applied(config, "exact,near,simhash", "--apply");

    assertThat(snapshot(TABLE).stream().filter(row -> restored.contains(row.get(0))))
        .isEqualTo(before.stream().filter(row -> restored.contains(row.get(0))).toList())
        .hasSize(restored.size());
  }

  /** The ids a run archived, as {@link #snapshot} writes them. */
  private static List<String> archivedIds(long runId) {
    return withHandle(
        h ->
            h.createQuery(
                    "SELECT CAST(id AS CHAR) FROM " + TABLE + "_removed WHERE dedup_run_id = ?")
                .bind(0, runId)
                .mapTo(String.class)
                .list());
  }

  private static CliRun applied(Path config, String methods, String... options) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of("run", "--config", config.toString(), "--method", methods));
    args.addAll(List.of(options));
    CliRun run = cli(args.toArray(String[]::new));
    assertThat(run.exitCode()).as(run.err()).isZero();
    return run;
  }

  @Test
  void apartAdd_beforeApply_bothTwinsStay_andRemoveLetsTheNextRunDecide() {
    createPostsTable("apart_twins");
    insert("apart_twins", 1, "供应红富士苹果", "苹果", "13800138000", "本人有红富士苹果约3000斤", OLD);
    insert("apart_twins", 2, "供应红富士苹果", "苹果", "13800138000", "本人有红富士苹果约3000斤", NEW);
    insert("apart_twins", 3, "供应红富士苹果", "苹果", "13800138000", "本人有红富士苹果约3000斤", OLDEST);
    Path config = writeConfig(dir, "apart_twins", dir.resolve("index"), Map.of());

    CliRun add = cli("apart", "add", "--config", config.toString(), "2", "1");
    assertThat(add.exitCode()).as(add.err()).isZero();
    assertThat(add.out()).contains("marked 2 and 1 apart");
    CliRun again = cli("apart", "add", "--config", config.toString(), "1", "2");
    assertThat(again.out()).contains("already marked apart");
    CliRun list = cli("apart", "list", "--config", config.toString());
    assertThat(list.out())
        .contains("1 pairs of apart_twins marked apart")
        .contains("  1 2  manual");

    CliRun run = cli("run", "--config", config.toString(), "--apply");

    assertThat(run.exitCode()).as(run.err()).isZero();
    // 2 (newest) and 1 are marked apart: both stay; 3 is removed for 2, the newest.
    assertThat(ids("apart_twins")).containsExactly(1L, 2L);
    assertThat(keptIdOf("apart_twins_removed", 3)).isEqualTo(2L);

    CliRun forget = cli("apart", "remove", "--config", config.toString(), "1", "2");
    assertThat(forget.exitCode()).as(forget.err()).isZero();
    CliRun next = cli("run", "--config", config.toString(), "--full", "--apply");
    assertThat(next.exitCode()).as(next.err()).isZero();
    assertThat(ids("apart_twins")).containsExactly(2L);
  }

  @Test
  void apartAddAndRemove_badIds_exitCode2OneLine() {
    createPostsTable("apart_bad");
    insert("apart_bad", 1, "供应红富士苹果", "苹果", "13800138000", "本人有红富士苹果约3000斤", OLD);
    Path config = writeConfig(dir, "apart_bad", dir.resolve("index"), Map.of());

    CliRun missing = cli("apart", "add", "--config", config.toString(), "1", "99");
    CliRun self = cli("apart", "add", "--config", config.toString(), "1", "1");
    CliRun notMarked = cli("apart", "remove", "--config", config.toString(), "1", "99");

    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.errLines()).singleElement().asString().contains("no row with id 99");
    assertThat(self.exitCode()).isEqualTo(2);
    assertThat(self.errLines()).singleElement().asString().contains("itself");
    assertThat(notMarked.exitCode()).isEqualTo(2);
    assertThat(notMarked.errLines()).singleElement().asString().contains("not marked apart");
    assertThat(new ApartTable(database(), "apart_bad").count()).isZero();
  }

  @Test
  void resume_pairMarkedAfterThePlan_leftInPlace() {
    createPostsTable("apart_resume");
    insert("apart_resume", 1, "供应红富士苹果", "苹果", "13800138000", "本人有红富士苹果约3000斤", OLD);
    insert("apart_resume", 2, "供应红富士苹果", "苹果", "13800138000", "本人有红富士苹果约3000斤", NEW);
    insert("apart_resume", 3, "求购大蒜", "大蒜", "13900139000", "求购大蒜十吨", OLD);
    insert("apart_resume", 4, "求购大蒜", "大蒜", "13900139000", "求购大蒜十吨", NEW);
    ArchiveTables archive =
        ArchiveTables.ensure(
            database(),
            spec("apart_resume"),
            new RecordSource(database(), spec("apart_resume")).checkSchema());
    RunLog runLog = new RunLog(database(), "apart_resume");
    long runId = runLog.startRun("exact", true, "0".repeat(32), null, null);
    // The plan as a run writes it before moving rows (row states unknown: the apply decides again).
    useHandle(
        h ->
            h.execute(
                "INSERT INTO dedup_plan (run_id, seq, removed_id, kept_id, rule, score)"
                    + " VALUES (?, 0, 1, 2, 'exact', 1), (?, 1, 3, 4, 'exact', 1)",
                runId,
                runId));
    // The run was interrupted after its plan; a person marks 1 and 2 apart before it is resumed.
    new ApartTable(database(), "apart_resume").add(1, 2);

    List<Long> resumed = new PlanMover(archive).resumeInterrupted().runs();

    assertThat(resumed).containsExactly(runId);
    assertThat(ids("apart_resume")).containsExactly(1L, 2L, 4L);
  }

  @Test
  void check_recordWithIdMarkedApartFromItsOnlyTwin_isNew() throws Exception {
    createPostsTable("apart_check");
    insert("apart_check", 1, "供应红富士苹果", "苹果", "13800138000", "本人有红富士苹果约3000斤", OLD);
    insert("apart_check", 2, "供应红富士苹果", "苹果", "13800138000", "本人有红富士苹果约3000斤", NEW);
    Path config = writeConfig(dir, "apart_check", dir.resolve("index"), Map.of());
    assertThat(cli("run", "--config", config.toString(), "--apply").exitCode())
        .isZero(); // 1 archived for 2
    String post =
        "\"title\":\"供应红富士苹果\",\"category\":\"供应\",\"product\":\"苹果\",\"region\":\"山东烟台\","
            + "\"price\":\"2.50元/斤\",\"contact\":\"王先生\",\"phone\":\"13800138000\",\"content\":\"本人有红富士苹果约3000斤\"}";
    List<String> lines = List.of("{\"id\":1," + post, "{" + post);
    CliRun before = cliWithInput(lines, "check", "--config", config.toString());
    assertThat(before.out().lines().toList())
        .allMatch(l -> l.contains("\"verdict\":\"exact\",\"kept_id\":2"));

    assertThat(cli("apart", "add", "--config", config.toString(), "1", "2").exitCode()).isZero();
    CliRun after = cliWithInput(lines, "check", "--config", config.toString());

    List<String> verdicts = after.out().lines().toList();
    assertThat(verdicts.get(0)).as(after.err()).contains("\"verdict\":\"new\"");
    assertThat(verdicts.get(1)).contains("\"verdict\":\"exact\",\"kept_id\":2"); // no id: no marks
  }

  private static long runId(CliRun run) {
    Matcher m = RUN_ID.matcher(run.out());
    assertThat(m.find()).as(run.out()).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static long keptIdOf(String archive, long id) {
    return withHandle(
        h ->
            h.createQuery("SELECT dedup_kept_id FROM `" + archive + "` WHERE id = ?")
                .bind(0, id)
                .mapTo(Long.class)
                .one());
  }

  private static final java.time.LocalDateTime OLDEST =
      java.time.LocalDateTime.of(2024, 1, 1, 8, 0);
  private static final java.time.LocalDateTime OLD = java.time.LocalDateTime.of(2024, 6, 1, 8, 0);
  private static final java.time.LocalDateTime NEW = java.time.LocalDateTime.of(2025, 1, 1, 8, 0);
}
