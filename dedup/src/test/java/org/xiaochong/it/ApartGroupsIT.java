package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.archive.ApartTable;
import org.xiaochong.archive.RunLog;

/**
 * Marks that grow with the restored rows: a restored spam group is marked as one group (a row per
 * restored row), later runs keep it, a later twin of the row it was restored from takes none of it,
 * marks of rows gone for good are pruned, and pair marks of an older version become groups.
 */
@Tag("db")
class ApartGroupsIT extends DbTestSupport {
  private static final Pattern RUN_ID = Pattern.compile("run (\\d+) \\(applied\\)");
  private static final LocalDateTime START = LocalDateTime.of(2025, 1, 1, 8, 0);

  /**
   * Rows of the restored group: 2,001 (the reposts of issue 35) keeps the suite lean; {@code
   * -Dapart.groupRows=20001} runs the target size.
   */
  private static final int GROUP_ROWS = Integer.getInteger("apart.groupRows", 2_001);

  @TempDir Path dir;

  @Test
  void restoreOfALargeExactGroup_oneGroupRowPerRow_laterRunsAndALaterTwinTakeNone() {
    String table = "apart_spam";
    int n = GROUP_ROWS;
    createPostsTable(table);
    insertTwins(table, 1, n);
    List<List<String>> before = snapshot(table);
    Path config = writeConfig(dir, table, dir.resolve("index"), Map.of());

    long runId = runId(applied(config, "--apply"));
    assertThat(count(table)).isEqualTo(1);
    CliRun restore = cli("restore", "--config", config.toString(), "--run", Long.toString(runId));
    assertThat(restore.exitCode()).as(restore.err()).isZero();
    assertThat(snapshot(table)).isEqualTo(before);

    ApartTable marks = new ApartTable(database(), table);
    ApartTable.Counts counts = marks.counts();
    assertThat(counts.pairs()).isZero();
    assertThat(counts.groups()).isEqualTo(1);
    assertThat(counts.groupRows()).isEqualTo(n); // the kept row and the n - 1 restored
    assertThat(counts.groups() + counts.groupRows()).isLessThanOrEqualTo(2L * (n - 1));

    CliRun nightly = applied(config, "--full", "--apply");
    assertThat(snapshot(table)).isEqualTo(before);
    assertThat(nightly.out()).contains(String.format("apart: %,d marks", n));

    // A newer twin of the row the group was restored from: it is kept (newest), that row goes for
    // it, and no restored row does; the twin joins the group, so the next run removes nothing.
    long keptBefore = marks.groups(1).get(0).anchorId();
    insertTwins(table, n + 1, 1);
    applied(config, "--apply");
    assertThat(count(table)).isEqualTo(n);
    assertThat(ids(table)).doesNotContain(keptBefore).contains((long) n + 1);
    ApartPairs loaded = marks.load();
    assertThat(loaded.contains(n + 1, keptBefore == 1 ? 2 : 1)).isTrue();
    applied(config, "--full", "--apply");
    assertThat(count(table)).isEqualTo(n);

    // Rows the site deletes leave the marks at the next apply; the archived row stays marked.
    useHandle(h -> h.execute("DELETE FROM " + table + " WHERE id IN (2, 3)"));
    applied(config, "--apply");
    assertThat(marks.counts().groupRows()).isEqualTo(n + 1 - 2);
    assertThat(marks.load().groupsOf(keptBefore)).hasSize(1);

    // The group as `apart` shows it, and lifted as a whole.
    long group = marks.groups(1).get(0).id();
    CliRun list = cli("apart", "list", "--config", config.toString());
    assertThat(list.out())
        .contains("1 restored groups of " + table)
        .contains(String.format("group %d: %,d rows, restore (run %d)", group, n - 1, runId));
    CliRun pair = cli("apart", "remove", "--config", config.toString(), "1", "4");
    assertThat(pair.exitCode()).isEqualTo(2);
    assertThat(pair.errLines())
        .singleElement()
        .asString()
        .contains("apart remove --group " + group);
    CliRun lift = cli("apart", "remove", "--config", config.toString(), "--group", "" + group);
    assertThat(lift.exitCode()).as(lift.err()).isZero();
    assertThat(marks.counts()).isEqualTo(new ApartTable.Counts(0, 0, 0));
  }

  @Test
  void ensureTables_pairMarksOfAnOlderRestore_becomeOneGroupPerKeptRow_manualPairsStay() {
    RunLog.ensureTables(database());
    String table = "apart_migrated";
    // run 7 restored 11, 12 (removed for 10) and 21 (removed for 20): the pairs of each clique.
    long[][] pairs = {{10, 11}, {10, 12}, {11, 12}, {20, 21}};
    useHandle(
        h -> {
          for (long[] p : pairs) {
            h.execute(
                "INSERT INTO dedup_apart (source_table, id_a, id_b, reason, run_id, created_at)"
                    + " VALUES (?, ?, ?, 'restore', 7, NOW(3))",
                table,
                p[0],
                p[1]);
          }
          h.execute(
              "INSERT INTO dedup_apart (source_table, id_a, id_b, reason, run_id, created_at)"
                  + " VALUES (?, 1, 2, 'manual', NULL, NOW(3))",
              table);
        });
    ApartPairs old = new ApartTable(database(), table).load();

    RunLog.ensureTables(database());
    RunLog.ensureTables(database()); // again: nothing made twice

    ApartTable marks = new ApartTable(database(), table);
    assertThat(marks.counts()).isEqualTo(new ApartTable.Counts(1, 2, 5));
    assertThat(marks.list(10))
        .singleElement()
        .extracting(ApartTable.Mark::reason)
        .isEqualTo("manual");
    ApartPairs migrated = marks.load();
    for (long a = 0; a < 25; a++) {
      for (long b = 0; b < 25; b++) {
        assertThat(migrated.contains(a, b)).as("%d %d", a, b).isEqualTo(old.contains(a, b));
      }
    }
  }

  /** Inserts {@code count} identical posts with ids from {@code firstId}, each a minute newer. */
  private static void insertTwins(String table, long firstId, int count) {
    useHandle(
        h -> {
          for (int from = 0; from < count; from += 1_000) {
            StringBuilder sql =
                new StringBuilder(
                    "INSERT INTO "
                        + table
                        + " (id, title, category, product, region, price, contact, phone, content,"
                        + " reg_time) VALUES ");
            for (int i = from; i < Math.min(count, from + 1_000); i++) {
              sql.append(i == from ? "" : ",")
                  .append("(")
                  .append(firstId + i)
                  .append(", '出售二手手机', '供应', '手机', '山东烟台', '面议', '王先生', '13800138000',")
                  .append(" '九成新二手手机低价出售，联系王先生', '")
                  .append(START.plusMinutes(firstId + i).toString().replace('T', ' '))
                  .append("')");
            }
            h.execute(sql.toString());
          }
        });
  }

  private static CliRun applied(Path config, String... options) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of("run", "--config", config.toString(), "--method", "exact"));
    args.addAll(List.of(options));
    CliRun run = cli(args.toArray(String[]::new));
    assertThat(run.exitCode()).as(run.err()).isZero();
    return run;
  }

  private static long runId(CliRun run) {
    Matcher m = RUN_ID.matcher(run.out());
    assertThat(m.find()).as(run.out()).isTrue();
    return Long.parseLong(m.group(1));
  }
}
