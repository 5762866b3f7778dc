package org.xiaochong.archive;

import static org.xiaochong.archive.ArchiveTables.q;

import java.sql.SQLException;
import java.util.Optional;
import java.util.stream.Collectors;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;

/**
 * Puts the rows a run archived back into the source table, with their ids and values, a transaction
 * per batch of ids: each batch is inserted into the source and deleted from the archive, and the two
 * counts must agree or it is rolled back, so a row is never in both tables nor in neither.
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

  /** Batch size, lock wait and retries of {@code settings} instead of {@link ApplySettings#DEFAULTS}. */
  public Restorer withSettings(ApplySettings settings) {
    this.settings = settings;
    return this;
  }

  /**
   * Runs {@code lockCheck} before each batch: it throws when the command's table lock is lost, which
   * stops the restore there (running it again finishes it).
   */
  public Restorer withLockCheck(Runnable lockCheck) {
    this.lockCheck = lockCheck;
    return this;
  }

  /** Restores the rows of a run and marks it {@code restored}; returns the rows restored. */
  public long restore(long runId) {
    TableSpec spec = tables.spec();
    Optional<String> status = runLog.status(runId);
    if (status.isEmpty()) {
      throw new BadInputException("run " + runId + " is not a run on table " + spec.table() + " (see `dedup stats`)");
    }
    database.jdbi().useTransaction(h -> {
      RunLog.markRestoring(h, runId);
      PlanTable.drop(h, runId);
    });
    String plainColumns = tables.writableColumns().stream().map(ArchiveTables::q).collect(Collectors.joining(", "));
    String id = q(spec.idColumn());
    String removed = q(spec.removedTable());
    long restored = 0;
    long after = Long.MIN_VALUE;
    int batch = settings.rowsPerBatch(PlanMover.averageRowBytes(database, spec.table()));
    while (true) {
      lockCheck.run();
      long lo = after;
      Optional<Long> hi = database.jdbi().withHandle(h -> h.createQuery(
          "SELECT MAX(" + id + ") FROM (SELECT " + id + " FROM " + removed + " WHERE dedup_run_id = ? AND " + id
              + " > ? ORDER BY " + id + " LIMIT " + batch + ") b").bind(0, runId).bind(1, lo)
          .mapTo(Long.class).findOne());
      if (hi.isEmpty() || hi.get() == null) {
        break;
      }
      long upTo = hi.get();
      restored += restoreBatch(runId, plainColumns, lo, upTo);
      after = upTo;
      if (settings.pauseMillis() > 0) {
        sleep(settings.pauseMillis());
      }
    }
    runLog.markRestored(runId, restored);
    return restored;
  }

  /**
   * Puts back the rows of the run with ids in (lo, upTo], in one transaction; a batch that waited for
   * a row lock in vain or was a deadlock victim is tried again after a backoff, as an apply's is.
   */
  private long restoreBatch(long runId, String plainColumns, long lo, long upTo) {
    TableSpec spec = tables.spec();
    String id = q(spec.idColumn());
    String removed = q(spec.removedTable());
    for (int attempt = 1; ; attempt++) {
      try {
        return database.jdbi().inTransaction(handle -> {
          handle.execute("SET SESSION innodb_lock_wait_timeout = " + settings.lockWaitSeconds());
          int inserted;
          try {
            inserted = handle.createUpdate("INSERT INTO " + q(spec.table()) + " (" + plainColumns + ") SELECT "
                + plainColumns + " FROM " + removed + " WHERE dedup_run_id = ? AND " + id + " > ? AND " + id + " <= ?")
                .bind(0, runId).bind(1, lo).bind(2, upTo).execute();
          } catch (RuntimeException e) {
            if (isDuplicateKey(e)) {
              throw new BadInputException("cannot restore run " + runId + ": a row with the same "
                  + spec.idColumn() + " is in " + spec.table() + " again (" + Database.rootMessage(e)
                  + "); nothing of this batch was restored", e);
            }
            throw e;
          }
          int deleted = handle.createUpdate("DELETE FROM " + removed + " WHERE dedup_run_id = ? AND " + id + " > ? AND " + id + " <= ?")
              .bind(0, runId).bind(1, lo).bind(2, upTo).execute();
          if (inserted != deleted) {
            handle.rollback();
            throw new IllegalStateException("restore of run " + runId + " put back " + inserted + " rows but the archive held "
                + deleted + "; rolled back");
          }
          return (long) inserted;
        });
      } catch (RuntimeException e) {
        boolean lockConflict = Database.isDeadlock(e) || Database.isLockWaitTimeout(e);
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

  /**
   * True when the server refused a row because its key is taken: SQLState 23000 with ER_DUP_ENTRY
   * (1062) or ER_DUP_ENTRY_WITH_KEY_NAME (1586), "Duplicate entry … for key …" on MySQL and MariaDB.
   * By code, not message text, which the server translates ({@code lc_messages}); 23000 alone also
   * covers NOT NULL and foreign key failures, which are not a row put back twice.
   */
  static boolean isDuplicateKey(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && "23000".equals(sql.getSQLState())
          && (sql.getErrorCode() == 1062 || sql.getErrorCode() == 1586)) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }
}
