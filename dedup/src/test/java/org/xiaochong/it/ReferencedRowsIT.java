package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.RunLog;
import org.xiaochong.source.DbSettings;

/**
 * Tables that other tables depend on, and tables without transactions, through {@code dedup run
 * --apply} and {@code restore} as a site owner runs them: foreign keys (CASCADE, RESTRICT) and
 * DELETE triggers are found before any row moves, and the owner's choice (refuse, merge, keep) is
 * carried out; MyISAM and Aria tables are refused with the statement that converts them.
 */
@Tag("db")
class ReferencedRowsIT extends DbTestSupport {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String DATABASE = "xiaochong";
  private static final LocalDateTime OLD = LocalDateTime.of(2024, 5, 1, 8, 0);
  private static final LocalDateTime NEW = LocalDateTime.of(2024, 5, 2, 8, 0);

  @TempDir Path dir;

  /**
   * Posts 1/2, 3/4 and 5/6 are exact twins (the even one newer: the plan removes 1, 3 and 5), 7 is
   * alone; {@code <table>_inquiry} holds inquiries 101 and 102 on post 1, 103 on post 2, 104 on
   * post 7, through a foreign key with {@code onDelete} (CASCADE, RESTRICT, …).
   */
  private static void postsWithInquiries(String table, String onDelete) {
    String child = table + "_inquiry";
    useHandle(h -> h.execute("DROP TABLE IF EXISTS `" + child + "`"));
    posts(table);
    useHandle(
        h -> {
          h.execute(
              "CREATE TABLE `"
                  + child
                  + "` (id BIGINT PRIMARY KEY, post_id BIGINT NOT NULL, note VARCHAR(64),"
                  + " FOREIGN KEY (post_id) REFERENCES `"
                  + table
                  + "` (id) ON DELETE "
                  + onDelete
                  + ") ENGINE=InnoDB");
          h.execute(
              "INSERT INTO `"
                  + child
                  + "` VALUES (101, 1, 'a'), (102, 1, 'b'), (103, 2, 'c'), (104, 7, 'd')");
        });
  }

  private static void posts(String table) {
    createPostsTable(table);
    for (int pair = 0; pair < 3; pair++) {
      String title = "供应红富士苹果" + pair;
      String content = "本人有红富士苹果约" + (3000 + pair) + "斤，果面光洁，口感脆甜，欢迎来电";
      insert(table, 2 * pair + 1, title, "苹果", "1380013800" + pair, content, OLD);
      insert(table, 2 * pair + 2, title, "苹果", "1380013800" + pair, content, NEW);
    }
    insert(table, 7, "求购大蒜", "大蒜", "13900139000", "求购大蒜十吨，价格面议", NEW);
  }

  /**
   * {@link #posts} (and {@code morePosts}), and {@code <table>_tag}: tags by post, primary key
   * (post_id, tag), a foreign key on post_id with {@code onDelete} (may be empty), holding {@code
   * rows}.
   */
  private static void postsWithTags(
      String table, String onDelete, Runnable morePosts, String rows) {
    String child = table + "_tag";
    useHandle(h -> h.execute("DROP TABLE IF EXISTS `" + child + "`"));
    posts(table);
    morePosts.run();
    useHandle(
        h -> {
          h.execute(
              "CREATE TABLE `"
                  + child
                  + "` (post_id BIGINT NOT NULL, tag VARCHAR(16) NOT NULL, PRIMARY KEY (post_id, tag),"
                  + " FOREIGN KEY (post_id) REFERENCES `"
                  + table
                  + "` (id)"
                  + onDelete
                  + ") ENGINE=InnoDB");
          h.execute("INSERT INTO `" + child + "` VALUES " + rows);
        });
  }

  /** The tags of {@code <table>_tag} as post_id:tag, in order. */
  private static List<String> tags(String table) {
    return withHandle(
        h ->
            h.createQuery("SELECT CONCAT(post_id, ':', tag) FROM `" + table + "_tag` ORDER BY 1")
                .mapTo(String.class)
                .list());
  }

  /** Inquiry id → the post it points to. */
  private static Map<Long, Long> inquiries(String table) {
    Map<Long, Long> byId = new HashMap<>();
    withHandle(
            h ->
                h.createQuery("SELECT id, post_id FROM `" + table + "_inquiry`")
                    .map((rs, ctx) -> Map.entry(rs.getLong(1), rs.getLong(2)))
                    .list())
        .forEach(e -> byId.put(e.getKey(), e.getValue()));
    return byId;
  }

  private Path config(String table, Map<String, String> settings) {
    return writeConfig(dir, table, dir.resolve("index-" + table), settings);
  }

  /** {@code dedup run --apply} on the table with these settings, then {@code options}. */
  private CliRun apply(String table, Map<String, String> settings, String... options) {
    List<String> args =
        new ArrayList<>(List.of("run", "--config", config(table, settings).toString(), "--apply"));
    args.addAll(List.of(options));
    return cli(args.toArray(String[]::new));
  }

  private static long repointed(long runId) {
    return withHandle(
        h ->
            h.createQuery("SELECT COUNT(*) FROM dedup_repoint WHERE run_id = ?")
                .bind(0, runId)
                .mapTo(Long.class)
                .one());
  }

  /** The statuses of the runs on the table, in order; none before the first run made dedup_run. */
  private static List<String> statuses(String table) {
    boolean logged =
        withHandle(
            h ->
                h.createQuery(
                            "SELECT COUNT(*) FROM information_schema.tables"
                                + " WHERE table_schema = DATABASE() AND table_name = 'dedup_run'")
                        .mapTo(Long.class)
                        .one()
                    > 0);
    if (!logged) {
      return List.of();
    }
    return withHandle(
        h ->
            h.createQuery("SELECT status FROM dedup_run WHERE source_table = ? ORDER BY id")
                .bind(0, table)
                .mapTo(String.class)
                .list());
  }

  @Test
  void apply_cascadeForeignKey_stopsNamingItAndChangesNothing() {
    postsWithInquiries("fk_cascade", "CASCADE");
    Path config = config("fk_cascade", Map.of());

    CliRun run = cli("run", "--config", config.toString(), "--apply");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.errLines())
        .singleElement()
        .asString()
        .contains("fk_cascade_inquiry.post_id -> fk_cascade.id (ON DELETE CASCADE)")
        .contains("apply.referenced=merge")
        .contains("apply.referenced=keep");
    assertThat(ids("fk_cascade")).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    assertThat(inquiries("fk_cascade")).hasSize(4);
    assertThat(statuses("fk_cascade")).as("no run started, none left applying").isEmpty();
    // The nightly job is not wedged: the next run says the same, and a dry run works and says it.
    assertThat(cli("run", "--config", config.toString(), "--apply").exitCode()).isEqualTo(2);
    CliRun dry = cli("run", "--config", config.toString());
    assertThat(dry.exitCode()).as(dry.err()).isZero();
    assertThat(dry.out())
        .contains(
            "note: --apply stops before changing anything: foreign keys reference fk_cascade");
  }

  @Test
  void apply_merge_repointsChildRowsToTheKeptPost_andRestorePutsThemBack() {
    postsWithInquiries("fk_merge", "CASCADE");
    Path config = config("fk_merge", Map.of("apply.referenced", "merge"));

    CliRun run = cli("run", "--config", config.toString(), "--apply");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(ids("fk_merge")).containsExactly(2L, 4L, 6L, 7L);
    assertThat(inquiries("fk_merge"))
        .containsOnly(
            Map.entry(101L, 2L), Map.entry(102L, 2L), Map.entry(103L, 2L), Map.entry(104L, 7L));
    long runId = lastRunId("fk_merge");
    assertThat(repointed(runId)).isEqualTo(2);

    CliRun restore = cli("restore", "--config", config.toString(), "--run", String.valueOf(runId));

    assertThat(restore.exitCode()).as(restore.err()).isZero();
    assertThat(restore.out()).contains("restored 3 rows").contains("restored 2 child rows");
    assertThat(ids("fk_merge")).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    assertThat(inquiries("fk_merge"))
        .containsOnly(
            Map.entry(101L, 1L), Map.entry(102L, 1L), Map.entry(103L, 2L), Map.entry(104L, 7L));
    assertThat(repointed(runId)).isZero();
  }

  /**
   * A CASCADE key added while the run's passes take their time (here: during its index sync) is
   * found right before the first batch: the apply stops with one line, nothing moved, no run.
   */
  @Test
  void apply_foreignKeyAddedDuringTheRun_stopsBeforeTheFirstBatch() {
    String table = "fk_late";
    useHandle(h -> h.execute("DROP TABLE IF EXISTS `fk_late_inquiry`"));
    posts(table);

    Throwable thrown =
        applyInProcess(
            table,
            "CREATE TABLE `fk_late_inquiry` (id BIGINT PRIMARY KEY, post_id BIGINT,"
                + " FOREIGN KEY (post_id) REFERENCES `fk_late` (id) ON DELETE CASCADE)"
                + " ENGINE=InnoDB");

    assertThat(thrown)
        .isInstanceOf(org.xiaochong.source.BadInputException.class)
        .hasMessageContaining("--apply stops before changing anything")
        .hasMessageContaining("fk_late");
    assertThat(ids(table)).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    assertThat(statuses(table)).isEmpty();
  }

  @Test
  void apply_deleteTriggerAddedDuringTheRun_stopsBeforeTheFirstBatch_theTriggerNeverFires() {
    String table = "trig_late";
    useHandle(
        h -> {
          h.execute("DROP TABLE IF EXISTS `trig_late_audit`");
          h.execute("CREATE TABLE `trig_late_audit` (id BIGINT) ENGINE=InnoDB");
        });
    posts(table);

    Throwable thrown = // a site's audit trigger, added while the run reads
        applyInProcess(
            table,
            "CREATE TRIGGER `trig_late_del` AFTER DELETE ON `trig_late` FOR EACH ROW"
                + " INSERT INTO `trig_late_audit` VALUES (OLD.id)");

    assertThat(thrown)
        .isInstanceOf(org.xiaochong.source.BadInputException.class)
        .hasMessageContaining("--apply")
        .hasMessageContaining("trig_late");
    assertThat(ids(table)).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    long fired =
        withHandle(
            h -> h.createQuery("SELECT COUNT(*) FROM `trig_late_audit`").mapTo(Long.class).one());
    assertThat(fired).as("the trigger never fired").isZero();
    assertThat(statuses(table)).isEmpty();
  }

  /**
   * An exact {@code run --apply} on {@code table} in this process, with {@code duringSync} executed
   * by another session as soon as its index sync starts; what it threw (null: nothing).
   */
  private Throwable applyInProcess(String table, String duringSync) {
    org.xiaochong.progress.Progress progress =
        (task, total) -> {
          if (task.equals("index")) {
            useHandle(h -> h.execute(duringSync));
          }
          return org.xiaochong.progress.Progress.NONE.start(task, total);
        };
    return org.assertj.core.api.Assertions.catchThrowable(
        () -> {
          try (org.xiaochong.index.FingerprintIndex index =
              org.xiaochong.index.FingerprintIndex.open(
                  dir.resolve("index-" + table), "it-" + table, false)) {
            new org.xiaochong.run.DedupRunner(
                    database(), spec(table), index, "0123456789abcdef0123456789abcdef", 2, progress)
                .run(new org.xiaochong.run.DedupRunner.Options("exact", null, null, true, false));
          }
        });
  }

  /**
   * Issue 35's reproduction: tags keyed (post_id, tag), merged into the kept post by run N, then
   * moved on to a newer twin of the kept post by run N+1. Restoring the two runs in either order
   * gives the posts and their tags back byte for byte (CHECKSUM TABLE against copies made before).
   */
  @Test
  void restore_mergedTagsOfTwoRuns_eitherOrder_everyTableBackByteForByte() {
    for (boolean laterRunFirst : new boolean[] {false, true}) {
      String table = laterRunFirst ? "fk_undo_b" : "fk_undo_a";
      postsWithTags(table, "", () -> {}, "(1, 'fruit'), (2, 'red'), (3, 'green')");

      mergeTwiceThenRestore( // run N: 1 -> 2, its tag with it; run N+1: 2 -> 9, both tags with it
          table,
          List.of(table, table + "_tag"),
          laterRunFirst,
          () -> assertThat(tags(table)).containsExactly("4:green", "9:fruit", "9:red"));

      assertThat(tags(table)).as(table).containsExactly("1:fruit", "2:red", "3:green");
    }
  }

  @Test
  void restore_afterTheSiteDeletedAKeptPost_itsMergedTagIsCountedLeftAndItsRecordStays() {
    String table = "fk_kept_deleted";
    postsWithTags(table, " ON DELETE CASCADE", () -> {}, "(1, 'fruit'), (2, 'red'), (3, 'green')");
    Map<String, String> merge = Map.of("apply.referenced", "merge");
    assertThat(apply(table, merge).exitCode()).isZero(); // 1 -> 2 and 3 -> 4, their tags with them
    long run = lastRunId(table);
    assertThat(tags(table)).containsExactly("2:fruit", "2:red", "4:green");

    // The site deletes a kept post: the server cascades to its own tag and the one merged into it,
    // as docs/operations.md says; the archive holds posts, not tags.
    useHandle(h -> h.execute("DELETE FROM `" + table + "` WHERE id = 2"));
    assertThat(tags(table)).containsExactly("4:green");

    CliRun restore =
        cli("restore", "--config", config(table, merge).toString(), "--run", String.valueOf(run));

    assertThat(restore.exitCode()).as(restore.err()).isZero();
    assertThat(restore.out())
        .contains(
            "restored 1 child rows that the run had re-pointed to the kept rows; 1 left as they are"
                + " (changed or deleted since)");
    assertThat(ids(table)).containsExactly(1L, 3L, 4L, 5L, 6L, 7L);
    assertThat(tags(table)).containsExactly("3:green");
    assertThat(repointed(run)).as("the record of the tag that is gone stays").isEqualTo(1);
  }

  @Test
  void restore_twoRunsMergingThreeKindsOfChildKeys_eitherOrder_everyTableBackByteForByte() {
    for (boolean laterRunFirst : new boolean[] {false, true}) {
      String table = laterRunFirst ? "fk_keys_b" : "fk_keys_a";
      // Three child tables, each keyed its own way: tags by (post, tag), inquiries by their own id,
      // photos by a binary hash.
      useHandle(
          h -> {
            h.execute("DROP TABLE IF EXISTS `" + table + "_inquiry`");
            h.execute("DROP TABLE IF EXISTS `" + table + "_photo`");
          });
      postsWithTags(table, "", () -> {}, "(1, 'fruit'), (2, 'red'), (3, 'green')");
      useHandle(
          h -> {
            h.execute(
                "CREATE TABLE `"
                    + table
                    + "_inquiry` (id BIGINT PRIMARY KEY, post_id BIGINT NOT NULL, note VARCHAR(64),"
                    + " FOREIGN KEY (post_id) REFERENCES `"
                    + table
                    + "` (id)) ENGINE=InnoDB");
            h.execute(
                "INSERT INTO `"
                    + table
                    + "_inquiry` VALUES (101, 1, 'a'), (102, 1, 'b'), (103, 2, 'c'), (104, 7, 'd')");
            h.execute(
                "CREATE TABLE `"
                    + table
                    + "_photo` (hash VARBINARY(16) PRIMARY KEY, post_id BIGINT NOT NULL,"
                    + " FOREIGN KEY (post_id) REFERENCES `"
                    + table
                    + "` (id)) ENGINE=InnoDB");
            h.execute(
                "INSERT INTO `"
                    + table
                    + "_photo` VALUES (UNHEX('00FF'), 1), (UNHEX('A0'), 2), (UNHEX('0A0B22'), 3)");
          });
      mergeTwiceThenRestore( // run N: 1 -> 2, 3 -> 4, 5 -> 6; run N+1: 2 -> 9, with 1's children
          table,
          List.of(table, table + "_tag", table + "_inquiry", table + "_photo"),
          laterRunFirst,
          () -> assertThat(inquiries(table)).containsEntry(101L, 9L).containsEntry(103L, 9L));
    }
  }

  /**
   * Issue 35's two merging runs on {@code table} as set up: run N, then post 9 (a newer twin of
   * posts 1 and 2) arrives and run N+1 moves post 2 and every child row on it, merged ones
   * included, on to 9 ({@code afterBothRuns} checks them there); then both runs are restored, the
   * later first when {@code laterRunFirst}. Each of {@code tables} (the posts and their child
   * tables) must equal a copy made before the runs (post 9 added) byte for byte, and no re-pointing
   * record be left.
   */
  private void mergeTwiceThenRestore(
      String table, List<String> tables, boolean laterRunFirst, Runnable afterBothRuns) {
    useHandle(
        h -> {
          for (String t : tables) {
            h.execute("DROP TABLE IF EXISTS `" + t + "_ref`");
            h.execute("CREATE TABLE `" + t + "_ref` LIKE `" + t + "`");
            h.execute("INSERT INTO `" + t + "_ref` SELECT * FROM `" + t + "`");
          }
        });
    insertPost9(table + "_ref");
    Map<String, String> merge = Map.of("apply.referenced", "merge");

    CliRun first = apply(table, merge);
    assertThat(first.exitCode()).as(first.err() + first.out()).isZero();
    long runN = lastRunId(table);
    insertPost9(table);
    CliRun second = apply(table, merge);
    assertThat(second.exitCode()).as(second.err() + second.out()).isZero();
    long runN1 = lastRunId(table);
    afterBothRuns.run();

    for (long run : laterRunFirst ? new long[] {runN1, runN} : new long[] {runN, runN1}) {
      CliRun restore =
          cli("restore", "--config", config(table, merge).toString(), "--run", String.valueOf(run));
      assertThat(restore.exitCode()).as(restore.err()).isZero();
      assertThat(restore.out()).doesNotContain("left as they are");
    }
    for (String t : tables) {
      assertThat(checksum(t)).as(t).isEqualTo(checksum(t + "_ref"));
    }
    assertThat(repointed(runN) + repointed(runN1)).isZero();
  }

  /** Post 9: a newer twin of posts 1 and 2 of {@link #posts}. */
  private static void insertPost9(String table) {
    insert(
        table,
        9,
        "供应红富士苹果0",
        "苹果",
        "13800138000",
        "本人有红富士苹果约3000斤，果面光洁，口感脆甜，欢迎来电",
        NEW.plusDays(1));
  }

  private static long checksum(String table) {
    return withHandle(
        h -> h.createQuery("CHECKSUM TABLE `" + table + "`").map((rs, ctx) -> rs.getLong(2)).one());
  }

  @Test
  void apply_mergeThatWouldBreakAUniqueKeyOfTheChild_leavesThatPostInPlace() {
    String table = "fk_tags";
    // Posts 1 and 2 both tagged 'fruit': re-pointed, 1's tag would be 2's twice.
    postsWithTags(table, " ON DELETE CASCADE", () -> {}, "(1, 'fruit'), (2, 'fruit'), (3, 'red')");

    CliRun run = apply(table, Map.of("apply.referenced", "merge"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(ids(table)).containsExactly(1L, 2L, 4L, 6L, 7L);
    assertThat(tags(table)).containsExactly("1:fruit", "2:fruit", "4:red");
    assertThat(run.out())
        .contains("moved exact: 3 planned, 2 moved, 1 kept (referenced by other tables)");
  }

  @Test
  void apply_mergeOfTwoPostsTaggedAlikeIntoOneKeptPost_movesTheFirstAndLeavesTheOther() {
    String table = "fk_siblings";
    // Post 8: a third copy of posts 1 and 2, the oldest; 1 and 8 are both removed in favour of 2.
    Runnable post8 =
        () ->
            insert(
                table,
                8,
                "供应红富士苹果0",
                "苹果",
                "13800138000",
                "本人有红富士苹果约3000斤，果面光洁，口感脆甜，欢迎来电",
                OLD.minusDays(1));
    postsWithTags(table, "", post8, "(1, 'fruit'), (8, 'fruit'), (8, 'red')");

    CliRun run = apply(table, Map.of("apply.referenced", "merge"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(ids(table)).containsExactly(2L, 4L, 6L, 7L, 8L);
    assertThat(tags(table)).containsExactly("2:fruit", "8:fruit", "8:red");
    assertThat(run.out())
        .contains("moved exact: 4 planned, 3 moved, 1 kept (referenced by other tables)");
  }

  @Test
  void apply_keep_leavesReferencedPostsInPlace_andTheReportsSayWhatMovedAndWhatStayed()
      throws IOException {
    postsWithInquiries("fk_keep", "RESTRICT");
    Path report = dir.resolve("report");

    CliRun run =
        apply("fk_keep", Map.of("apply.referenced", "keep"), "--report", report.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(ids("fk_keep")).containsExactly(1L, 2L, 4L, 6L, 7L);
    assertThat(inquiries("fk_keep")).hasSize(4);
    assertThat(run.out())
        .contains("moved exact: 3 planned, 2 moved, 1 kept (referenced by other tables)");
    JsonNode summary = JSON.readTree(report.resolve("summary.json").toFile());
    assertThat(summary.at("/exact/removed").asLong()).isEqualTo(2);
    assertThat(summary.at("/exact/apply/planned").asLong()).isEqualTo(3);
    assertThat(summary.at("/exact/apply/moved").asLong()).isEqualTo(2);
    assertThat(summary.at("/exact/apply/kept_referenced").asLong()).isEqualTo(1);
    assertThat(summary.at("/apply/kept_referenced").asLong()).isEqualTo(1);
    Map<Long, String> outcomes = new HashMap<>();
    for (String line :
        Files.readAllLines(report.resolve("decisions.jsonl"), StandardCharsets.UTF_8)) {
      JsonNode decision = JSON.readTree(line);
      outcomes.put(decision.get("removed_id").asLong(), decision.get("outcome").asText());
    }
    assertThat(outcomes)
        .containsOnly(
            Map.entry(1L, "kept_referenced"), Map.entry(3L, "moved"), Map.entry(5L, "moved"));
    String html = Files.readString(report.resolve("report.html"), StandardCharsets.UTF_8);
    assertThat(html)
        .contains("<table id=\"apply\">")
        .contains("data-key=\"exact.apply.kept_referenced\">1<");
    long runId = summary.get("run_id").asLong();
    long removed =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT removed FROM dedup_run_removed WHERE run_id = ?"
                            + " AND method = 'exact'")
                    .bind(0, runId)
                    .mapTo(Long.class)
                    .one());
    assertThat(removed).isEqualTo(2);
  }

  @Test
  void
      apply_runLeftApplyingByARestrictForeignKey_stopsWithTheKeyThenFinishesOnceThePolicyIsChosen() {
    postsWithInquiries("fk_wedged", "RESTRICT");
    // The state an apply that hit the RESTRICT key mid-batch left: the run 'applying', its plan
    // written, the batch naming post 1 (referenced) rolled back. Unknown row states: the resume
    // decides again.
    RunLog.ensureTables(database());
    long wedged =
        new RunLog(database(), "fk_wedged")
            .startRun("exact", true, "0123456789abcdef0123456789abcdef", null, null);
    useHandle(
        h ->
            h.execute(
                "INSERT INTO dedup_plan (run_id, seq, removed_id, kept_id, rule, score)"
                    + " VALUES (?, 0, 1, 2, 'exact', 1), (?, 1, 3, 4, 'exact', 1)",
                wedged,
                wedged));
    Path refuse = config("fk_wedged", Map.of());

    CliRun stopped = cli("run", "--config", refuse.toString(), "--apply");

    assertThat(stopped.exitCode()).as(stopped.err()).isEqualTo(2);
    assertThat(stopped.errLines())
        .singleElement()
        .asString()
        .contains("fk_wedged_inquiry.post_id -> fk_wedged.id (ON DELETE RESTRICT)");
    assertThat(ids("fk_wedged")).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);

    CliRun kept = apply("fk_wedged", Map.of("apply.referenced", "keep"));

    assertThat(kept.exitCode()).as(kept.err()).isZero();
    assertThat(kept.out())
        .contains("finished interrupted run(s) [" + wedged + "] first: 1 rows moved");
    assertThat(statuses("fk_wedged")).containsOnly("applied");
    assertThat(ids("fk_wedged")).containsExactly(1L, 2L, 4L, 6L, 7L);
    assertThat(inquiries("fk_wedged")).hasSize(4);
  }

  @Test
  void check_mergeWithoutUpdateOnTheChildTable_oneLineNamingIt_beforeAnyRowMoves() {
    postsWithInquiries("fk_noupd", "RESTRICT");
    useHandle(
        h -> {
          h.execute("DROP USER IF EXISTS 'fk_noupd'@'%'");
          h.execute("CREATE USER 'fk_noupd'@'%' IDENTIFIED BY 'noupd-pw-1'");
          h.execute("GRANT SELECT ON " + DATABASE + ".* TO 'fk_noupd'@'%'");
          h.execute("GRANT PROCESS ON *.* TO 'fk_noupd'@'%'"); // to read every foreign key
        });
    DbSettings server = database().jdbcSettings();
    org.xiaochong.archive.ReferencedRows.Settings merge =
        new org.xiaochong.archive.ReferencedRows.Settings(
            org.xiaochong.archive.ReferencedRows.Policy.MERGE, false);

    try (org.xiaochong.source.Database narrow =
        org.xiaochong.source.Database.open(
            new DbSettings(server.url(), "fk_noupd", "noupd-pw-1", dir.resolve("narrow")))) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> org.xiaochong.archive.ReferencedRows.check(narrow, spec("fk_noupd"), merge))
          .isInstanceOf(org.xiaochong.source.BadInputException.class)
          .hasMessageContaining("may not UPDATE")
          .hasMessageContaining("fk_noupd_inquiry");
    }
    // The owner's login may: the check passes, and nothing was changed by asking.
    org.xiaochong.archive.ReferencedRows.check(database(), spec("fk_noupd"), merge);
    assertThat(inquiries("fk_noupd"))
        .containsOnly(
            Map.entry(101L, 1L), Map.entry(102L, 1L), Map.entry(103L, 2L), Map.entry(104L, 7L));
  }

  @Test
  void runApply_mergeWithoutUpdateOnTheChildTable_exitsWithOneLineEveryTime_nothingMoved() {
    DbSettings server =
        hiddenCascadeChild("fk_noupd_cli", "fk_noupd_cli_schema", "fk_noupd_cli", "PROCESS");
    // The child table may be read, not updated: a merge could re-point none of its rows.
    useHandle(h -> h.execute("GRANT SELECT ON fk_noupd_cli_schema.inquiry TO 'fk_noupd_cli'@'%'"));
    Map<String, String> merge =
        Map.of(
            "db.user",
            "fk_noupd_cli",
            "db.password",
            "hidden-pw-1",
            "db.url",
            server.url(),
            "apply.referenced",
            "merge");

    for (int attempt = 1; attempt <= 2; attempt++) {
      CliRun run = apply("fk_noupd_cli", merge);
      assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
      assertThat(run.errLines())
          .singleElement()
          .asString()
          .contains("may not UPDATE")
          .contains("inquiry");
    }

    assertThat(ids("fk_noupd_cli")).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    assertThat(hiddenInquiries("fk_noupd_cli_schema")).containsExactly("101:1", "102:1", "103:2");
    assertThat(statuses("fk_noupd_cli")).isEmpty();
  }

  /**
   * {@code <table>} as {@link #posts}, and {@code <schema>.inquiry} with inquiries 101 and 102 on
   * the removed post 1 and 103 on post 2, through an ON DELETE CASCADE key; and {@code login}, who
   * may do anything on the posts' schema, nothing on the child's, plus {@code extra} (a global
   * grant, or none).
   */
  private static DbSettings hiddenCascadeChild(
      String table, String schema, String login, String extra) {
    useHandle(
        h -> {
          h.execute("CREATE DATABASE IF NOT EXISTS " + schema);
          h.execute("DROP TABLE IF EXISTS " + schema + ".inquiry");
        });
    posts(table);
    useHandle(
        h -> {
          h.execute(
              "CREATE TABLE "
                  + schema
                  + ".inquiry (id BIGINT PRIMARY KEY, post_id BIGINT NOT NULL,"
                  + " FOREIGN KEY (post_id) REFERENCES "
                  + DATABASE
                  + "."
                  + table
                  + " (id) ON DELETE CASCADE) ENGINE=InnoDB");
          h.execute("INSERT INTO " + schema + ".inquiry VALUES (101, 1), (102, 1), (103, 2)");
          h.execute("DROP USER IF EXISTS '" + login + "'@'%'");
          h.execute("CREATE USER '" + login + "'@'%' IDENTIFIED BY 'hidden-pw-1'");
          h.execute("GRANT ALL ON " + DATABASE + ".* TO '" + login + "'@'%'");
          if (!extra.isEmpty()) {
            h.execute("GRANT " + extra + " ON *.* TO '" + login + "'@'%'");
          }
        });
    return database().jdbcSettings();
  }

  /** The inquiries of {@code <schema>.inquiry} as id:post_id, in order. */
  private static List<String> hiddenInquiries(String schema) {
    return withHandle(
        h ->
            h.createQuery("SELECT CONCAT(id, ':', post_id) FROM " + schema + ".inquiry ORDER BY id")
                .mapTo(String.class)
                .list());
  }

  @Test
  void apply_cascadeKeyInASchemaTheLoginCannotSee_foundInInnodbDictionary_noChildRowLost() {
    DbSettings server = hiddenCascadeChild("fk_unseen", "fk_unseen_schema", "fk_proc", "PROCESS");
    Map<String, String> login =
        Map.of("db.user", "fk_proc", "db.password", "hidden-pw-1", "db.url", server.url());
    Map<String, String> merge = new HashMap<>(login);
    merge.put("apply.referenced", "merge");
    Map<String, String> keep = new HashMap<>(login);
    keep.put("apply.referenced", "keep");
    // The login is shown no key through REFERENTIAL_CONSTRAINTS: only the dictionary names it.
    try (org.xiaochong.source.Database narrow =
        org.xiaochong.source.Database.open(
            new DbSettings(server.url(), "fk_proc", "hidden-pw-1", dir.resolve("proc")))) {
      long shown =
          narrow
              .jdbi()
              .withHandle(
                  h ->
                      h.createQuery(
                              "SELECT COUNT(*) FROM information_schema.referential_constraints"
                                  + " WHERE referenced_table_name = 'fk_unseen'")
                          .mapTo(Long.class)
                          .one());
      assertThat(shown).isZero();
    }

    CliRun refused = apply("fk_unseen", login);
    CliRun merged = apply("fk_unseen", merge);
    CliRun kept = apply("fk_unseen", keep);

    assertThat(refused.exitCode()).as(refused.err()).isEqualTo(2);
    assertThat(refused.errLines())
        .singleElement()
        .asString()
        .contains("fk_unseen_schema.inquiry.post_id -> fk_unseen.id (ON DELETE CASCADE)")
        .contains("apply.referenced=merge");
    for (CliRun run : List.of(merged, kept)) {
      assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
      assertThat(run.errLines())
          .singleElement()
          .asString()
          .contains("fk_unseen_schema.inquiry.post_id -> fk_unseen.id (ON DELETE CASCADE)")
          .contains("a table this login has no rights on")
          .contains("SELECT and UPDATE on fk_unseen_schema.inquiry");
    }
    assertThat(ids("fk_unseen")).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    assertThat(hiddenInquiries("fk_unseen_schema")).containsExactly("101:1", "102:1", "103:2");
    assertThat(statuses("fk_unseen")).isEmpty();

    // A right on the child table alone (not its schema): REFERENTIAL_CONSTRAINTS still hides the
    // key, the dictionary names it, and the merge re-points and restore puts back every child row.
    useHandle(h -> h.execute("GRANT SELECT, UPDATE ON fk_unseen_schema.inquiry TO 'fk_proc'@'%'"));
    CliRun mergedNow = apply("fk_unseen", merge);

    assertThat(mergedNow.exitCode()).as(mergedNow.err()).isZero();
    assertThat(ids("fk_unseen")).containsExactly(2L, 4L, 6L, 7L);
    assertThat(hiddenInquiries("fk_unseen_schema")).containsExactly("101:2", "102:2", "103:2");

    CliRun restored =
        cli(
            "restore",
            "--config",
            config("fk_unseen", merge).toString(),
            "--run",
            Long.toString(lastRunId("fk_unseen")));

    assertThat(restored.exitCode()).as(restored.err()).isZero();
    assertThat(ids("fk_unseen")).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    assertThat(hiddenInquiries("fk_unseen_schema")).containsExactly("101:1", "102:1", "103:2");
  }

  @Test
  void apply_loginThatCannotReadEveryForeignKey_stopsWithOneLineEveryTime_noChildRowLost() {
    DbSettings server = hiddenCascadeChild("fk_hidden", "fk_hidden_schema", "fk_narrow", "");
    Path config =
        config(
            "fk_hidden",
            Map.of("db.user", "fk_narrow", "db.password", "hidden-pw-1", "db.url", server.url()));

    CliRun first = cli("run", "--config", config.toString(), "--apply");
    CliRun next = cli("run", "--config", config.toString(), "--apply");
    CliRun dry = cli("run", "--config", config.toString());

    for (CliRun run : List.of(first, next)) {
      assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
      assertThat(run.errLines())
          .singleElement()
          .asString()
          .contains("cannot read every foreign key that references fk_hidden")
          .contains("GRANT PROCESS ON *.*");
    }
    assertThat(dry.exitCode()).as(dry.err()).isZero();
    assertThat(dry.out() + dry.err()).contains("note: --apply stops before changing anything");
    assertThat(ids("fk_hidden")).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    assertThat(hiddenInquiries("fk_hidden_schema")).containsExactly("101:1", "102:1", "103:2");
    assertThat(statuses("fk_hidden")).isEmpty();

    // A global SELECT shows the login every table: REFERENTIAL_CONSTRAINTS is then whole.
    useHandle(h -> h.execute("GRANT SELECT ON *.* TO 'fk_narrow'@'%'"));
    CliRun seen = cli("run", "--config", config.toString(), "--apply");

    assertThat(seen.exitCode()).as(seen.err()).isEqualTo(2);
    assertThat(seen.errLines())
        .singleElement()
        .asString()
        .contains("fk_hidden_schema.inquiry.post_id -> fk_hidden.id (ON DELETE CASCADE)");
    assertThat(hiddenInquiries("fk_hidden_schema")).containsExactly("101:1", "102:1", "103:2");
  }

  @Test
  void apply_deleteTrigger_stopsNamingIt_untilAccepted() {
    posts("fk_trig");
    useHandle(
        h -> {
          h.execute("DROP TABLE IF EXISTS fk_trig_log");
          h.execute("CREATE TABLE fk_trig_log (post_id BIGINT) ENGINE=InnoDB");
          h.execute(
              "CREATE TRIGGER fk_trig_deleted AFTER DELETE ON fk_trig FOR EACH ROW INSERT INTO fk_trig_log VALUES (OLD.id)");
        });

    CliRun stopped = apply("fk_trig", Map.of());

    assertThat(stopped.exitCode()).as(stopped.err()).isEqualTo(2);
    assertThat(stopped.errLines())
        .singleElement()
        .asString()
        .contains("fk_trig_deleted (AFTER DELETE)")
        .contains("apply.delete-triggers=accept");
    assertThat(count("fk_trig")).isEqualTo(7);

    CliRun accepted = apply("fk_trig", Map.of("apply.delete-triggers", "accept"));

    assertThat(accepted.exitCode()).as(accepted.err()).isZero();
    assertThat(ids("fk_trig")).containsExactly(2L, 4L, 6L, 7L);
    assertThat(count("fk_trig_log")).isEqualTo(3);
  }

  @Test
  void applyAndRestore_tableWithoutTransactions_refusedWithTheAlterThatFixesIt_dryRunWorks() {
    posts("fk_myisam");
    useHandle(h -> h.execute("ALTER TABLE fk_myisam ENGINE=MyISAM"));
    Path config = config("fk_myisam", Map.of());

    CliRun dry = cli("run", "--config", config.toString());
    CliRun apply = cli("run", "--config", config.toString(), "--apply");
    CliRun restore = cli("restore", "--config", config.toString(), "--run", "1");

    assertThat(dry.exitCode()).as(dry.err()).isZero();
    assertThat(dry.out())
        .contains("fk_myisam uses MyISAM")
        .contains("this dry run works as it is")
        .contains("3 duplicates");
    for (CliRun refused : List.of(apply, restore)) {
      assertThat(refused.exitCode()).as(refused.err()).isEqualTo(2);
      assertThat(refused.errLines())
          .singleElement()
          .asString()
          .contains("fk_myisam uses MyISAM")
          .contains("ALTER TABLE `fk_myisam` ENGINE=InnoDB)");
    }
    assertThat(count("fk_myisam")).isEqualTo(7);
    assertThat(tableExists("fk_myisam_removed"))
        .as("nothing made for an apply that was refused")
        .isFalse();
  }

  @Test
  void restore_archiveWithoutTransactions_refusedUntilConverted() {
    posts("fk_aria");
    Path config = config("fk_aria", Map.of());
    CliRun applied = cli("run", "--config", config.toString(), "--apply");
    assertThat(applied.exitCode()).as(applied.err()).isZero();
    long runId = lastRunId("fk_aria");
    useHandle(h -> h.execute("ALTER TABLE fk_aria_removed ENGINE=Aria"));

    CliRun refused = cli("restore", "--config", config.toString(), "--run", String.valueOf(runId));

    assertThat(refused.exitCode()).as(refused.err()).isEqualTo(2);
    assertThat(refused.errLines())
        .singleElement()
        .asString()
        .contains("ALTER TABLE `fk_aria_removed` ENGINE=InnoDB)");
    assertThat(count("fk_aria")).isEqualTo(4);
    useHandle(h -> h.execute("ALTER TABLE fk_aria_removed ENGINE=InnoDB"));
    assertThat(
            cli("restore", "--config", config.toString(), "--run", String.valueOf(runId))
                .exitCode())
        .isZero();
    assertThat(count("fk_aria")).isEqualTo(7);
  }

  @Test
  void restore_errorAfterTheFirstBatch_exitCode4NamingTheRowsPutBack() {
    // 12,000 pairs of twins: the restore puts the 12,000 removed rows back in two batches of ids.
    createPostsTable("fk_restore");
    useHandle(
        h ->
            h.execute(
                "INSERT INTO fk_restore (id, title, product, content, reg_time) SELECT seq,"
                    + " CONCAT('帖子', (seq + 1) DIV 2), '苹果', '内容', IF(seq % 2 = 0, '2024-05-02', '2024-05-01')"
                    + " FROM seq_1_to_24000"));
    Path config = config("fk_restore", Map.of());
    assertThat(cli("run", "--config", config.toString(), "--apply").exitCode()).isZero();
    assertThat(count("fk_restore")).isEqualTo(12_000);
    long runId = lastRunId("fk_restore");
    // The crawler re-inserts the last archived id: the second batch cannot go back.
    insert("fk_restore", 23_999, "又一条", "苹果", "13800138000", "新内容", NEW);

    CliRun restore = cli("restore", "--config", config.toString(), "--run", String.valueOf(runId));

    assertThat(restore.exitCode()).as(restore.err()).isEqualTo(4);
    assertThat(restore.errLines())
        .singleElement()
        .asString()
        .contains("put back 10,000 rows")
        .contains("a row with the same id is in fk_restore again");
    assertThat(count("fk_restore")).isEqualTo(12_000 + 1 + 10_000);
  }

  @Test
  void apply_errorAfterRowsMoved_exitCode4NamingTheRowsMoved() throws IOException {
    posts("fk_partial");
    Path notADirectory = Files.writeString(dir.resolve("report-file"), "x");

    CliRun run = apply("fk_partial", Map.of(), "--report", notADirectory.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(4);
    assertThat(run.errLines())
        .singleElement()
        .asString()
        .contains("archived and deleted 3 rows")
        .contains("--report");
    assertThat(count("fk_partial")).isEqualTo(4);
  }
}
