package org.xiaochong.source;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.jdbi.v3.core.Handle;

/**
 * Streams the rows of the source table. Rows are read with a streaming result set (MySQL's {@code
 * fetchSize = Integer.MIN_VALUE}), so the table is never held in memory. Thread-safe: each call
 * uses its own connection.
 *
 * <p>A range or the whole table is read in chunks of at most {@link #withChunkRows chunk rows}, one
 * short statement each ({@link ChunkedRangeReader} says why). The table's reading rules are in this
 * package beside it: the schema check of the configured columns ({@link SchemaCheck}), how row
 * checksums are made ({@link ChecksumPlan}), values read as the server's UTF-8 bytes ({@link
 * RecordRows}), and times read as the server wrote them (zero dates, fractions: {@link #readTime});
 * every reader of rows goes through them, so they are changed in one place.
 *
 * <p>Over 300 lines because it is the one door to the source table: each public read states its
 * contract here, and the work behind it is in the package's classes named above.
 */
public final class RecordSource {

  /**
   * Rows per read statement by default (config index.read-chunk-rows): well under a second of
   * reading.
   */
  public static final int DEFAULT_CHUNK_ROWS = 20_000;

  private final Database database;
  private final TableSpec spec;
  private final List<String> columns;
  private final ChunkedRangeReader ranges;

  /**
   * How this table's row checksums are made ({@link ChecksumPlan}); found on first use (it needs
   * the columns' charsets).
   */
  private volatile ChecksumPlan checksums;

  /** Fractional digits of the time column; -1 until asked. */
  private volatile int timePrecision = -1;

  public RecordSource(Database database, TableSpec spec) {
    this.database = database;
    this.spec = spec;
    this.columns = spec.fingerprintColumns();
    this.ranges = new ChunkedRangeReader(database, spec);
  }

  /**
   * Reads at most {@code rows} rows per statement instead of {@link #DEFAULT_CHUNK_ROWS}; returns
   * this.
   */
  public RecordSource withChunkRows(int rows) {
    if (rows < 1) {
      throw new IllegalArgumentException("chunk rows (" + rows + ") must be >= 1");
    }
    ranges.setChunkRows(rows);
    return this;
  }

  /**
   * The row checksum's SQL expression for this table ({@link RowChecksum#sqlExpression}) over the
   * columns of table alias {@code alias} (null: none).
   */
  public String rowChecksumSql(String alias) {
    return RowChecksum.sqlExpression(columns, checksums().castToBinary(), alias);
  }

  /**
   * The time column of table alias {@code alias} at millisecond precision, as the index and the
   * plan keep it: cut to DATETIME(3) when the column keeps more (the server truncates, as {@link
   * #toMillis} does), so that an unchanged DATETIME(6) row compares equal to what was indexed.
   */
  public String timeAtMillisSql(String alias) {
    if (timePrecision < 0) {
      timePrecision =
          database
              .jdbi()
              .withHandle(
                  h ->
                      h.createQuery(
                              "SELECT COALESCE(MAX(datetime_precision), 0)"
                                  + " FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ? AND column_name = ?")
                          .bind(0, spec.table())
                          .bind(1, spec.timeColumn())
                          .mapTo(Integer.class)
                          .one());
    }
    String column = alias + "." + TableSpec.quote(spec.timeColumn());
    return timePrecision > 3 ? "CAST(" + column + " AS DATETIME(3))" : column;
  }

  private ChecksumPlan checksums() {
    if (checksums == null) {
      checksums = ChecksumPlan.find(database, spec);
    }
    return checksums;
  }

  private RecordRows recordRows() {
    return new RecordRows(columns.size(), checksums());
  }

  public TableSpec spec() {
    return spec;
  }

  public Database database() {
    return database;
  }

  /**
   * Checks that the table and every configured column exist and have usable types; returns all
   * column names of the table in order. Throws {@link BadInputException} naming what is wrong.
   */
  public List<String> checkSchema() {
    return new SchemaCheck(database, spec).checkSchema();
  }

  /**
   * The unique index on the id column ({@code PRIMARY} when the id is the primary key): the apply
   * names it in its joins so that a plan row finds its row by id even when the table's statistics
   * are stale (just loaded or altered: the optimizer then believes the table holds one row and
   * scans it for every plan row).
   */
  public String idIndex() {
    return new SchemaCheck(database, spec).idIndex();
  }

  public long count() {
    return database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT COUNT(*) FROM " + TableSpec.quote(spec.table()))
                    .mapTo(Long.class)
                    .one());
  }

  /**
   * Receives a row's id, time (epoch ms as {@link #toMillis}) and checksum ({@link RowChecksum}).
   */
  @FunctionalInterface
  public interface RowState {
    void accept(long id, long time, long rowCrc);
  }

  /**
   * Calls {@code consumer} with the id, time and checksum of the rows with {@code from <= id < to}
   * ({@code id <= to} when {@code toIncluded}), in increasing id order.
   */
  public void forEachRowStateInRange(long from, long to, boolean toIncluded, RowState consumer) {
    ranges.forEachRow(rowStateColumns(), null, from, to, toIncluded, rs -> rowStates(consumer));
  }

  /** The select list of {@link #rowStates}: id, time, checksum. */
  private String rowStateColumns() {
    return TableSpec.quote(spec.idColumn())
        + ", "
        + TableSpec.quote(spec.timeColumn())
        + ", "
        + rowChecksumSql(null);
  }

  private static ChunkedRangeReader.RowHandler rowStates(RowState consumer) {
    return row -> consumer.accept(row.getLong(1), toMillis(readTime(row, 2)), row.getLong(3));
  }

  /**
   * The ids with {@code from <= id < to} ({@code id <= to} when {@code toIncluded}), in increasing
   * order.
   */
  public void forEachIdInRange(long from, long to, boolean toIncluded, LongConsumer consumer) {
    ranges.forEachRow(
        TableSpec.quote(spec.idColumn()),
        null,
        from,
        to,
        toIncluded,
        rs -> row -> consumer.accept(row.getLong(1)));
  }

  /**
   * As {@link #forEachRowStateInRange}, for the rows whose {@code updatedColumn} is at or after
   * {@code since} minus {@code marginSeconds}. {@code since} is a DATETIME text the server gave
   * ({@link #updatedWatermark}): the comparison is done by the server in its own time zone, never
   * converted by the JVM.
   */
  public void forEachRowStateUpdatedSince(
      String updatedColumn, String since, int marginSeconds, RowState consumer) {
    long[] range = idRange();
    if (range == null) {
      return;
    }
    String filter =
        TableSpec.quote(updatedColumn)
            + " >= CAST(? AS DATETIME(6))"
            + " - INTERVAL "
            + marginSeconds
            + " SECOND";
    ranges.forEachRow(
        rowStateColumns(), filter, range[0], range[1], true, rs -> rowStates(consumer), since);
  }

  /**
   * Where the next sync's look for changed rows starts (source.updated-column), as DATETIME text
   * ({@link #forEachRowStateUpdatedSince} takes it back); null when no row has a value. {@link
   * UpdatedWatermark} says how and why.
   */
  public String updatedWatermark(String updatedColumn) {
    return UpdatedWatermark.find(database, spec.table(), updatedColumn);
  }

  /**
   * Checks that {@code column} exists in the table and is DATETIME or TIMESTAMP
   * (source.updated-column); throws {@link BadInputException} naming what is wrong.
   */
  public void checkUpdatedColumn(String column) {
    new SchemaCheck(database, spec).checkUpdatedColumn(column);
  }

  /** Streams every row of the table, in increasing id order. */
  public void forEachRecord(Consumer<SourceRecord> consumer) {
    long[] range = idRange();
    if (range != null) {
      readRecords(range[0], range[1], true, consumer);
    }
  }

  /** The smallest and largest id of the table, or null when it is empty. */
  public long[] idRange() {
    String id = TableSpec.quote(spec.idColumn());
    return database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT MIN("
                            + id
                            + "), MAX("
                            + id
                            + ") FROM "
                            + TableSpec.quote(spec.table()))
                    .map(
                        (rs, ctx) ->
                            rs.getObject(1) == null
                                ? null
                                : new long[] {rs.getLong(1), rs.getLong(2)})
                    .one());
  }

  /** Streams the rows with {@code from <= id < to}, in increasing id order. */
  public void forEachRecordInRange(long from, long to, Consumer<SourceRecord> consumer) {
    readRecords(from, to, false, consumer);
  }

  private void readRecords(
      long from, long to, boolean toIncluded, Consumer<SourceRecord> consumer) {
    RecordRows rows = recordRows();
    ranges.forEachRow(
        checksums().selectColumns(), null, from, to, toIncluded, rs -> rows.records(rs, consumer));
  }

  /**
   * Whether the driver decodes columns {@code [first, first + count)} of {@code rs} from UTF-8:
   * then {@code getBytes} gives their UTF-8 (the exact key is computed from it without decoding).
   */
  public static boolean columnsAreUtf8(ResultSet rs, int first, int count) throws SQLException {
    return RecordRows.columnsAreUtf8(rs, first, count);
  }

  /** Reads the rows with these ids (sorted), in batches; ids no longer in the table are skipped. */
  public void forEachRecord(long[] ids, int count, Consumer<SourceRecord> consumer) {
    RowsById.forEachRecord(
        database, spec, checksums().selectColumns(), recordRows(), ids, count, consumer);
  }

  /** Reads the given columns of one row, or null when the row does not exist (for reports). */
  public List<String> readColumns(Handle handle, long id, List<String> wanted) {
    return RowsById.readColumns(handle, spec, id, wanted);
  }

  /**
   * The time column of the current row (DATETIME and DATE as stored, TIMESTAMP as UTC: the
   * session's zone), or null. Dates that name no day count as NULL, the oldest time: the zero date
   * ('0000-00-00', which the connection reads as NULL) and dates with a zero month or day
   * ('2024-00-00'), which MariaDB's default sql_mode also stores and java.time cannot hold.
   */
  public static LocalDateTime readTime(ResultSet rs, int column) throws SQLException {
    try {
      return rs.getObject(column, LocalDateTime.class);
    } catch (SQLException | DateTimeException e) {
      for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
        if (t instanceof DateTimeException) {
          return null;
        }
      }
      throw e;
    }
  }

  /** Epoch milliseconds of a DATETIME read as UTC; NULL is {@link SourceRecord#NULL_TIME}. */
  public static long toMillis(LocalDateTime time) {
    return time == null ? SourceRecord.NULL_TIME : time.toInstant(ZoneOffset.UTC).toEpochMilli();
  }

  public static LocalDateTime fromMillis(long millis) {
    return millis == SourceRecord.NULL_TIME
        ? null
        : LocalDateTime.ofEpochSecond(
            Math.floorDiv(millis, 1000),
            (int) Math.floorMod(millis, 1000) * 1_000_000,
            ZoneOffset.UTC);
  }
}
