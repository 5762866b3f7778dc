package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.source.BadInputException;

/**
 * Rows edited or re-dated after they were indexed: the sync replaces their documents, in both
 * indexes.
 */
@Tag("db")
class ChangedRowsIT extends DbTestSupport {
  private static final String TABLE = "changed_posts";
  static final String TITLE = "供应山东烟台一级红富士苹果";
  static final String CONTENT = "本人有红富士苹果约5000斤，产地山东烟台，价格2.50元/斤。";
  static final String OTHER_TITLE = "求购赣南脐橙20吨";
  static final String OTHER_CONTENT = "长期求购赣南脐橙，量大从优，要求果形端正。";
  private static final LocalDateTime OLD = LocalDateTime.of(2023, 3, 1, 8, 0);
  private static final LocalDateTime MID = LocalDateTime.of(2024, 3, 1, 8, 0);
  private static final LocalDateTime NEW = LocalDateTime.of(2025, 3, 1, 8, 0);

  @TempDir Path dir;

  /**
   * A run of {@code method} with the indexes under {@code dir}; the window as the CLI's default
   * (incremental).
   */
  static DedupRunner.Outcome run(
      String table,
      Path dir,
      String method,
      boolean apply,
      boolean incremental,
      String updatedColumn) {
    try (FingerprintIndex index =
        FingerprintIndex.open(dir.resolve("exact"), "it-" + table, false)) {
      DedupRunner runner =
          new DedupRunner(
                  database(),
                  spec(table),
                  index,
                  "0123456789abcdef0123456789abcdef",
                  2,
                  Progress.NONE)
              .withUpdatedColumn(updatedColumn)
              .withMethodSettings("it-" + table, Map.of());
      return runner.run(new DedupRunner.Options(method, null, null, apply, false, incremental));
    }
  }

  static DedupRunner.Outcome run(
      String table, Path dir, String method, boolean apply, boolean incremental) {
    return run(table, dir, method, apply, incremental, null);
  }

  /** The plan's (removed, kept) pairs, sorted. */
  static List<String> pairs(DeletionPlan plan) {
    List<String> pairs = new ArrayList<>();
    for (int i = 0; i < plan.size(); i++) {
      pairs.add(plan.removedId(i) + "->" + plan.keptId(i) + " " + plan.rule(i));
    }
    pairs.sort(null);
    return pairs;
  }

  @Test
  void redatedOlderTwin_isKeptAndTheOtherRemoved() {
    createPostsTable(TABLE);
    insert(TABLE, 1, TITLE, "苹果", "13800138000", CONTENT, OLD);
    insert(TABLE, 2, TITLE, "苹果", "13800138000", CONTENT, NEW);
    assertThat(pairs(run(TABLE, dir, "exact", false, true).plan())).containsExactly("1->2 EXACT");

    useHandle(
        h ->
            h.execute(
                "UPDATE "
                    + TABLE
                    + " SET reg_time = NOW() WHERE id = 1")); // the site refreshes post 1

    DedupRunner.Outcome applied = run(TABLE, dir, "exact", true, true);
    assertThat(applied.summary().indexChanged()).isEqualTo(1);
    assertThat(applied.summary().indexAdded()).isZero();
    assertThat(pairs(applied.plan())).containsExactly("2->1 EXACT");
    assertThat(ids(TABLE)).containsExactly(1L);
    assertThat(ids(TABLE + "_removed")).containsExactly(2L);
  }

  @Test
  void editedPost_isGroupedWithItsNewTwinNotItsOldOne() {
    createPostsTable(TABLE);
    insert(TABLE, 1, TITLE, "苹果", "13800138000", CONTENT, OLD);
    insert(TABLE, 2, TITLE, "苹果", "13800138000", CONTENT, MID);
    insert(TABLE, 3, OTHER_TITLE, "脐橙", "13900139000", OTHER_CONTENT, NEW);
    assertThat(pairs(run(TABLE, dir, "exact", false, true).plan())).containsExactly("1->2 EXACT");

    // Post 2 is rewritten into a copy of post 3 (same time): its old twin 1 is alone now. The exact
    // prefilter must follow the new key too, or post 2's lookup would be skipped as "no twin".
    useHandle(
        h ->
            h.execute(
                "UPDATE "
                    + TABLE
                    + " SET title = ?, product = '脐橙', phone = '13900139000', content = ?"
                    + " WHERE id = 2",
                OTHER_TITLE,
                OTHER_CONTENT));

    DedupRunner.Outcome applied = run(TABLE, dir, "exact", true, true);
    assertThat(applied.summary().indexChanged()).isEqualTo(1);
    assertThat(pairs(applied.plan())).containsExactly("2->3 EXACT");
    assertThat(ids(TABLE)).containsExactly(1L, 3L);
  }

  @Test
  void columnsOfMixedCharsets_checksumsStillTellEdits() {
    createPostsTable(TABLE);
    // content in GBK beside utf8mb4 columns: the checksum casts each value to its bytes (no
    // collation mix).
    useHandle(
        h ->
            h.execute(
                "ALTER TABLE "
                    + TABLE
                    + " MODIFY content TEXT CHARACTER SET gbk COLLATE gbk_chinese_ci"));
    insert(TABLE, 1, TITLE, "苹果", "13800138000", CONTENT, OLD);
    insert(TABLE, 2, TITLE, "苹果", "13800138000", CONTENT, MID);
    insert(TABLE, 3, TITLE, "苹果", "13800138000", null, NEW);
    assertThat(pairs(run(TABLE, dir, "exact", false, true).plan())).containsExactly("1->2 EXACT");
    assertThat(run(TABLE, dir, "exact", false, true).summary().indexChanged()).isZero();

    useHandle(
        h ->
            h.execute(
                "UPDATE "
                    + TABLE
                    + " SET content = '' WHERE id = 2")); // '' and NULL: one key, two checksums
    DedupRunner.Outcome outcome = run(TABLE, dir, "exact", false, true);
    assertThat(outcome.summary().indexChanged()).isEqualTo(1);
    assertThat(pairs(outcome.plan())).containsExactly("2->3 EXACT");
  }

  @Test
  void nearIndex_followsAnEditedRow() {
    createPostsTable(TABLE);
    String content =
        "本人有红富士苹果约5000斤，产地山东烟台栖霞，果面光洁无病斑，单果八十五毫米以上，价格2.50元/斤，" + "可以代办冷库储存和装车发货，欢迎各地客商来电洽谈。";
    insert(TABLE, 1, TITLE, "苹果", "13800138000", content, OLD);
    insert(TABLE, 2, OTHER_TITLE, "脐橙", "13900139000", OTHER_CONTENT, NEW);
    assertThat(run(TABLE, dir, "near", false, true).plan().size()).isZero();

    // Post 2 becomes a near copy of post 1 (one more phrase): the near index must see its new
    // terms.
    useHandle(
        h ->
            h.execute(
                "UPDATE "
                    + TABLE
                    + " SET title = ?, product = '苹果', phone = '13800138000', content = ?"
                    + " WHERE id = 2",
                TITLE,
                content + "量大从优。"));

    DedupRunner.Outcome outcome = run(TABLE, dir, "near", false, true);
    assertThat(pairs(outcome.plan())).containsExactly("1->2 NEAR");
  }

  @Test
  void updatedColumn_findsTheRedatedRowWithoutComparingEveryChecksum() {
    createPostsTable(TABLE);
    useHandle(
        h ->
            h.execute(
                "ALTER TABLE "
                    + TABLE
                    + " ADD COLUMN updated TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)"));
    insert(TABLE, 1, TITLE, "苹果", "13800138000", CONTENT, OLD);
    insert(TABLE, 2, TITLE, "苹果", "13800138000", CONTENT, NEW);
    insert(TABLE, 3, OTHER_TITLE, "脐橙", "13900139000", OTHER_CONTENT, NEW);
    // Long before any sync, but for row 2, written now: the watermark is the column's largest
    // value.
    useHandle(
        h -> h.execute("UPDATE " + TABLE + " SET updated = '2020-01-01 00:00:00' WHERE id <> 2"));
    run(TABLE, dir, "exact", false, true, "updated"); // records when the sync started
    assertThat(run(TABLE, dir, "exact", false, true, "updated").summary().indexChanged()).isZero();
    // An edit that does not touch the updated column is not seen: proof the checksums of the other
    // rows were not compared (the column is the application's promise).
    useHandle(
        h -> h.execute("UPDATE " + TABLE + " SET title = 'x', updated = updated WHERE id = 3"));
    assertThat(run(TABLE, dir, "exact", false, true, "updated").summary().indexChanged()).isZero();

    useHandle(h -> h.execute("UPDATE " + TABLE + " SET reg_time = NOW() WHERE id = 1"));
    useHandle(h -> h.execute("DELETE FROM " + TABLE + " WHERE id = 3"));
    insert(TABLE, 4, OTHER_TITLE, "脐橙", "13900139000", OTHER_CONTENT, MID);

    DedupRunner.Outcome applied = run(TABLE, dir, "exact", true, true, "updated");
    assertThat(applied.summary().indexChanged()).isEqualTo(1);
    assertThat(applied.summary().indexAdded()).isEqualTo(1);
    assertThat(applied.summary().indexDeleted()).isEqualTo(1);
    assertThat(pairs(applied.plan())).containsExactly("2->1 EXACT");
  }

  @Test
  void updatedColumn_datetimeWrittenWestOfUtc_editIsSeen() {
    createPostsTable(TABLE);
    useHandle(
        h ->
            h.execute(
                "ALTER TABLE " + TABLE + " ADD COLUMN updated DATETIME NULL, ADD KEY (updated)"));
    insert(TABLE, 1, TITLE, "苹果", "13800138000", CONTENT, OLD);
    insert(TABLE, 3, OTHER_TITLE, "脐橙", "13900139000", OTHER_CONTENT, NEW);
    // The site writes the column with NOW() in its own session's zone, eight hours west of UTC.
    String site = "SET SESSION time_zone = '-08:00'";
    useHandle(
        h -> {
          h.execute(site);
          h.execute("UPDATE " + TABLE + " SET updated = NOW()");
        });
    run(TABLE, dir, "exact", false, true, "updated"); // records the watermark
    useHandle(
        h -> {
          h.execute(site);
          h.execute(
              "UPDATE " + TABLE + " SET content = '长期求购赣南脐橙，量大从优。', updated = NOW() WHERE id = 3");
        });

    DedupRunner.Outcome outcome = run(TABLE, dir, "exact", false, true, "updated");

    assertThat(outcome.summary().indexChanged()).isEqualTo(1);
  }

  @Test
  void updatedWatermark_goesBackToTheOldestOpenTransaction() throws Exception {
    createPostsTable(TABLE);
    useHandle(h -> h.execute("ALTER TABLE " + TABLE + " ADD COLUMN updated DATETIME NULL"));
    insert(TABLE, 1, TITLE, "苹果", "13800138000", CONTENT, OLD);
    useHandle(h -> h.execute("UPDATE " + TABLE + " SET updated = '2025-06-01 12:00:00'"));
    org.xiaochong.source.RecordSource source =
        new org.xiaochong.source.RecordSource(database(), spec(TABLE));
    assertThat(source.updatedWatermark("updated")).isEqualTo("2025-06-01 12:00:00");

    // A site transaction that has written and not committed: its row may hold an earlier time than
    // the rows others commit meanwhile.
    try (org.jdbi.v3.core.Handle site = database().jdbi().open()) {
      site.begin();
      site.execute("UPDATE " + TABLE + " SET title = title WHERE id = 1");
      Thread.sleep(2_500);

      String watermark = source.updatedWatermark("updated");

      site.rollback();
      assertThat(LocalDateTime.parse(watermark.replace(' ', 'T')))
          .isBeforeOrEqualTo(LocalDateTime.of(2025, 6, 1, 11, 59, 58));
    }
  }

  @Test
  void updatedColumn_mustBeADatetimeColumn() {
    createPostsTable(TABLE);
    insert(TABLE, 1, TITLE, "苹果", "13800138000", CONTENT, OLD);
    assertThatThrownBy(() -> run(TABLE, dir, "exact", false, true, "title"))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("must be DATETIME or TIMESTAMP");
    assertThatThrownBy(() -> run(TABLE, dir, "exact", false, true, "no_such_column"))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("is not a column");
  }
}
