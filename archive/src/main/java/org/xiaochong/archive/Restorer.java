package org.xiaochong.archive;

import static org.xiaochong.archive.ArchiveTables.q;

import java.util.Optional;
import java.util.stream.Collectors;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.SqlError;
import org.xiaochong.source.TableSpec;

/**
 * Puts the rows a run archived back into the source table, with their ids and values, a transaction
 * per batch of ids: each batch is inserted into the source and deleted from the archive, and the
 * two counts must agree or it is rolled back, so a row is never in both tables nor in neither.
 *
 * <p>Each row put back is marked apart from the row it had been removed for ({@link
 * ApartTable#markRestored}), in the same transaction, so no later run removes it for that row
 * again: a person who restores a run has decided its rows are not duplicates of their kept rows.
 *
 * <p>A run being restored must never be finished again by a later {@code run --apply} (it would
 * re-delete what was put back), so the run is marked {@code restoring} and its plan dropped, in one
 * transaction, before the first row moves. An interrupted restore is finished by running it again:
 * the batches already put back are no longer in the archive.
 *
 * <p>Thread-safe (state lives in the database); two restores of one table are kept apart by the
 * caller's table lock.
 */
public final class Restorer {
  private final ArchiveTables tables;
  private final Database database;
  private final RunLog runLog;
  private ApplySettings settings = ApplySettings.DEFAULTS;
  private Runnable lockCheck = () -> {};

  public Restorer(ArchiveTables tables) {
    this.tables = tables;
    this.database = tables.database();
    this.runLog = new RunLog(database, tables.spec().table());
  }

  /**
   * Batch size, lock wait and retries of {@code settings} instead of {@link
   * ApplySettings#DEFAULTS}.
   */
  public Restorer withSettings(ApplySettings settings) {
    this.settings = settings;
    return this;
  }

  /**
   * Runs {@code lockCheck} before each batch: it throws when the command's table lock is lost,
   * which stops the restore there (running it again finishes it).
   */
  public Restorer withLockCheck(Runnable lockCheck) {
    this.lockCheck = lockCheck;
    return this;
  }

  /**
   * What a restore put back.
   *
   * @param childRows child rows of other tables pointed back to their restored rows (undoing a
   *     merge)
   * @param childRowsLeft re-pointed child rows left as they are: changed or deleted since the merge
   */
  public record Restored(long rows, long childRows, long childRowsLeft) {
    Restored plus(Restored other) {
      return new Restored(
          rows + other.rows, childRows + other.childRows, childRowsLeft + other.childRowsLeft);
    }
  }

  /** Restores the rows of a run and marks it {@code restored}; returns the rows restored. */
  public long restore(long runId) {
    return restoreRun(runId).rows();
  }

  /**
   * Restores the rows of a run, and the child rows its merge re-pointed ({@link ReferencedRows}),
   * and marks it {@code restored}.
   *
   * @throws RowsMovedException when an error stops it after some batches were restored
   */
  public Restored restoreRun(long runId) {
    TableSpec spec = tables.spec();
    Optional<String> status = runLog.status(runId);
    if (status.isEmpty()) {
      throw new BadInputException(
          "run " + runId + " is not a run on table " + spec.table() + " (see `dedup stats`)");
    }
    database
        .jdbi()
        .useTransaction(
            h -> {
              RunLog.markRestoring(h, runId);
              PlanTable.drop(h, runId);
            });
    String plainColumns =
        tables.writableColumns().stream().map(ArchiveTables::q).collect(Collectors.joining(", "));
    String id = q(spec.idColumn());
    String removed = q(spec.removedTable());
    Restored restored = new Restored(0, 0, 0);
    long after = Long.MIN_VALUE;
    int batch = settings.rowsPerBatch(AverageRowBytes.of(database, spec.table()));
    try {
      while (true) {
        lockCheck.run();
        long lo = after;
        Optional<Long> hi =
            database
                .jdbi()
                .withHandle(
                    h ->
                        h.createQuery(
                                "SELECT MAX("
                                    + id
                                    + ") FROM (SELECT "
                                    + id
                                    + " FROM "
                                    + removed
                                    + " WHERE dedup_run_id = ? AND "
                                    + id
                                    + " > ? ORDER BY "
                                    + id
                                    + " LIMIT "
                                    + batch
                                    + ") b")
                            .bind(0, runId)
                            .bind(1, lo)
                            .mapTo(Long.class)
                            .findOne());
        if (hi.isEmpty() || hi.get() == null) {
          break;
        }
        long upTo = hi.get();
        restored = restored.plus(restoreBatch(runId, plainColumns, lo, upTo));
        after = upTo;
        if (settings.pauseMillis() > 0) {
          sleep(settings.pauseMillis());
        }
      }
    } catch (RuntimeException e) {
      if (restored.rows() == 0) {
        throw e;
      }
      throw new RowsMovedException(
          String.format(
              "restore of run %d put back %,d rows (run it again to finish)",
              runId, restored.rows()),
          restored.rows(),
          e);
    }
    runLog.markRestored(runId, restored.rows());
    return restored;
  }

  /**
   * Puts back the rows of the run with ids in (lo, upTo] and their re-pointed child rows, in one
   * transaction that first marks them apart from their kept rows; a batch that waited for a row
   * lock in vain or was a deadlock victim is tried again after a backoff, as an apply's is.
   */
  private Restored restoreBatch(long runId, String plainColumns, long lo, long upTo) {
    TableSpec spec = tables.spec();
    String id = q(spec.idColumn());
    String removed = q(spec.removedTable());
    // The batch's archived rows: bound to the run, lo and upTo, in this order.
    String batchRows = " WHERE dedup_run_id = ? AND " + id + " > ? AND " + id + " <= ?";
    for (int attempt = 1; ; attempt++) {
      try {
        return database
            .jdbi()
            .inTransaction(
                handle -> {
                  handle.execute(
                      "SET SESSION innodb_lock_wait_timeout = " + settings.lockWaitSeconds());
                  ApartTable.markRestored(handle, spec, runId, lo, upTo);
                  int inserted;
                  try {
                    inserted =
                        handle
                            .createUpdate(
                                "INSERT INTO "
                                    + q(spec.table())
                                    + " ("
                                    + plainColumns
                                    + ") SELECT "
                                    + plainColumns
                                    + " FROM "
                                    + removed
                                    + batchRows)
                            .bind(0, runId)
                            .bind(1, lo)
                            .bind(2, upTo)
                            .execute();
                  } catch (RuntimeException e) {
                    if (SqlError.DUPLICATE_KEY.matches(e)) {
                      throw new BadInputException(
                          "cannot restore run "
                              + runId
                              + ": a row with the same "
                              + spec.idColumn()
                              + " is in "
                              + spec.table()
                              + " again ("
                              + Database.rootMessage(e)
                              + "); nothing of this batch was restored",
                          e);
                    }
                    throw e;
                  }
                  int deleted =
                      handle
                          .createUpdate("DELETE FROM " + removed + batchRows)
                          .bind(0, runId)
                          .bind(1, lo)
                          .bind(2, upTo)
                          .execute();
                  if (inserted != deleted) {
                    handle.rollback();
                    throw new IllegalStateException(
                        "restore of run "
                            + runId
                            + " put back "
                            + inserted
                            + " rows but the archive held "
                            + deleted
                            + "; rolled back");
                  }
                  long[] children = Repoints.putBack(handle, runId, lo, upTo);
                  return new Restored(inserted, children[0], children[1]);
                });
      } catch (RuntimeException e) {
        boolean lockConflict = SqlError.isLockConflict(e);
        if (attempt >= settings.attempts() || !lockConflict) {
          throw e;
        }
      }
      sleep(ApplySettings.backoffMillis(attempt));
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while restoring", e);
    }
  }
}
