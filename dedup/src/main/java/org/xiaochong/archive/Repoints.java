package org.xiaochong.archive;

import static org.xiaochong.archive.ArchiveTables.q;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.ResultSet;
import java.sql.SQLException;
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
   * back to them, in the caller's transaction (the rows are back in the table), where they still
   * point to the kept row; forgets the changes. Returns {put back, left as they are}.
   */
  static long[] putBack(Handle handle, long runId, long lo, long upTo) {
    long[] counts = new long[2];
    RunDao runs = handle.attach(RunDao.class);
    List<Repointed> rows = runs.repointed(runId, lo, upTo);
    for (Repointed row : rows) {
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
      row.keyColumns().forEach(k -> sql.append(" AND ").append(q(k)).append(" = ?"));
      var update = handle.createUpdate(sql.toString()).bind(0, row.oldId()).bind(1, row.newId());
      JsonNode key = readKey(row.key(), row.keyColumns().size());
      for (int i = 0; i < row.keyColumns().size(); i++) {
        JsonNode value = key.get(i);
        if (value.isIntegralNumber()) {
          update.bind(2 + i, value.decimalValue());
        } else {
          update.bind(2 + i, value.asText());
        }
      }
      counts[update.execute() == 1 ? 0 : 1]++;
    }
    runs.forgetRepoints(runId, lo, upTo);
    return counts;
  }

  /**
   * A row of {@code dedup_repoint}: a child row a merge re-pointed from {@code oldId} to {@code
   * newId}.
   */
  record Repointed(
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
