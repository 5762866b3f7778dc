package org.xiaochong.archive;

import static org.xiaochong.archive.ArchiveTables.q;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.TableSpec;

/**
 * The statements of one batch of an apply ({@link BatchMover}), built once per apply from the
 * checked archive columns; {@code ?} are bound by the movers ({@link #bindBatch} for the run and
 * the batch's seq range). The {@code ...Seqs} and {@code readRows} statements are completed by a
 * list of placeholders and ")" ({@link #in}). Plain JDBC statements, for the reason {@link
 * BatchMover} gives.
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
    ReferenceSql references) {

  /**
   * The statements for rows that child tables reference ({@link ReferencedRows}), bound like the
   * batch statements: lock the batch's removed rows, find those that must stay ({@code mustStay},
   * null when none must) and mark them, and re-point the child rows of each foreign key. {@code
   * siblings}: per unique key of a child table that holds the re-pointed column, the batch's child
   * rows by seq with their kept id and the key's other columns, for {@link BatchReferences}.
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

  /** The batch statements for an archive whose columns were checked. */
  static BatchSql of(ArchiveTables tables, ReferencedRows referenced) {
    List<String> sourceColumns = tables.sourceColumns();
    TableSpec spec = tables.spec();
    String columns = sourceColumns.stream().map(c -> "t." + q(c)).collect(Collectors.joining(", "));
    String plainColumns =
        sourceColumns.stream().map(ArchiveTables::q).collect(Collectors.joining(", "));
    String id = q(spec.idColumn());
    String table = q(spec.table());
    RecordSource source = new RecordSource(tables.database(), spec);
    // Every join reads the plan rows first and finds each row by its id through the id's index,
    // whatever the optimizer's statistics say: just after a table is loaded or altered they can
    // claim it holds one row, and the optimizer then scans the table for every plan row (a batch
    // of 1,317 rows took over 15 minutes in a test, a few milliseconds with the index).
    String byId = " FORCE INDEX FOR JOIN (" + q(source.idIndex()) + ")";
    String rows =
        " FROM dedup_plan p STRAIGHT_JOIN "
            + table
            + " t"
            + byId
            + " ON t."
            + id
            + " = p.removed_id"
            + " STRAIGHT_JOIN "
            + table
            + " k"
            + byId
            + " ON k."
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
        " FROM dedup_plan p STRAIGHT_JOIN "
            + table
            + " t"
            + byId
            + " ON t."
            + id
            + " = p.removed_id STRAIGHT_JOIN "
            + q(spec.removedTable())
            + " a FORCE INDEX FOR JOIN (PRIMARY) ON a.dedup_run_id = p.run_id AND a."
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
        "DELETE t FROM dedup_plan p STRAIGHT_JOIN "
            + table
            + " t"
            + byId
            + " ON t."
            + id
            + " = p.removed_id"
            + bySeqs,
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
        // Each key value as the hex of its bytes ({"hex": …}): a binary key (a hash) is no text
        // for the JSON column, and the bytes find the row again whatever the column's type.
        String childKey =
            key.childKey().stream()
                .map(k -> "JSON_OBJECT('hex', HEX(CAST(c." + q(k) + " AS BINARY)))")
                .collect(Collectors.joining(", "));
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

  /** {@code n} placeholders and the closing parenthesis. */
  static String in(int n) {
    return String.join(", ", Collections.nCopies(n, "?")) + ")";
  }

  /** Binds the run and the batch's seq range [lo, to) from parameter {@code first} on. */
  static void bindBatch(PreparedStatement statement, int first, long runId, int lo, int to)
      throws SQLException {
    statement.setLong(first, runId);
    statement.setInt(first + 1, lo);
    statement.setInt(first + 2, to);
  }
}
