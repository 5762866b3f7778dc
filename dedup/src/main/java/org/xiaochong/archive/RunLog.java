package org.xiaochong.archive;

import static org.xiaochong.archive.ArchiveTables.now;

import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.xiaochong.source.Database;

/**
 * The run log of one source table: its rows of {@code dedup_run}, one per applied run, and the
 * status each goes through ({@code applying} → {@code applied}, then {@code restoring} → {@code
 * restored}). The status is what tells a later command what is left to do: a run still {@code
 * applying} was interrupted and is finished by the next applied run ({@link
 * PlanMover#resumeInterrupted}); a run {@code restoring} never is, so an interrupted restore is not
 * undone.
 *
 * <p>Times are UTC. Thread-safe (state lives in the database).
 */
public final class RunLog {
  private final Database database;
  private final String table;
  private final PlanTable plans;

  /** @param table the source table whose runs are meant */
  public RunLog(Database database, String table) {
    this.database = database;
    this.table = table;
    this.plans = new PlanTable(database);
  }

  /** Inserts a {@code dedup_run} row and returns its id. */
  public long startRun(String method, boolean apply, String configDigest, LocalDateTime since, LocalDateTime until) {
    long runId = database.jdbi().withHandle(handle -> handle.createUpdate(
            "INSERT INTO dedup_run (source_table, method, applied, status, config_digest, window_since, window_until, started_at)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(0, table).bind(1, method).bind(2, apply).bind(3, apply ? "applying" : "planned")
        .bind(4, configDigest).bind(5, since).bind(6, until).bind(7, now())
        .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one());
    // Plan rows can only carry a new run's id if dedup_run was emptied or re-created (its ids start
    // again); they belong to a run that no longer exists and must not mix with this one's plan.
    plans.drop(runId);
    return runId;
  }

  /** Records how a run ended; the message is cut to the column's 1000 characters. */
  public void finishRun(long runId, String status, long recordsRead, long exactRemoved, long nearRemoved, String message) {
    database.jdbi().useHandle(handle -> handle.createUpdate(
            "UPDATE dedup_run SET status = ?, records_read = ?, exact_removed = ?, near_removed = ?, finished_at = ?, message = ? WHERE id = ?")
        .bind(0, status).bind(1, recordsRead).bind(2, exactRemoved).bind(3, nearRemoved).bind(4, now())
        .bind(5, message == null ? null : message.substring(0, Math.min(1000, message.length()))).bind(6, runId)
        .execute());
  }

  /** Runs of this table, newest first, for {@code dedup stats}. */
  public List<RunRow> runs(int limit) {
    return database.jdbi().withHandle(h -> h.createQuery(
            "SELECT id, method, applied, status, records_read, exact_removed, near_removed, started_at, finished_at"
                + " FROM dedup_run WHERE source_table = ? ORDER BY id DESC LIMIT " + limit)
        .bind(0, table)
        .map((rs, ctx) -> new RunRow(rs.getLong(1), rs.getString(2), rs.getBoolean(3), rs.getString(4), rs.getLong(5),
            rs.getLong(6), rs.getLong(7), rs.getObject(8, LocalDateTime.class), rs.getObject(9, LocalDateTime.class)))
        .list());
  }

  /** One row of {@code dedup_run}. */
  public record RunRow(long id, String method, boolean applied, String status, long recordsRead, long exactRemoved,
      long nearRemoved, LocalDateTime startedAt, LocalDateTime finishedAt) {}

  /** Ids of this table's runs left {@code applying} by an interruption, oldest first. */
  List<Long> interrupted() {
    return database.jdbi().withHandle(h -> h.createQuery(
        "SELECT id FROM dedup_run WHERE source_table = ? AND status = 'applying' ORDER BY id")
        .bind(0, table).mapTo(Long.class).list());
  }

  /** Marks an interrupted run applied once its remaining batches have moved. */
  void markResumed(long runId, String message) {
    database.jdbi().useHandle(h -> h.createUpdate(
        "UPDATE dedup_run SET status = 'applied', finished_at = ?, message = ? WHERE id = ?")
        .bind(0, now()).bind(1, message).bind(2, runId).execute());
  }

  /** The status of a run of this table; empty when no run of this table has that id. */
  Optional<String> status(long runId) {
    return database.jdbi().withHandle(h -> h.createQuery(
        "SELECT status FROM dedup_run WHERE id = ? AND source_table = ?").bind(0, runId).bind(1, table)
        .mapTo(String.class).findOne());
  }

  /** Marks a run {@code restoring}, in the caller's transaction. */
  static void markRestoring(Handle handle, long runId) {
    handle.createUpdate("UPDATE dedup_run SET status = 'restoring', message = ? WHERE id = ?")
        .bind(0, "restore started at " + now() + " (run the restore again if it was interrupted)").bind(1, runId)
        .execute();
  }

  /** Marks a run {@code restored}, with the rows put back. */
  void markRestored(long runId, long rows) {
    database.jdbi().useHandle(h -> h.createUpdate("UPDATE dedup_run SET status = 'restored', message = ? WHERE id = ?")
        .bind(0, rows + " rows restored at " + now()).bind(1, runId).execute());
  }
}
