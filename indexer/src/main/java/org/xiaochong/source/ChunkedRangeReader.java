package org.xiaochong.source;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * Reads an id range of the source table in chunks of at most {@link #chunkRows} rows, one short
 * streaming statement each. Thread-safe: each statement uses its own connection.
 *
 * <p>Why chunks: a statement holds the table's metadata lock and its read view as long as it
 * streams, so one statement over millions of rows would make an {@code ALTER TABLE} queue behind it
 * for minutes, the site's queries queue behind the ALTER, and purge wait.
 */
final class ChunkedRangeReader {
  private final Database database;
  private final TableSpec spec;
  private volatile int chunkRows = RecordSource.DEFAULT_CHUNK_ROWS;

  ChunkedRangeReader(Database database, TableSpec spec) {
    this.database = database;
    this.spec = spec;
  }

  void setChunkRows(int rows) {
    this.chunkRows = rows;
  }

  /** Handles one row of a result set. */
  interface RowHandler {
    void accept(ResultSet rs) throws SQLException;
  }

  /** Makes the handler of a query's rows, once its result set (and so its metadata) is there. */
  interface RowHandlerFactory {
    RowHandler open(ResultSet rs) throws SQLException;
  }

  /**
   * Receives one chunk of an id range: {@code lo <= id < hi}, or {@code id <= hi} when {@code
   * hiIncluded}.
   */
  @FunctionalInterface
  private interface Chunk {
    void read(long lo, long hi, boolean hiIncluded);
  }

  /**
   * Streams {@code SELECT selectList FROM table WHERE [filter AND] from <= id < to} ({@code id <=
   * to} when {@code toIncluded}) in increasing id order, chunk by chunk, to {@code handlers}.
   * {@code filterParameters} are bound to the filter's placeholders, before the range's.
   */
  void forEachRow(
      String selectList,
      String filter,
      long from,
      long to,
      boolean toIncluded,
      RowHandlerFactory handlers,
      Object... filterParameters) {
    String id = TableSpec.quote(spec.idColumn());
    String select = rangeSelect(selectList, filter);
    int n = filterParameters.length;
    forEachChunk(
        from,
        to,
        toIncluded,
        (lo, hi, hiIncluded) -> {
          Object[] parameters = Arrays.copyOf(filterParameters, n + 2);
          parameters[n] = lo;
          parameters[n + 1] = hi;
          stream(
              select + (hiIncluded ? " <= ?" : " < ?") + " ORDER BY " + id, handlers, parameters);
        });
  }

  /**
   * {@code SELECT selectList FROM table WHERE [filter AND] id >= ? AND id}: a range query but for
   * the comparison of its end.
   */
  private String rangeSelect(String selectList, String filter) {
    String id = TableSpec.quote(spec.idColumn());
    return "SELECT "
        + selectList
        + " FROM "
        + TableSpec.quote(spec.table())
        + " WHERE "
        + (filter == null ? "" : filter + " AND ")
        + id
        + " >= ? AND "
        + id;
  }

  /**
   * Splits {@code from <= id < to} ({@code id <= to} when {@code toIncluded}) into consecutive id
   * ranges of at most {@link #chunkRows} rows, in increasing order, and reads each. The end of a
   * chunk is the id {@code chunkRows} rows after its start (keyset: {@code ORDER BY id LIMIT 1
   * OFFSET n} on the primary key, which reads n index entries), so chunks stay short however sparse
   * the ids.
   */
  private void forEachChunk(long from, long to, boolean toIncluded, Chunk chunk) {
    String id = TableSpec.quote(spec.idColumn());
    String next =
        rangeSelect(id, null)
            + (toIncluded ? " <= ?" : " < ?")
            + " ORDER BY "
            + id
            + " LIMIT 1 OFFSET "
            + chunkRows;
    long lo = from;
    while (true) {
      long start = lo;
      Optional<Long> end =
          database
              .jdbi()
              .withHandle(
                  h -> h.createQuery(next).bind(0, start).bind(1, to).mapTo(Long.class).findOne());
      if (end.isEmpty()) {
        chunk.read(lo, to, toIncluded);
        return;
      }
      chunk.read(lo, end.get(), false);
      lo = end.get();
    }
  }

  /**
   * Runs a query with a streaming result set (MySQL's {@code fetchSize = Integer.MIN_VALUE}): rows
   * arrive one by one, none are buffered.
   */
  private void stream(String sql, RowHandlerFactory handlers, Object... parameters) {
    try (Handle handle = database.jdbi().open();
        var statement =
            handle
                .getConnection()
                .prepareStatement(sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
      statement.setFetchSize(Integer.MIN_VALUE);
      for (int i = 0; i < parameters.length; i++) {
        SqlTime.bindObject(statement, i + 1, parameters[i]);
      }
      try (ResultSet rs = statement.executeQuery()) {
        RowHandler handler = handlers.open(rs);
        while (rs.next()) {
          handler.accept(rs);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "reading " + spec.table() + " failed: " + Database.rootMessage(e), e);
    }
  }
}
