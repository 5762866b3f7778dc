package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.xiaochong.archive.RunLog;

/**
 * A run log with the old per-method columns is moved to dedup_run_removed, counts kept,
 * idempotently.
 */
@Tag("db")
class RunLogMigrationIT extends DbTestSupport {
  private static final String TABLE = "migrated_posts";

  private static void createOldRunLog() {
    useHandle(
        h -> {
          h.execute("DROP TABLE IF EXISTS dedup_run");
          h.execute("DROP TABLE IF EXISTS dedup_run_removed");
          // dedup_run as made before per-method counts.
          h.execute(OLD_DEDUP_RUN);
          String insert =
              "INSERT INTO dedup_run (source_table, method, applied, status, config_digest, records_read,"
                  + " exact_removed, near_removed, started_at) VALUES ('"
                  + TABLE
                  + "', ?, TRUE, 'applied', '"
                  + "0".repeat(32)
                  + "', 100, ?, ?, NOW())";
          h.execute(insert, "exact", 7, 0);
          h.execute(insert, "both", 5, 3);
          h.execute(insert, "near", 0, 4);
          h.execute(insert, "exact", 0, 0);
        });
  }

  private static Map<Long, Map<String, Long>> removedByRun() {
    return new RunLog(database(), TABLE)
        .runs(10).stream()
            .collect(
                java.util.stream.Collectors.toMap(
                    RunLog.RunRow::id, RunLog.RunRow::removedByMethod));
  }

  private static long oldColumns() {
    return withHandle(
        h ->
            h.createQuery(
                    "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()"
                        + " AND table_name = 'dedup_run' AND column_name IN ('exact_removed', 'near_removed')")
                .mapTo(Long.class)
                .one());
  }

  @Test
  void ensureTables_oldLayout_movesCountsAndDropsTheColumns() {
    createOldRunLog();
    Map<Long, Map<String, Long>> before = removedByRun(); // stats reads a log not yet migrated

    RunLog.ensureTables(database());

    assertThat(oldColumns()).isZero();
    Map<Long, Map<String, Long>> after = removedByRun();
    assertThat(after)
        .isEqualTo(
            Map.of(
                1L, Map.of("exact", 7L),
                2L, Map.of("exact", 5L, "near", 3L),
                3L, Map.of("near", 4L),
                4L, Map.of("exact", 0L)));
    assertThat(before.get(2L)).isEqualTo(Map.of("exact", 5L, "near", 3L));
    long methodWidth =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT CHARACTER_MAXIMUM_LENGTH FROM information_schema.columns"
                            + " WHERE table_schema = DATABASE() AND table_name = 'dedup_run' AND column_name = 'method'")
                    .mapTo(Long.class)
                    .one());
    assertThat(methodWidth).isEqualTo(255L);
  }

  @Test
  void ensureTables_twice_changesNothingTheSecondTime() {
    createOldRunLog();
    RunLog.ensureTables(database());
    Map<Long, Map<String, Long>> once = removedByRun();

    RunLog.ensureTables(database());

    assertThat(removedByRun()).isEqualTo(once);
    assertThat(oldColumns()).isZero();
  }

  @Test
  void ensureTables_copiedButColumnsLeft_copiesAgainWithTheSameCounts() {
    createOldRunLog();
    // As if a migration stopped between its copy and its ALTER TABLE, leaving a stale count behind.
    useHandle(
        h -> {
          h.execute(
              "CREATE TABLE dedup_run_removed (run_id BIGINT NOT NULL, method VARCHAR(16) NOT NULL,"
                  + " removed BIGINT NOT NULL, PRIMARY KEY (run_id, method)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4");
          h.execute("INSERT INTO dedup_run_removed VALUES (2, 'exact', 99)");
        });

    RunLog.ensureTables(database());

    assertThat(removedByRun().get(2L)).isEqualTo(Map.of("exact", 5L, "near", 3L));
    assertThat(oldColumns()).isZero();
  }
}
