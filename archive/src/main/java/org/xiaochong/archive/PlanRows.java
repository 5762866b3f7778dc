package org.xiaochong.archive;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.xiaochong.archive.PlanMover.Outcome;
import org.xiaochong.source.Database;

/**
 * The plan rows of a run as its apply leaves them, read from {@code dedup_plan} and the archive
 * {@code <table>_removed}: those left in place and why, those gone, the rows archived; and, before
 * a resumed apply, the planned removals marked apart since the plan was written.
 *
 * <p>Thread-safe (state lives in the database).
 */
final class PlanRows {
  private final ArchiveTables tables;
  private final Database database;

  PlanRows(ArchiveTables tables) {
    this.tables = tables;
    this.database = tables.database();
  }

  /**
   * Marks skipped, before any of its rows move, every planned removal of a written plan whose
   * removed and kept rows are now marked apart ({@code dedup_apart}): a pair marked after the plan
   * was written (an interrupted run resumed after {@code dedup apart add}) is left in place like a
   * changed row. Returns them by rule. A fresh plan needs no such step: its passes read the marks.
   */
  Map<String, Long> skipApart(long runId) {
    String table = tables.spec().table();
    return database
        .jdbi()
        .inTransaction(
            h -> {
              PlanDao plans = h.attach(PlanDao.class);
              Map<String, Long> byRule = new TreeMap<>(plans.markedApartByRule(table, runId));
              if (!byRule.isEmpty()) {
                plans.skipMarkedApart(table, runId);
              }
              return byRule;
            });
  }

  /**
   * The planned rows of a run that did not move, by removed id, read from its plan (before it is
   * dropped). The rows left in place are marked there; the rows gone are looked up in the archive
   * only when {@code anyGone} (the moved count falls short of the plan's rows not left in place).
   */
  Map<Long, Outcome> notMoved(long runId, boolean anyGone) {
    Map<Long, Outcome> outcomes = new HashMap<>();
    database
        .jdbi()
        .useHandle(
            h -> {
              h.attach(PlanDao.class)
                  .leftInPlace(runId)
                  .forEach(
                      (removedId, skipped) ->
                          outcomes.put(
                              removedId,
                              skipped == ReferencedRows.REFERENCED
                                  ? Outcome.KEPT_REFERENCED
                                  : Outcome.KEPT_CHANGED));
              if (anyGone) {
                String id = ArchiveTables.q(tables.spec().idColumn());
                h.createQuery(
                        "SELECT p.removed_id FROM dedup_plan p LEFT JOIN "
                            + ArchiveTables.q(tables.spec().removedTable())
                            + " a ON a.dedup_run_id = p.run_id AND a."
                            + id
                            + " = p.removed_id WHERE p.run_id = ? AND p.skipped = 0"
                            + " AND a."
                            + id
                            + " IS NULL")
                    .bind(0, runId)
                    .mapTo(Long.class)
                    .forEach(removedId -> outcomes.put(removedId, Outcome.GONE));
              }
            });
    return outcomes;
  }

  /** Rows a run has archived so far. */
  long archivedRows(long runId) {
    return database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COUNT(*) FROM "
                            + ArchiveTables.q(tables.spec().removedTable())
                            + " WHERE dedup_run_id = ?")
                    .bind(0, runId)
                    .mapTo(Long.class)
                    .one());
  }

  /** The rows of a run in the archive, by the rule that removed them, in the rules' order. */
  Map<String, Long> archivedByRule(long runId) {
    Map<String, Long> byRule = new TreeMap<>();
    database
        .jdbi()
        .useHandle(
            h ->
                h.createQuery(
                        "SELECT dedup_rule, COUNT(*) FROM "
                            + ArchiveTables.q(tables.spec().removedTable())
                            + " WHERE dedup_run_id = ? GROUP BY dedup_rule")
                    .bind(0, runId)
                    .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getLong(2)))
                    .forEach(e -> byRule.put(e.getKey(), e.getValue())));
    return byRule;
  }
}
