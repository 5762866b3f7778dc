package org.xiaochong.source;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

/**
 * Reads rows of the source table picked by id: records in batches of {@value #ID_BATCH} ids, and
 * single rows' columns for reports. Stateless.
 */
final class RowsById {
  private static final int ID_BATCH = 1000;

  private RowsById() {}

  /**
   * Reads the rows with these ids (sorted), in batches; ids no longer in the table are skipped.
   * {@code selectColumns} is the select list {@code rows} reads ({@link ChecksumPlan}).
   */
  static void forEachRecord(
      Database database,
      TableSpec spec,
      String selectColumns,
      RecordRows rows,
      long[] ids,
      int count,
      Consumer<SourceRecord> consumer) {
    database
        .jdbi()
        .useHandle(
            handle -> {
              for (int from = 0; from < count; from += ID_BATCH) {
                int to = Math.min(count, from + ID_BATCH);
                Query query =
                    handle.createQuery(
                        "SELECT "
                            + selectColumns
                            + " FROM "
                            + TableSpec.quote(spec.table())
                            + " WHERE "
                            + TableSpec.quote(spec.idColumn())
                            + " IN (<ids>) ORDER BY "
                            + TableSpec.quote(spec.idColumn()));
                List<Long> batch = new ArrayList<>(to - from);
                for (int i = from; i < to; i++) {
                  batch.add(ids[i]);
                }
                query.bindList("ids", batch).map((rs, ctx) -> rows.read(rs)).forEach(consumer);
              }
            });
  }

  /** Reads the given columns of one row, or null when the row does not exist (for reports). */
  static List<String> readColumns(Handle handle, TableSpec spec, long id, List<String> wanted) {
    String sql =
        "SELECT "
            + wanted.stream().map(TableSpec::quote).collect(Collectors.joining(", "))
            + " FROM "
            + TableSpec.quote(spec.table())
            + " WHERE "
            + TableSpec.quote(spec.idColumn())
            + " = ?";
    return handle
        .createQuery(sql)
        .bind(0, id)
        .map(
            (rs, ctx) -> {
              List<String> values = new ArrayList<>();
              for (int i = 1; i <= wanted.size(); i++) {
                values.add(rs.getString(i));
              }
              return values;
            })
        .findOne()
        .orElse(null);
  }
}
