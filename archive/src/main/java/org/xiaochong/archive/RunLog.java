package org.xiaochong.archive;

import static org.xiaochong.archive.ArchiveTables.now;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;
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
 * per method of the run), so that a new method needs no new column. Times are UTC. Thread-safe
 * (state lives in the database).
 */
public final class RunLog {
  private final Database database;
  private final String table;
  private final PlanTable plans;

  /**
   * @param table the source table whose runs are meant
   */
  public RunLog(Database database, String table) {
    this.database = database;
    this.table = table;
    this.plans = new PlanTable(database);
  }

  /** Inserts a {@code dedup_run} row and returns its id. */
  public long startRun(
      String method, boolean apply, String configDigest, LocalDateTime since, LocalDateTime until) {
    if (apply) {
      skipArchivedRunIds();
    }
    long runId =
        dao()
            .insertRun(
                table,
                method,
                apply,
                apply ? "applying" : "planned",
                configDigest,
                since,
                until,
                now());
    // Plan rows (and counts, and re-pointed child rows) can only carry a new run's id if dedup_run
    // was
    // emptied or re-created (its ids start again); they belong to a run that no longer exists and
    // must
    // not mix with this one's.
    plans.drop(runId);
    database
        .jdbi()
        .useHandle(
            handle -> {
              RunDao runs = handle.attach(RunDao.class);
              runs.forgetRemoved(runId);
              runs.forgetRepoints(runId);
            });
    return runId;
  }

  /**
   * Keeps a new applied run's id clear of the archive's: when {@code dedup_run} was emptied or
   * re-created, its ids start again, and a new run would share its id with archived rows of an old
   * one (its restore would put back both). So the next id is raised above every run id the archive
   * holds (found on its primary key's first column; a raise never lowers the counter).
   */
  private void skipArchivedRunIds() {
    database
        .jdbi()
        .useHandle(
            h -> {
              RunDao runs = h.attach(RunDao.class);
              String archive = table + "_removed";
              if (!runs.tableExists(archive)) {
                return;
              }
              Long archived =
                  h.createQuery("SELECT MAX(dedup_run_id) FROM " + ArchiveTables.q(archive))
                      .mapTo(Long.class)
                      .findOne()
                      .orElse(null);
              Long logged =
                  h.createQuery("SELECT MAX(id) FROM dedup_run")
                      .mapTo(Long.class)
                      .findOne()
                      .orElse(null);
              if (archived != null && (logged == null || logged < archived)) {
                h.execute("ALTER TABLE dedup_run AUTO_INCREMENT = " + (archived + 1));
              }
            });
  }

  /**
   * Creates the bookkeeping tables when missing ({@code sql/dedup.sql}) and moves a run log made
   * before per-method counts to them ({@link RunLogMigration}) and marks made as pairs by a restore
   * to groups ({@link ApartMigration}). Needs CREATE and ALTER rights.
   */
  public static void ensureTables(Database database) {
    database.runScript("/sql/dedup.sql");
    RunLogMigration.migrate(database);
    ApartMigration.migrate(database);
  }

  /**
   * Records how a run ended, with its removals per method (in the map's order); the message is cut
   * to the column's 1000 characters.
   */
  public void finishRun(
      long runId,
      String status,
      long recordsRead,
      Map<String, Long> removedByMethod,
      String message) {
    database
        .jdbi()
        .useTransaction(
            handle -> {
              RunDao runs = handle.attach(RunDao.class);
              runs.finishRun(
                  runId,
                  status,
                  recordsRead,
                  now(),
                  message == null ? null : message.substring(0, Math.min(1000, message.length())));
              if (!removedByMethod.isEmpty()) {
                runs.putRemoved(
                    runId,
                    List.copyOf(removedByMethod.keySet()),
                    List.copyOf(removedByMethod.values()));
              }
            });
  }

  /**
   * Runs of this table, newest first, for {@code dedup stats}. Reads a run log not yet migrated
   * ({@link RunLogMigration}) too: stats needs no ALTER right.
   */
  public List<RunRow> runs(int limit) {
    return database
        .jdbi()
        .withHandle(
            h -> {
              List<RunRow> rows = h.attach(RunDao.class).latestRuns(table, limit);
              for (RunRow row : rows) {
                row.removedByMethod().putAll(RunLogMigration.removedByMethod(h, row.id()));
              }
              return rows;
            });
  }

  /** One row of {@code dedup_run}, with its removals per method. */
  public record RunRow(
      long id,
      String method,
      boolean applied,
      String status,
      long recordsRead,
      Map<String, Long> removedByMethod,
      LocalDateTime startedAt,
      LocalDateTime finishedAt) {}

  /** Reads a {@link RunRow} from {@link RunDao#latestRuns}, its removals still to be filled in. */
  public static final class RunRowMapper implements RowMapper<RunRow> {
    @Override
    public RunRow map(ResultSet rs, StatementContext ctx) throws SQLException {
      return new RunRow(
          rs.getLong("id"),
          rs.getString("method"),
          rs.getBoolean("applied"),
          rs.getString("status"),
          rs.getLong("records_read"),
          new LinkedHashMap<>(),
          rs.getObject("started_at", LocalDateTime.class),
          rs.getObject("finished_at", LocalDateTime.class));
    }
  }

  /** Ids of this table's runs left {@code applying} by an interruption, oldest first. */
  List<Long> interrupted() {
    return dao().runsWithStatus(table, "applying");
  }

  /**
   * Marks an interrupted run applied once its remaining batches have moved, with what it moved in
   * all by rule (the interrupted apply recorded no count), as {@code stats} shows a run.
   */
  void markResumed(long runId, Map<String, Long> removedByRule, String message) {
    database
        .jdbi()
        .useTransaction(
            handle -> {
              RunDao runs = handle.attach(RunDao.class);
              runs.markResumed(runId, now(), message);
              if (!removedByRule.isEmpty()) {
                // What the run moved in all, before and after the interruption, by rule: the
                // interrupted apply had recorded no count.
                runs.putRemoved(
                    runId,
                    List.copyOf(removedByRule.keySet()),
                    List.copyOf(removedByRule.values()));
              }
            });
  }

  /** The status of a run of this table; empty when no run of this table has that id. */
  Optional<String> status(long runId) {
    return dao().status(runId, table);
  }

  /** Marks a run {@code restoring}, in the caller's transaction. */
  static void markRestoring(Handle handle, long runId) {
    handle
        .attach(RunDao.class)
        .setRestoreStatus(
            runId,
            "restoring",
            "restore started at " + now() + " (run the restore again if it was interrupted)");
  }

  /** Marks a run {@code restored}, with the rows put back. */
  void markRestored(long runId, long rows) {
    dao().setRestoreStatus(runId, "restored", rows + " rows restored at " + now());
  }

  /** The run log's statements, each on a connection of its own. */
  private RunDao dao() {
    return database.jdbi().onDemand(RunDao.class);
  }
}
