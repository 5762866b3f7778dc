package org.xiaochong.archive;

import static org.xiaochong.archive.ArchiveTables.q;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.xiaochong.archive.PlanMover.Moved;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.SqlTime;
import org.xiaochong.source.TableSpec;

/**
 * Moves one batch of a run's plan rows into the archive, in one transaction on the caller's
 * connection: copied into {@code <table>_removed} and deleted from the source, or left in place and
 * marked skipped when what the rows hold now no longer makes them duplicates.
 *
 * <p>Nothing is lost and nothing is removed wrongly: the copied and deleted counts must agree or the
 * batch is rolled back; a row moves only while its kept row is still in the table, and only on what
 * it and its kept row hold now, under row locks. A batch only moves rows still in the source, so
 * replaying it after an interruption is harmless.
 *
 * <p>Plain JDBC rather than Jdbi statements: Jdbi lexes each statement's text for named parameters,
 * and on these long statements run dozens of times that lexer became hot enough for the JIT to
 * compile it in the middle of the apply (~0.3 s of a core, bench/RESULTS.md).
 */
final class BatchMover {
  /** Ids per query when a batch reads changed rows in full. */
  private static final int READ_IDS = 1000;

  private BatchMover() {}

  /**
   * The statements of one batch; {@code ?} are bound by {@link #moveOnce}. The {@code ...Seqs}
   * and {@code readRows} statements are completed by a list of placeholders and ")" ({@link #in}).
   */
  record BatchSql(String archiveUnchanged, String deleteUnchanged, String pending, String readRows,
      String archiveSeqs, String deleteSeqs, String markSkipped, String reinserted, int fingerprintColumns) {}

  /** The batch statements for an archive whose columns were checked. */
  static BatchSql batchSql(ArchiveTables tables) {
    List<String> sourceColumns = tables.sourceColumns();
    TableSpec spec = tables.spec();
    String columns = sourceColumns.stream().map(c -> "t." + q(c)).collect(Collectors.joining(", "));
    String plainColumns = sourceColumns.stream().map(ArchiveTables::q).collect(Collectors.joining(", "));
    String id = q(spec.idColumn());
    String table = q(spec.table());
    RecordSource source = new RecordSource(tables.database(), spec);
    String rows = " FROM dedup_plan p JOIN " + table + " t ON t." + id + " = p.removed_id"
        + " JOIN " + table + " k ON k." + id + " = p.kept_id";
    String batch = " WHERE p.run_id = ? AND p.seq >= ? AND p.seq < ? AND p.skipped = 0";
    // Both rows as the index held them when the pass decided: then the decision still stands.
    String unchanged = " AND " + source.rowChecksumSql("t") + " = p.removed_crc AND " + source.timeAtMillisSql("t")
        + " <=> p.removed_time AND " + source.rowChecksumSql("k") + " = p.kept_crc AND " + source.timeAtMillisSql("k")
        + " <=> p.kept_time";
    String archive = "INSERT INTO " + q(spec.removedTable()) + " (" + plainColumns
        + ", dedup_run_id, dedup_rule, dedup_kept_id, dedup_score, dedup_removed_at) SELECT " + columns
        + ", p.run_id, p.rule, p.kept_id, p.score, ?" + rows;
    String bySeqs = " WHERE p.run_id = ? AND p.seq IN (";
    return new BatchSql(
        archive + batch + unchanged + " LOCK IN SHARE MODE",
        "DELETE t FROM dedup_plan p JOIN " + table + " t ON t." + id + " = p.removed_id JOIN " + q(spec.removedTable())
            + " a ON a.dedup_run_id = p.run_id AND a." + id + " = p.removed_id" + batch,
        "SELECT p.seq, p.rule, p.removed_id, p.kept_id" + rows + batch,
        "SELECT " + DecisionCheck.columns(spec, "t") + " FROM " + table + " t WHERE t." + id + " IN (",
        archive + bySeqs,
        "DELETE t FROM dedup_plan p JOIN " + table + " t ON t." + id + " = p.removed_id" + bySeqs,
        "UPDATE dedup_plan SET skipped = 1 WHERE run_id = ? AND seq = ?",
        "SELECT p.seq, p.rule FROM dedup_plan p JOIN " + table + " t ON t." + id + " = p.removed_id JOIN "
            + q(spec.removedTable()) + " a ON a.dedup_run_id = p.run_id AND a." + id + " = p.removed_id" + batch,
        spec.fingerprintColumns().size());
  }

  /**
   * Archives and deletes plan rows [lo, to) in one transaction ({@link #moveOnce}). A batch that
   * waited for a row lock in vain (the session's short {@code innodb_lock_wait_timeout}, {@link
   * ApplySettings}) or was chosen as a deadlock victim is rolled back and tried again after a backoff
   * with jitter, up to {@link ApplySettings#attempts} tries; then the failure stands and the run stays
   * {@code applying}, to be finished by the next one.
   *
   * @param resuming the batch may have been moved by an earlier, interrupted apply of the run
   */
  static Moved move(Connection connection, long runId, int lo, int to, BatchSql sql, DecisionCheck check,
      LocalDateTime removedAt, boolean resuming, ApplySettings settings) {
    for (int attempt = 1; ; attempt++) {
      try {
        return moveOnce(connection, runId, lo, to, sql, check, removedAt, resuming);
      } catch (RuntimeException e) {
        boolean lockConflict = Database.isDeadlock(e) || Database.isLockWaitTimeout(e);
        if (attempt >= settings.attempts() || !lockConflict) {
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
   * One batch, in one transaction: the plan rows whose removed and kept rows are unchanged since the
   * pass decided move in two statements; the others are locked, read and decided again ({@link
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
   * <p>The other rows (edited, re-dated, or planned without a known state: a removal re-pointed to a
   * near survivor, a plan of an older version) are locked ({@code FOR UPDATE} the removed rows,
   * {@code LOCK IN SHARE MODE} the kept rows), read in full and decided again.
   *
   * <p>Resuming, a plan row whose removed row is archived by this run already and is in the table
   * again (the site re-inserted its id after the interrupted apply moved it) is left in place and
   * marked skipped: that row is a new post, which the plan never decided on, and its id is taken in
   * the archive.
   */
  private static Moved moveOnce(Connection connection, long runId, int lo, int to, BatchSql sql,
      DecisionCheck check, LocalDateTime removedAt, boolean resuming) {
    try {
      connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      connection.setAutoCommit(false);
      try {
        Moved reinserted = resuming ? skipReinserted(connection, runId, lo, to, sql) : Moved.NONE;
        int moved;
        try (PreparedStatement archive = connection.prepareStatement(sql.archiveUnchanged());
            PreparedStatement remove = connection.prepareStatement(sql.deleteUnchanged())) {
          SqlTime.bind(archive, 1, removedAt);
          bindBatch(archive, 2, runId, lo, to);
          int archived = archive.executeUpdate();
          bindBatch(remove, 1, runId, lo, to);
          int deleted = remove.executeUpdate();
          if (archived != deleted) {
            throw new IllegalStateException("run " + runId + ": batch " + lo + "-" + to + " archived " + archived
                + " unchanged rows but would delete " + deleted + "; rolled back, nothing of this batch changed");
          }
          moved = deleted;
        }
        Moved result = new Moved(moved, Map.of(), 0).plus(reinserted);
        if (moved < to - lo) { // some rows changed, were moved before, or left the table
          result = result.plus(moveChanged(connection, runId, lo, to, sql, check, removedAt));
        }
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      } finally {
        connection.setAutoCommit(true); // ends the transaction, as Jdbi expects of a handle it closes
      }
    } catch (SQLException e) {
      throw new IllegalStateException("run " + runId + ": batch " + lo + "-" + to + " failed, rolled back: "
          + Database.rootMessage(e), e);
    }
  }

  /**
   * Marks skipped the batch's plan rows whose removed row this run archived already and that are in
   * the table again; returns them as skipped, by rule.
   */
  private static Moved skipReinserted(Connection connection, long runId, int lo, int to, BatchSql sql)
      throws SQLException {
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
    return skipped.isEmpty() ? Moved.NONE : new Moved(0, skipped, 0);
  }

  /**
   * The batch's plan rows left after the unchanged ones moved whose removed and kept rows are both
   * still in the table: locks them, decides again on what they hold now, moves those that still
   * qualify and marks the others skipped.
   */
  private static Moved moveChanged(Connection connection, long runId, int lo, int to, BatchSql sql,
      DecisionCheck check, LocalDateTime removedAt) throws SQLException {
    List<PlannedRow> pending = new ArrayList<>();
    try (PreparedStatement select = connection.prepareStatement(sql.pending())) {
      bindBatch(select, 1, runId, lo, to);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          pending.add(new PlannedRow(rs.getInt(1), DeletionPlan.Rule.of(rs.getString(2)), rs.getLong(3), rs.getLong(4)));
        }
      }
    }
    if (pending.isEmpty()) {
      return Moved.NONE;
    }
    Map<Long, SourceRecord> removedRows = readRows(connection, sql, pending.stream().mapToLong(PlannedRow::removedId),
        " FOR UPDATE");
    Map<Long, SourceRecord> keptRows = readRows(connection, sql, pending.stream().mapToLong(PlannedRow::keptId),
        " LOCK IN SHARE MODE");
    List<Integer> qualified = new ArrayList<>();
    Map<String, Long> skipped = new TreeMap<>();
    Map<Long, byte[]> keptKeys = new HashMap<>();
    try (PreparedStatement mark = connection.prepareStatement(sql.markSkipped())) {
      for (PlannedRow row : pending) {
        SourceRecord removed = removedRows.get(row.removedId());
        SourceRecord kept = keptRows.get(row.keptId());
        if (removed == null || kept == null) {
          continue; // deleted by someone else since the select above: nothing to move
        }
        byte[] keptKey = keptKeys.computeIfAbsent(row.keptId(), id -> check.exactKey(kept));
        if (check.stillHolds(removed, kept, keptKey)) {
          qualified.add(row.seq());
        } else {
          mark.setLong(1, runId);
          mark.setInt(2, row.seq());
          mark.addBatch();
          skipped.merge(row.rule().label, 1L, Long::sum);
        }
      }
      if (!skipped.isEmpty()) {
        mark.executeBatch();
      }
    }
    int moved = 0;
    for (int from = 0; from < qualified.size(); from += READ_IDS) {
      List<Integer> seqs = qualified.subList(from, Math.min(qualified.size(), from + READ_IDS));
      try (PreparedStatement archive = connection.prepareStatement(sql.archiveSeqs() + in(seqs.size()));
          PreparedStatement remove = connection.prepareStatement(sql.deleteSeqs() + in(seqs.size()))) {
        SqlTime.bind(archive, 1, removedAt);
        archive.setLong(2, runId);
        remove.setLong(1, runId);
        for (int i = 0; i < seqs.size(); i++) {
          archive.setInt(3 + i, seqs.get(i));
          remove.setInt(2 + i, seqs.get(i));
        }
        int archived = archive.executeUpdate();
        int deleted = remove.executeUpdate();
        if (archived != seqs.size() || deleted != seqs.size()) {
          throw new IllegalStateException("run " + runId + ": batch " + lo + "-" + to + " had " + seqs.size()
              + " changed rows to move but archived " + archived + " and would delete " + deleted
              + "; rolled back, nothing of this batch changed");
        }
        moved += deleted;
      }
    }
    return new Moved(moved, skipped, pending.size());
  }

  /** {@code n} placeholders and the closing parenthesis. */
  private static String in(int n) {
    return String.join(", ", Collections.nCopies(n, "?")) + ")";
  }

  /**
   * Reads the rows with these ids as they are now, locking them with {@code lock}, by id; {@link
   * #READ_IDS} ids per query.
   */
  private static Map<Long, SourceRecord> readRows(Connection connection, BatchSql sql, LongStream ids,
      String lock) throws SQLException {
    long[] distinct = ids.distinct().sorted().toArray(); // in key order: two batches lock shared rows alike
    Map<Long, SourceRecord> rows = new HashMap<>();
    for (int from = 0; from < distinct.length; from += READ_IDS) {
      int n = Math.min(READ_IDS, distinct.length - from);
      try (PreparedStatement read = connection.prepareStatement(sql.readRows() + in(n) + lock)) {
        for (int i = 0; i < n; i++) {
          read.setLong(i + 1, distinct[from + i]);
        }
        try (ResultSet rs = read.executeQuery()) {
          boolean utf8 = RecordSource.columnsAreUtf8(rs, 3, sql.fingerprintColumns());
          while (rs.next()) {
            SourceRecord row = DecisionCheck.read(rs, 1, sql.fingerprintColumns(), utf8);
            rows.put(row.id(), row);
          }
        }
      }
    }
    return rows;
  }

  /** A plan row whose rows are decided again. */
  private record PlannedRow(int seq, DeletionPlan.Rule rule, long removedId, long keptId) {}

  private static void bindBatch(PreparedStatement statement, int first, long runId, int lo, int to) throws SQLException {
    statement.setLong(first, runId);
    statement.setInt(first + 1, lo);
    statement.setInt(first + 2, to);
  }
}
