package org.xiaochong.archive;

import static org.xiaochong.archive.ArchiveTables.q;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * The child rows a run's merge re-pointed to kept rows, as {@code dedup_repoint} records them
 * ({@link ReferencedRows}), and how a restore points them back to their restored rows ({@link
 * Restorer}).
 */
final class Repoints {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Repoints() {}

  /**
   * Points the child rows that the run's merge re-pointed away from the rows with ids in (lo, upTo]
   * back to them, in the caller's transaction (the rows are back in the table). A child is found by
   * its recorded key with the re-pointed column at the row it points to now: the kept row, or, when
   * a later run's merge moved it on (the kept row was itself removed), the row that merge's record
   * names, followed run after run. Found, it points back to its restored row, and its record and
   * the later records it followed are forgotten (the later runs' restores then leave it alone: it
   * is where it began). Not found (the site deleted it or moved it by hand), its record is kept. So
   * restores of two runs give the children back in either order. Returns {put back, left as they
   * are}.
   */
  static long[] putBack(Handle handle, long runId, long lo, long upTo) {
    long[] counts = new long[2];
    RunDao runs = handle.attach(RunDao.class);
    List<Long> done = new ArrayList<>();
    for (Repointed row : runs.repointed(runId, lo, upTo)) {
      JsonNode key = readKey(row.key(), row.keyColumns().size());
      List<Long> followed = new ArrayList<>();
      long at = row.newId();
      boolean back = false;
      for (int step = 0; step < MAX_FOLLOWED && !back; step++) {
        back = pointBack(handle, row, key, at);
        if (!back) {
          long from = at;
          Repointed later =
              runs
                  .repointedLater(row.runId(), row.schema(), row.table(), row.column(), from)
                  .stream()
                  .filter(r -> sameChild(row, key, r))
                  .findFirst()
                  .orElse(null);
          if (later == null) {
            break;
          }
          followed.add(later.id());
          at = later.newId();
        }
      }
      if (back) {
        done.add(row.id());
        done.addAll(followed);
        counts[0]++;
      } else {
        counts[1]++;
      }
    }
    if (!done.isEmpty()) {
      runs.forgetRepointsById(done);
    }
    return counts;
  }

  /** Re-pointings followed at most, run after run, to find one child. */
  private static final int MAX_FOLLOWED = 64;

  /**
   * Points the child of {@code row} (its key, the re-pointed column at {@code at}) back to the
   * restored row; whether it was found.
   */
  private static boolean pointBack(Handle handle, Repointed row, JsonNode key, long at) {
    // Names from dedup_repoint, which took them from the server's metadata: q() validates them
    // again.
    String column = q(row.column());
    StringBuilder sql =
        new StringBuilder(
            "UPDATE "
                + q(row.schema())
                + "."
                + q(row.table())
                + " SET "
                + column
                + " = ? WHERE "
                + column
                + " = ?");
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < row.keyColumns().size(); i++) {
      String keyColumn = row.keyColumns().get(i);
      if (keyColumn.equalsIgnoreCase(row.column())) {
        continue; // the re-pointed column is part of the key: it holds `at` now, not its old value
      }
      JsonNode value = key.get(i);
      if (value.isObject()) { // {"hex": the bytes of the value}, or null for SQL NULL
        JsonNode hex = value.get("hex");
        if (hex == null || hex.isNull()) {
          sql.append(" AND ").append(q(keyColumn)).append(" IS NULL");
        } else {
          sql.append(" AND HEX(CAST(").append(q(keyColumn)).append(" AS BINARY)) = ?");
          values.add(hex.asText());
        }
      } else { // the value itself, as records made before the hex form hold it
        sql.append(" AND ").append(q(keyColumn)).append(" = ?");
        values.add(value.isIntegralNumber() ? value.decimalValue() : value.asText());
      }
    }
    var update = handle.createUpdate(sql.toString()).bind(0, row.oldId()).bind(1, at);
    for (int i = 0; i < values.size(); i++) {
      update.bind(2 + i, values.get(i));
    }
    return update.execute() == 1;
  }

  /**
   * Whether a later record names the same child as {@code row}: the same key, but for the
   * re-pointed column, which then held the row the later merge moved it away from.
   */
  private static boolean sameChild(Repointed row, JsonNode key, Repointed later) {
    if (!later.keyColumns().equals(row.keyColumns())) {
      return false;
    }
    JsonNode laterKey = readKey(later.key(), later.keyColumns().size());
    for (int i = 0; i < row.keyColumns().size(); i++) {
      if (!row.keyColumns().get(i).equalsIgnoreCase(row.column())
          && !key.get(i).equals(laterKey.get(i))) {
        return false;
      }
    }
    return true;
  }

  /**
   * A row of {@code dedup_repoint}: a child row a merge re-pointed from {@code oldId} to {@code
   * newId}.
   */
  record Repointed(
      long id,
      long runId,
      String schema,
      String table,
      String column,
      List<String> keyColumns,
      String key,
      long oldId,
      long newId) {}

  /** Reads a {@link Repointed} from {@link RunDao#repointed}. */
  public static final class Mapper implements RowMapper<Repointed> {
    @Override
    public Repointed map(ResultSet rs, StatementContext ctx) throws SQLException {
      return new Repointed(
          rs.getLong("id"),
          rs.getLong("run_id"),
          rs.getString("child_schema"),
          rs.getString("child_table"),
          rs.getString("child_column"),
          List.of(rs.getString("child_key_columns").split(",")),
          rs.getString("child_key"),
          rs.getLong("old_id"),
          rs.getLong("new_id"));
    }
  }

  private static JsonNode readKey(String json, int columns) {
    try {
      JsonNode key = JSON.readTree(json);
      if (!key.isArray() || key.size() != columns) {
        throw new IllegalStateException(
            "dedup_repoint holds a child key " + json + " for " + columns + " key columns");
      }
      return key;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "dedup_repoint holds a child key that is not JSON: " + json, e);
    }
  }
}
