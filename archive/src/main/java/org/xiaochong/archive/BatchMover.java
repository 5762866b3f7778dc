package org.xiaochong.archive;

import static org.xiaochong.archive.BatchSql.bindBatch;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.Map;
import java.util.TreeMap;
import org.xiaochong.archive.PlanMover.Moved;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.SqlError;
import org.xiaochong.source.SqlTime;

/**
 * Moves one batch of a run's plan rows into the archive, in one transaction on the caller's
 * connection: copied into {@code <table>_removed} and deleted from the source, or left in place and
 * marked skipped when what the rows hold now no longer makes them duplicates.
 *
 * <p>Nothing is lost and nothing is removed wrongly: the copied and deleted counts must agree or
 * the batch is rolled back; a row moves only while its kept row is still in the table, and only on
 * what it and its kept row hold now, under row locks. A batch only moves rows still in the source,
 * so replaying it after an interruption is harmless.
 *
 * <p>Plain JDBC rather than Jdbi statements: Jdbi lexes each statement's text for named parameters,
 * and on these long statements run dozens of times that lexer became hot enough for the JIT to
 * compile it in the middle of the apply (~0.3 s of a core, bench/RESULTS.md).
 */
final class BatchMover {
  private BatchMover() {}

  /**
   * Archives and deletes plan rows [lo, to) in one transaction ({@link #moveOnce}). A batch that
   * waited for a row lock in vain (the session's short {@code innodb_lock_wait_timeout}, {@link
   * ApplySettings}) or was chosen as a deadlock victim, or that re-pointed a child row onto one a
   * site added meanwhile (a duplicate key, {@link BatchReferences}), is rolled back and tried again
   * after a backoff with jitter, up to {@link ApplySettings#attempts} tries; then the failure
   * stands and the run stays {@code applying}, to be finished by the next one.
   *
   * @param resuming the batch may have been moved by an earlier, interrupted apply of the run
   */
  static Moved move(
      Connection connection,
      long runId,
      int lo,
      int to,
      BatchSql sql,
      DecisionCheck check,
      LocalDateTime removedAt,
      boolean resuming,
      ApplySettings settings) {
    for (int attempt = 1; ; attempt++) {
      try {
        return moveOnce(connection, runId, lo, to, sql, check, removedAt, resuming);
      } catch (RuntimeException e) {
        boolean lockConflict = SqlError.isLockConflict(e);
        // A child row added beside a merge may collide with a re-pointed one: the retry sees it and
        // leaves that row in place.
        boolean collided = sql.references() != null && SqlError.DUPLICATE_KEY.matches(e);
        if (attempt >= settings.attempts() || !lockConflict && !collided) {
          throw e;
        }
      }
      try {
        Thread.sleep(ApplySettings.backoffMillis(attempt));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while applying run " + runId, e);
      }
    }
  }

  /**
   * One batch, in one transaction: the plan rows whose removed and kept rows are unchanged since
   * the pass decided move in two statements; the others are locked, read and decided again ({@link
   * DecisionCheck}), and moved or marked skipped. The copied and deleted counts must agree, or the
   * batch is rolled back.
   *
   * <p>Unchanged means that both rows still have the time and checksum the index held when the pass
   * decided ({@link DeletionPlan.RowState}): the decision was then made on what they hold now and
   * stands. The server compares them, so no row travels for it. The copy reads with shared locks
   * ({@code INSERT … SELECT … LOCK IN SHARE MODE}; READ COMMITTED releases them on the rows that do
   * not qualify), so the rows it copies and their kept rows cannot change before the delete, which
   * removes exactly the rows copied (joined with their copies). (A row edited into other text with
   * the same CRC32, one chance in 2^32 per edit, would pass for unchanged; the sync's change check
   * rests on the same odds.)
   *
   * <p>The other rows (edited, re-dated, or planned without a known state: a removal re-pointed to
   * a near survivor, a plan of an older version) are locked ({@code FOR UPDATE} the removed rows,
   * {@code LOCK IN SHARE MODE} the kept rows), read in full and decided again.
   *
   * <p>Resuming, a plan row whose removed row is archived by this run already and is in the table
   * again (the site re-inserted its id after the interrupted apply moved it) is left in place and
   * marked skipped: that row is a new post, which the plan never decided on, and its id is taken in
   * the archive.
   */
  private static Moved moveOnce(
      Connection connection,
      long runId,
      int lo,
      int to,
      BatchSql sql,
      DecisionCheck check,
      LocalDateTime removedAt,
      boolean resuming) {
    try {
      connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      connection.setAutoCommit(false);
      try {
        // First the re-inserted rows, marked skipped: the reference checks and re-pointing below
        // then pass them by (they select unskipped plan rows only).
        Moved reinserted = resuming ? skipReinserted(connection, runId, lo, to, sql) : Moved.NONE;
        Map<String, Long> referenced =
            sql.references() == null
                ? Map.of()
                : BatchReferences.leaveReferenced(connection, runId, lo, to, sql.references());
        long staying = Moved.total(referenced) + reinserted.skippedChanged();
        int moved;
        try (PreparedStatement archive = connection.prepareStatement(sql.archiveUnchanged());
            PreparedStatement remove = connection.prepareStatement(sql.deleteUnchanged())) {
          SqlTime.bind(archive, 1, removedAt);
          bindBatch(archive, 2, runId, lo, to);
          int archived = archive.executeUpdate();
          BatchReferences.repoint(connection, runId, lo, to, sql);
          bindBatch(remove, 1, runId, lo, to);
          int deleted = remove.executeUpdate();
          if (archived != deleted) {
            throw countsDisagree(
                runId,
                lo,
                to,
                "archived " + archived + " unchanged rows but would delete " + deleted);
          }
          moved = deleted;
        }
        Moved result = new Moved(moved, Map.of(), 0, referenced).plus(reinserted);
        if (moved + staying < to - lo) { // some rows changed, were moved before, or left the table
          result =
              result.plus(ChangedRowsMover.move(connection, runId, lo, to, sql, check, removedAt));
        }
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      } finally {
        // Ends the transaction, as Jdbi expects of a handle it closes.
        connection.setAutoCommit(true);
      }
    } catch (SQLException e) {
      if (SqlError.ROW_REFERENCED.matches(e)) {
        // A foreign key the check before the apply did not see: added since, or on a child table
        // that dedup's login may not read (information_schema shows only what it may).
        throw new BadInputException(
            "run "
                + runId
                + " stopped: a foreign key that --apply could not see refused"
                + " a delete ("
                + Database.rootMessage(e)
                + "); the batch was rolled back. Let dedup's login read the"
                + " child table (SELECT) so that --apply names the key and apply.referenced applies to it; the run"
                + " is finished by the next run --apply",
            e);
      }
      throw new IllegalStateException(
          "run "
              + runId
              + ": batch "
              + lo
              + "-"
              + to
              + " failed, rolled back: "
              + Database.rootMessage(e),
          e);
    }
  }

  /**
   * The failure of a batch whose counts disagree ({@code what}), thrown inside its transaction so
   * that it is rolled back.
   */
  static IllegalStateException countsDisagree(long runId, int lo, int to, String what) {
    return new IllegalStateException(
        "run "
            + runId
            + ": batch "
            + lo
            + "-"
            + to
            + " "
            + what
            + "; rolled back, nothing of this batch changed");
  }

  /**
   * Marks skipped the batch's plan rows whose removed row this run archived already and that are in
   * the table again; returns them as skipped, by rule.
   */
  private static Moved skipReinserted(
      Connection connection, long runId, int lo, int to, BatchSql sql) throws SQLException {
    Map<String, Long> skipped = new TreeMap<>();
    try (PreparedStatement select = connection.prepareStatement(sql.reinserted());
        PreparedStatement mark = connection.prepareStatement(sql.markSkipped())) {
      bindBatch(select, 1, runId, lo, to);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          mark.setLong(1, runId);
          mark.setInt(2, rs.getInt(1));
          mark.addBatch();
          skipped.merge(DeletionPlan.Rule.of(rs.getString(2)).label, 1L, Long::sum);
        }
      }
      if (!skipped.isEmpty()) {
        mark.executeBatch();
      }
    }
    return skipped.isEmpty() ? Moved.NONE : new Moved(0, skipped, 0, Map.of());
  }
}
