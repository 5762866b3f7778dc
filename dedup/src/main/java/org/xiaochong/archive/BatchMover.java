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
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.SqlError;
import org.xiaochong.source.SqlTime;
import org.xiaochong.source.TableSpec;

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
  /** Ids per query when a batch reads changed rows in full. */
  private static final int READ_IDS = 1000;

  private BatchMover() {}

  /**
   * The statements of one batch; {@code ?} are bound by {@link #moveOnce}. The {@code ...Seqs} and
   * {@code readRows} statements are completed by a list of placeholders and ")" ({@link #in}).
   */
  record BatchSql(
      String archiveUnchanged,
      String deleteUnchanged,
      String pending,
      String readRows,
      String archiveSeqs,
      String deleteSeqs,
      String markSkipped,
      String reinserted,
      int fingerprintColumns,
      ReferenceSql references) {}

  /**
   * The statements for rows that child tables reference ({@link ReferencedRows}), bound like the
   * batch statements: lock the batch's removed rows, find those that must stay ({@code mustStay},
   * null when none must) and mark them, and re-point the child rows of each foreign key. {@code
   * siblings}: per unique key of a child table that holds the re-pointed column, the batch's child
   * rows by seq with their kept id and the key's other columns, for {@link #leaveSiblings}.
   */
  record ReferenceSql(
      String lockRemoved,
      String mustStay,
      String markReferenced,
      List<Repoint> repoints,
      List<String> siblings) {}

  /**
   * One foreign key's re-pointing of the child rows of the batch's archived rows: lock them, record
   * them in {@code dedup_repoint} (the first four {@code ?} bind {@code names}), point them to the
   * kept row.
   */
  record Repoint(String lockChildren, String record, String update, List<String> names) {}

  /**
   * The batch statements for an archive whose columns were checked, without foreign keys to handle.
   */
  static BatchSql batchSql(ArchiveTables tables) {
    return batchSql(tables, ReferencedRows.NONE);
  }

  /** The batch statements for an archive whose columns were checked. */
  static BatchSql batchSql(ArchiveTables tables, ReferencedRows referenced) {
    List<String> sourceColumns = tables.sourceColumns();
    TableSpec spec = tables.spec();
    String columns = sourceColumns.stream().map(c -> "t." + q(c)).collect(Collectors.joining(", "));
    String plainColumns =
        sourceColumns.stream().map(ArchiveTables::q).collect(Collectors.joining(", "));
    String id = q(spec.idColumn());
    String table = q(spec.table());
    RecordSource source = new RecordSource(tables.database(), spec);
    String rows =
        " FROM dedup_plan p JOIN "
            + table
            + " t ON t."
            + id
            + " = p.removed_id"
            + " JOIN "
            + table
            + " k ON k."
            + id
            + " = p.kept_id";
    String batch = " WHERE p.run_id = ? AND p.seq >= ? AND p.seq < ? AND p.skipped = 0";
    // Both rows as the index held them when the pass decided: then the decision still stands.
    String unchanged =
        " AND "
            + source.rowChecksumSql("t")
            + " = p.removed_crc AND "
            + source.timeAtMillisSql("t")
            + " <=> p.removed_time AND "
            + source.rowChecksumSql("k")
            + " = p.kept_crc AND "
            + source.timeAtMillisSql("k")
            + " <=> p.kept_time";
    String archive =
        "INSERT INTO "
            + q(spec.removedTable())
            + " ("
            + plainColumns
            + ", dedup_run_id, dedup_rule, dedup_kept_id, dedup_score, dedup_removed_at) SELECT "
            + columns
            + ", p.run_id, p.rule, p.kept_id, p.score, ?"
            + rows;
    String bySeqs = " WHERE p.run_id = ? AND p.seq IN (";
    // The batch's planned rows still in the table and already in the archive (this run's copy).
    String archivedInBatch =
        " FROM dedup_plan p JOIN "
            + table
            + " t ON t."
            + id
            + " = p.removed_id JOIN "
            + q(spec.removedTable())
            + " a ON a.dedup_run_id = p.run_id AND a."
            + id
            + " = p.removed_id"
            + batch;
    return new BatchSql(
        archive + batch + unchanged + " LOCK IN SHARE MODE",
        "DELETE t" + archivedInBatch,
        "SELECT p.seq, p.rule, p.removed_id, p.kept_id" + rows + batch,
        "SELECT "
            + DecisionCheck.columns(spec, "t")
            + " FROM "
            + table
            + " t WHERE t."
            + id
            + " IN (",
        archive + bySeqs,
        "DELETE t FROM dedup_plan p JOIN " + table + " t ON t." + id + " = p.removed_id" + bySeqs,
        "UPDATE dedup_plan SET skipped = 1 WHERE run_id = ? AND seq = ?",
        "SELECT p.seq, p.rule" + archivedInBatch,
        spec.fingerprintColumns().size(),
        referenceSql(spec, referenced, batch));
  }

  private static ReferenceSql referenceSql(
      TableSpec spec, ReferencedRows referenced, String batch) {
    if (!referenced.active()) {
      return null;
    }
    String id = q(spec.idColumn());
    String removedRows =
        " FROM dedup_plan p JOIN " + q(spec.table()) + " t ON t." + id + " = p.removed_id";
    String removed = removedRows + batch;
    String mustStay = referenced.mustStay();
    List<Repoint> repoints = new ArrayList<>();
    List<String> siblings = new ArrayList<>();
    if (referenced.merges()) {
      for (ReferencedRows.ForeignKey key : referenced.foreignKeys()) {
        String column = q(key.childColumns().get(0));
        for (List<String> unique : key.uniqueKeys()) {
          String others =
              unique.stream()
                  .filter(c -> !c.equalsIgnoreCase(key.childColumns().get(0)))
                  .map(c -> ", c." + q(c))
                  .collect(Collectors.joining());
          siblings.add(
              "SELECT p.seq, p.rule, p.kept_id"
                  + others
                  + removedRows
                  + " JOIN "
                  + key.qualifiedChild()
                  + " c ON c."
                  + column
                  + " = t."
                  + id
                  + batch
                  + " ORDER BY p.seq");
        }
        String children =
            " dedup_plan p JOIN "
                + q(spec.removedTable())
                + " a ON a.dedup_run_id = p.run_id AND a."
                + id
                + " = p.removed_id JOIN "
                + key.qualifiedChild()
                + " c ON c."
                + column
                + " = p.removed_id";
        String childKey =
            key.childKey().stream().map(k -> "c." + q(k)).collect(Collectors.joining(", "));
        repoints.add(
            new Repoint(
                "SELECT c." + column + " FROM" + children + batch + " FOR UPDATE",
                "INSERT INTO dedup_repoint (run_id, child_schema, child_table, child_column, child_key_columns, child_key,"
                    + " old_id, new_id) SELECT p.run_id, ?, ?, ?, ?, JSON_ARRAY("
                    + childKey
                    + "), p.removed_id, p.kept_id"
                    + " FROM"
                    + children
                    + batch,
                "UPDATE" + children + " SET c." + column + " = p.kept_id" + batch,
                List.of(
                    key.childSchema(),
                    key.childTable(),
                    key.childColumns().get(0),
                    String.join(",", key.childKey()))));
      }
    }
    return new ReferenceSql(
        "SELECT t." + id + removed + " FOR UPDATE",
        mustStay == null ? null : "SELECT p.seq, p.rule" + removed + " AND " + mustStay,
        "UPDATE dedup_plan SET skipped = "
            + ReferencedRows.REFERENCED
            + " WHERE run_id = ? AND seq = ?",
        repoints,
        siblings);
  }

  /**
   * Archives and deletes plan rows [lo, to) in one transaction ({@link #moveOnce}). A batch that
   * waited for a row lock in vain (the session's short {@code innodb_lock_wait_timeout}, {@link
   * ApplySettings}) or was chosen as a deadlock victim, or that re-pointed a child row onto one a
   * site added meanwhile (a duplicate key, {@link #leaveSiblings}), is rolled back and tried again
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
        // then
        // pass them by (they select unskipped plan rows only).
        Moved reinserted = resuming ? skipReinserted(connection, runId, lo, to, sql) : Moved.NONE;
        Map<String, Long> referenced =
            sql.references() == null
                ? Map.of()
                : leaveReferenced(connection, runId, lo, to, sql.references());
        long staying = Moved.total(referenced) + reinserted.skippedChanged();
        int moved;
        try (PreparedStatement archive = connection.prepareStatement(sql.archiveUnchanged());
            PreparedStatement remove = connection.prepareStatement(sql.deleteUnchanged())) {
          SqlTime.bind(archive, 1, removedAt);
          bindBatch(archive, 2, runId, lo, to);
          int archived = archive.executeUpdate();
          repoint(connection, runId, lo, to, sql);
          bindBatch(remove, 1, runId, lo, to);
          int deleted = remove.executeUpdate();
          if (archived != deleted) {
            throw new IllegalStateException(
                "run "
                    + runId
                    + ": batch "
                    + lo
                    + "-"
                    + to
                    + " archived "
                    + archived
                    + " unchanged rows but would delete "
                    + deleted
                    + "; rolled back, nothing of this batch changed");
          }
          moved = deleted;
        }
        Moved result = new Moved(moved, Map.of(), 0, referenced).plus(reinserted);
        if (moved + staying < to - lo) { // some rows changed, were moved before, or left the table
          result = result.plus(moveChanged(connection, runId, lo, to, sql, check, removedAt));
        }
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      } finally {
        connection.setAutoCommit(
            true); // ends the transaction, as Jdbi expects of a handle it closes
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

  /**
   * The batch's plan rows left after the unchanged ones moved whose removed and kept rows are both
   * still in the table: locks them, decides again on what they hold now, moves those that still
   * qualify and marks the others skipped.
   */
  private static Moved moveChanged(
      Connection connection,
      long runId,
      int lo,
      int to,
      BatchSql sql,
      DecisionCheck check,
      LocalDateTime removedAt)
      throws SQLException {
    List<PlannedRow> pending = new ArrayList<>();
    try (PreparedStatement select = connection.prepareStatement(sql.pending())) {
      bindBatch(select, 1, runId, lo, to);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          pending.add(
              new PlannedRow(
                  rs.getInt(1),
                  DeletionPlan.Rule.of(rs.getString(2)),
                  rs.getLong(3),
                  rs.getLong(4)));
        }
      }
    }
    if (pending.isEmpty()) {
      return Moved.NONE;
    }
    Map<Long, SourceRecord> removedRows =
        readRows(connection, sql, pending.stream().mapToLong(PlannedRow::removedId), " FOR UPDATE");
    Map<Long, SourceRecord> keptRows =
        readRows(
            connection, sql, pending.stream().mapToLong(PlannedRow::keptId), " LOCK IN SHARE MODE");
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
      try (PreparedStatement archive =
              connection.prepareStatement(sql.archiveSeqs() + in(seqs.size()));
          PreparedStatement remove =
              connection.prepareStatement(sql.deleteSeqs() + in(seqs.size()))) {
        SqlTime.bind(archive, 1, removedAt);
        archive.setLong(2, runId);
        remove.setLong(1, runId);
        for (int i = 0; i < seqs.size(); i++) {
          archive.setInt(3 + i, seqs.get(i));
          remove.setInt(2 + i, seqs.get(i));
        }
        int archived = archive.executeUpdate();
        repoint(connection, runId, lo, to, sql);
        int deleted = remove.executeUpdate();
        if (archived != seqs.size() || deleted != seqs.size()) {
          throw new IllegalStateException(
              "run "
                  + runId
                  + ": batch "
                  + lo
                  + "-"
                  + to
                  + " had "
                  + seqs.size()
                  + " changed rows to move but archived "
                  + archived
                  + " and would delete "
                  + deleted
                  + "; rolled back, nothing of this batch changed");
        }
        moved += deleted;
      }
    }
    return new Moved(moved, skipped, pending.size(), Map.of());
  }

  /**
   * Locks the batch's removed rows ({@code FOR UPDATE}: a child row added now waits for the commit
   * and then finds its parent gone, instead of being deleted or orphaned unseen), then marks the
   * planned rows that must stay because of their child rows ({@link ReferencedRows#mustStay});
   * returns them per rule.
   */
  private static Map<String, Long> leaveReferenced(
      Connection connection, long runId, int lo, int to, ReferenceSql sql) throws SQLException {
    try (PreparedStatement lock = connection.prepareStatement(sql.lockRemoved())) {
      bindBatch(lock, 1, runId, lo, to);
      lock.executeQuery().close();
    }
    Map<String, Long> staying = new TreeMap<>();
    Map<Integer, String> seqs =
        new java.util.LinkedHashMap<>(); // seq -> rule of the rows that must stay
    if (sql.mustStay() != null) {
      try (PreparedStatement select = connection.prepareStatement(sql.mustStay())) {
        bindBatch(select, 1, runId, lo, to);
        try (ResultSet rs = select.executeQuery()) {
          while (rs.next()) {
            seqs.put(rs.getInt(1), rs.getString(2));
          }
        }
      }
    }
    leaveSiblings(connection, runId, lo, to, sql, seqs);
    if (!seqs.isEmpty()) {
      try (PreparedStatement mark = connection.prepareStatement(sql.markReferenced())) {
        for (Map.Entry<Integer, String> row : seqs.entrySet()) {
          mark.setLong(1, runId);
          mark.setInt(2, row.getKey());
          mark.addBatch();
          staying.merge(row.getValue(), 1L, Long::sum);
        }
        mark.executeBatch();
      }
    }
    return staying;
  }

  /**
   * Adds to {@code staying} the batch's rows whose child rows would collide, once re-pointed, with
   * the child rows of another row of the batch removed in favour of the same kept row (two posts
   * tagged alike, both merged into a third): the first of them by seq is re-pointed, the others
   * stay. Rows of other batches were re-pointed already, or are being so by the other worker:
   * {@link ReferencedRows#mustStay} sees the first, and the second ends in a duplicate key that the
   * batch's retry resolves. NULLs never collide in a unique key.
   */
  private static void leaveSiblings(
      Connection connection,
      long runId,
      int lo,
      int to,
      ReferenceSql sql,
      Map<Integer, String> staying)
      throws SQLException {
    for (String siblings : sql.siblings()) {
      Map<List<String>, Integer> first = new HashMap<>();
      try (PreparedStatement select = connection.prepareStatement(siblings)) {
        bindBatch(select, 1, runId, lo, to);
        try (ResultSet rs = select.executeQuery()) {
          int columns = rs.getMetaData().getColumnCount();
          while (rs.next()) {
            int seq = rs.getInt(1);
            List<String> key = new ArrayList<>();
            key.add(rs.getString(3));
            for (int c = 4; c <= columns; c++) {
              key.add(rs.getString(c));
            }
            if (staying.containsKey(seq) || key.contains(null)) {
              continue;
            }
            Integer owner = first.putIfAbsent(key, seq);
            if (owner != null && owner != seq) {
              staying.put(seq, rs.getString(2));
            }
          }
        }
      }
    }
  }

  /**
   * Re-points the child rows of the batch's rows archived in this transaction (and not yet deleted)
   * to their kept rows, each change recorded in {@code dedup_repoint} for restore; nothing without
   * a merge. The recorded and updated counts must agree (the child rows are locked first), or the
   * batch is rolled back.
   */
  private static void repoint(Connection connection, long runId, int lo, int to, BatchSql sql)
      throws SQLException {
    if (sql.references() == null) {
      return;
    }
    for (Repoint key : sql.references().repoints()) {
      try (PreparedStatement lock = connection.prepareStatement(key.lockChildren());
          PreparedStatement record = connection.prepareStatement(key.record());
          PreparedStatement update = connection.prepareStatement(key.update())) {
        bindBatch(lock, 1, runId, lo, to);
        lock.executeQuery().close();
        for (int i = 0; i < key.names().size(); i++) {
          record.setString(i + 1, key.names().get(i));
        }
        bindBatch(record, key.names().size() + 1, runId, lo, to);
        int recorded = record.executeUpdate();
        bindBatch(update, 1, runId, lo, to);
        int updated = update.executeUpdate();
        if (recorded != updated) {
          throw new IllegalStateException(
              "run "
                  + runId
                  + ": batch "
                  + lo
                  + "-"
                  + to
                  + " recorded "
                  + recorded
                  + " child rows of "
                  + key.names().get(1)
                  + " to re-point but would update "
                  + updated
                  + "; rolled back, nothing of this batch changed");
        }
      }
    }
  }

  /** {@code n} placeholders and the closing parenthesis. */
  private static String in(int n) {
    return String.join(", ", Collections.nCopies(n, "?")) + ")";
  }

  /**
   * Reads the rows with these ids as they are now, locking them with {@code lock}, by id; {@link
   * #READ_IDS} ids per query.
   */
  private static Map<Long, SourceRecord> readRows(
      Connection connection, BatchSql sql, LongStream ids, String lock) throws SQLException {
    long[] distinct =
        ids.distinct().sorted().toArray(); // in key order: two batches lock shared rows alike
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

  private static void bindBatch(PreparedStatement statement, int first, long runId, int lo, int to)
      throws SQLException {
    statement.setLong(first, runId);
    statement.setInt(first + 1, lo);
    statement.setInt(first + 2, to);
  }
}
