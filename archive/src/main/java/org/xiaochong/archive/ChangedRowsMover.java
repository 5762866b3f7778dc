package org.xiaochong.archive;

import static org.xiaochong.archive.BatchSql.bindBatch;
import static org.xiaochong.archive.BatchSql.in;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.xiaochong.archive.PlanMover.Moved;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.SqlTime;

/**
 * The plan rows of one batch that are not moved as unchanged ({@link BatchMover}): edited,
 * re-dated, or planned without a known state. In the batch's transaction on the caller's
 * connection, they are locked ({@code FOR UPDATE} the removed rows, {@code LOCK IN SHARE MODE} the
 * kept rows), read in full, decided again on what they hold now ({@link DecisionCheck}), and moved
 * or marked skipped.
 */
final class ChangedRowsMover {
  /** Ids per query when a batch reads changed rows in full. */
  private static final int READ_IDS = 1000;

  private ChangedRowsMover() {}

  /**
   * The batch's plan rows left after the unchanged ones moved whose removed and kept rows are both
   * still in the table: locks them, decides again on what they hold now, moves those that still
   * qualify and marks the others skipped.
   */
  static Moved move(
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
        BatchReferences.repoint(connection, runId, lo, to, sql);
        int deleted = remove.executeUpdate();
        if (archived != seqs.size() || deleted != seqs.size()) {
          throw BatchMover.countsDisagree(
              runId,
              lo,
              to,
              "had "
                  + seqs.size()
                  + " changed rows to move but archived "
                  + archived
                  + " and would delete "
                  + deleted);
        }
        moved += deleted;
      }
    }
    return new Moved(moved, skipped, pending.size(), Map.of());
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
}
