package org.xiaochong.archive;

import static org.xiaochong.archive.BatchSql.bindBatch;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.xiaochong.archive.BatchSql.ReferenceSql;
import org.xiaochong.archive.BatchSql.Repoint;

/**
 * What one batch of an apply does about the rows of child tables ({@link ReferencedRows}), in the
 * batch's transaction on the caller's connection: leaves in place the planned rows that must stay
 * because of their child rows, and re-points the child rows of the rows it archives to their kept
 * rows, each change recorded for restore.
 */
final class BatchReferences {
  private BatchReferences() {}

  /**
   * Locks the batch's removed rows ({@code FOR UPDATE}: a child row added now waits for the commit
   * and then finds its parent gone, instead of being deleted or orphaned unseen), then marks the
   * planned rows that must stay because of their child rows ({@link ReferencedRows#mustStay});
   * returns them per rule.
   */
  static Map<String, Long> leaveReferenced(
      Connection connection, long runId, int lo, int to, ReferenceSql sql) throws SQLException {
    try (PreparedStatement lock = connection.prepareStatement(sql.lockRemoved())) {
      bindBatch(lock, 1, runId, lo, to);
      lock.executeQuery().close();
    }
    Map<String, Long> staying = new TreeMap<>();
    Map<Integer, String> seqs = new LinkedHashMap<>(); // seq -> rule of the rows that must stay
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
  static void repoint(Connection connection, long runId, int lo, int to, BatchSql sql)
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
          throw BatchMover.countsDisagree(
              runId,
              lo,
              to,
              "recorded "
                  + recorded
                  + " child rows of "
                  + key.names().get(1)
                  + " to re-point but would update "
                  + updated);
        }
      }
    }
  }
}
