package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.LocalDateTime;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.run.DedupRunner;

/**
 * --since/--until: which records start a lookup, and who wins against what lies outside the window.
 */
@Tag("db")
class WindowIT extends DbTestSupport {
  private static final String TABLE = "window_posts";
  private static final String TITLE = "供应山东烟台一级红富士苹果";
  private static final String CONTENT = "本人有红富士苹果约5000斤，产地山东烟台，价格2.50元/斤。";
  private static final LocalDateTime OLD = LocalDateTime.of(2023, 3, 1, 8, 0);
  private static final LocalDateTime NEW = LocalDateTime.of(2025, 3, 1, 8, 0);
  private static final LocalDateTime BETWEEN = LocalDateTime.of(2024, 1, 1, 0, 0);

  @TempDir Path indexDir;

  @Test
  void run_twinOlderThanWindow_oldRemovedNewKept() {
    createPostsTable(TABLE);
    insert(TABLE, 1, TITLE, "苹果", "13800138000", CONTENT, OLD);
    insert(TABLE, 2, TITLE, "苹果", "13800138000", CONTENT, NEW);

    DedupRunner.Outcome outcome = runExact(TABLE, indexDir, BETWEEN, null, true);

    assertThat(outcome.summary().recordsExamined()).isEqualTo(1);
    assertThat(outcome.summary().removed("exact")).isEqualTo(1);
    assertThat(ids(TABLE)).containsExactly(2L);
    assertThat(ids(TABLE + "_removed")).containsExactly(1L);
  }

  @Test
  void run_groupEntirelyBeforeWindow_untouched() {
    createPostsTable(TABLE);
    insert(TABLE, 1, TITLE, "苹果", "13800138000", CONTENT, OLD);
    insert(TABLE, 2, TITLE, "苹果", "13800138000", CONTENT, OLD.plusDays(1));
    insert(TABLE, 3, "求购赣南脐橙20吨", "脐橙", "13900139000", "长期求购脐橙。", NEW);
    insert(TABLE, 4, "求购赣南脐橙20吨", "脐橙", "13900139000", "长期求购脐橙。", NEW.plusDays(1));

    DedupRunner.Outcome outcome = runExact(TABLE, indexDir, BETWEEN, null, true);

    assertThat(outcome.summary().removed("exact")).isEqualTo(1);
    assertThat(ids(TABLE)).containsExactly(1L, 2L, 4L);
  }

  @Test
  void run_groupEntirelyAfterUntil_untouched() {
    createPostsTable(TABLE);
    insert(TABLE, 1, TITLE, "苹果", "13800138000", CONTENT, NEW);
    insert(TABLE, 2, TITLE, "苹果", "13800138000", CONTENT, NEW.plusDays(1));

    DedupRunner.Outcome outcome = runExact(TABLE, indexDir, null, BETWEEN, true);

    assertThat(outcome.summary().recordsExamined()).isZero();
    assertThat(outcome.summary().removed("exact")).isZero();
    assertThat(ids(TABLE)).containsExactly(1L, 2L);
  }

  @Test
  void run_nullTimeTwin_nullOneRemovedEvenWithHigherId() {
    createPostsTable(TABLE);
    insert(TABLE, 1, TITLE, "苹果", "13800138000", CONTENT, OLD);
    insert(TABLE, 2, TITLE, "苹果", "13800138000", CONTENT, null);

    DedupRunner.Outcome outcome = runExact(TABLE, indexDir, null, null, true);

    assertThat(outcome.summary().removed("exact")).isEqualTo(1);
    assertThat(ids(TABLE)).containsExactly(1L);
    assertThat(ids(TABLE + "_removed")).containsExactly(2L);
  }

  @Test
  void run_nullTimeTwinOutsideWindow_foundFromTheTimedTwin() {
    createPostsTable(TABLE);
    insert(TABLE, 1, TITLE, "苹果", "13800138000", CONTENT, null);
    insert(TABLE, 2, TITLE, "苹果", "13800138000", CONTENT, NEW);

    DedupRunner.Outcome outcome = runExact(TABLE, indexDir, BETWEEN, null, true);

    assertThat(outcome.summary().recordsExamined()).isEqualTo(1);
    assertThat(ids(TABLE)).containsExactly(2L);
  }

  @Test
  void run_sameTime_higherIdKept() {
    createPostsTable(TABLE);
    insert(TABLE, 5, TITLE, "苹果", "13800138000", CONTENT, NEW);
    insert(TABLE, 3, TITLE, "苹果", "13800138000", CONTENT, NEW);

    runExact(TABLE, indexDir, null, null, true);

    assertThat(ids(TABLE)).containsExactly(5L);
  }
}
