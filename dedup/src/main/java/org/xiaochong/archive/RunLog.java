package org.xiaochong.archive;

import static org.xiaochong.archive.ArchiveTables.now;

import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * <p>The removals of a run are counted per fingerprint method in {@code dedup_run_removed} (one row
 * per method of the run), so that a new method needs no new column. Times are UTC. Thread-safe (state
 * lives in the database).
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
    // Plan rows (and counts, and re-pointed child rows) can only carry a new run's id if dedup_run was
    // emptied or re-created (its ids start again); they belong to a run that no longer exists and must
    // not mix with this one's.
    plans.drop(runId);
    database.jdbi().useHandle(handle -> {
      handle.execute("DELETE FROM dedup_run_removed WHERE run_id = ?", runId);
      handle.execute("DELETE FROM dedup_repoint WHERE run_id = ?", runId);
    });
    return runId;
  }

  /**
   * Creates the bookkeeping tables when missing ({@code sql/dedup.sql}) and moves a run log made
   * before per-method counts to them ({@link RunLogMigration}). Needs CREATE and ALTER rights.
   */
  public static void ensureTables(Database database) {
    database.runScript("/sql/dedup.sql");
    RunLogMigration.migrate(database);
  }

  /**
   * Records how a run ended, with its removals per method (in the map's order); the message is cut to
   * the column's 1000 characters.
   */
  public void finishRun(long runId, String status, long recordsRead, Map<String, Long> removedByMethod,
      String message) {
    database.jdbi().useTransaction(handle -> {
      handle.createUpdate("UPDATE dedup_run SET status = ?, records_read = ?, finished_at = ?, message = ? WHERE id = ?")
          .bind(0, status).bind(1, recordsRead).bind(2, now())
          .bind(3, message == null ? null : message.substring(0, Math.min(1000, message.length()))).bind(4, runId)
          .execute();
      var batch = handle.prepareBatch("INSERT INTO dedup_run_removed (run_id, method, removed) VALUES (?, ?, ?)"
          + " ON DUPLICATE KEY UPDATE removed = VALUES(removed)");
      removedByMethod.forEach((method, removed) -> batch.bind(0, runId).bind(1, method).bind(2, removed).add());
      if (!removedByMethod.isEmpty()) {
        batch.execute();
      }
    });
  }

  /**
   * Runs of this table, newest first, for {@code dedup stats}. Reads a run log not yet migrated
   * ({@link RunLogMigration}) too: stats needs no ALTER right.
   */
  public List<RunRow> runs(int limit) {
    return database.jdbi().withHandle(h -> {
      List<RunRow> rows = h.createQuery(
              "SELECT id, method, applied, status, records_read, started_at, finished_at"
                  + " FROM dedup_run WHERE source_table = ? ORDER BY id DESC LIMIT ?")
          .bind(0, table).bind(1, limit)
          .map((rs, ctx) -> new RunRow(rs.getLong(1), rs.getString(2), rs.getBoolean(3), rs.getString(4), rs.getLong(5),
              new LinkedHashMap<>(), rs.getObject(6, LocalDateTime.class), rs.getObject(7, LocalDateTime.class)))
          .list();
      for (RunRow row : rows) {
        row.removedByMethod().putAll(RunLogMigration.removedByMethod(h, row.id()));
      }
      return rows;
    });
  }

  /** One row of {@code dedup_run}, with its removals per method. */
  public record RunRow(long id, String method, boolean applied, String status, long recordsRead,
      Map<String, Long> removedByMethod, LocalDateTime startedAt, LocalDateTime finishedAt) {}

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
