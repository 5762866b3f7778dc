package org.xiaochong.source;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

/**
 * Streams the rows of the source table. Rows are read with a streaming result set (MySQL's {@code
 * fetchSize = Integer.MIN_VALUE}), so the table is never held in memory. Thread-safe: each call
 * uses its own connection.
 *
 * <p>A range or the whole table is read in chunks of at most {@link #withChunkRows chunk rows}, one
 * short statement each ({@link #forEachChunk}): a statement holds the table's metadata lock and its
 * read view as long as it streams, so one statement over millions of rows would make an {@code
 * ALTER TABLE} queue behind it for minutes, the site's queries queue behind the ALTER, and purge
 * wait.
 *
 * <p>Over 300 lines because the table's reading rules live here together: the schema check of the
 * configured columns, the id slices of parallel reads, times read as the server wrote them (zero
 * dates, fractions), and values read as the server's UTF-8 bytes; every reader of rows goes through
 * them, so they are changed in one place.
 */
public final class RecordSource {
  private static final int ID_BATCH = 1000;

  /**
   * Rows per read statement by default (config index.read-chunk-rows): well under a second of
   * reading.
   */
  public static final int DEFAULT_CHUNK_ROWS = 20_000;

  private final Database database;
  private final TableSpec spec;
  private final List<String> columns;

  /**
   * How this table's row checksums are made ({@link ChecksumPlan}); found on first use (it needs
   * the columns' charsets).
   */
  private volatile ChecksumPlan checksums;

  /** Fractional digits of the time column; -1 until asked. */
  private volatile int timePrecision = -1;

  private volatile int chunkRows = DEFAULT_CHUNK_ROWS;

  public RecordSource(Database database, TableSpec spec) {
    this.database = database;
    this.spec = spec;
    this.columns = spec.fingerprintColumns();
  }

  /**
   * Reads at most {@code rows} rows per statement instead of {@link #DEFAULT_CHUNK_ROWS}; returns
   * this.
   */
  public RecordSource withChunkRows(int rows) {
    if (rows < 1) {
      throw new IllegalArgumentException("chunk rows (" + rows + ") must be >= 1");
    }
    this.chunkRows = rows;
    return this;
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
   * Splits {@code from <= id < to} ({@code id <= to} when {@code toIncluded}) into consecutive id
   * ranges of at most {@link #chunkRows} rows, in increasing order, and reads each. The end of a
   * chunk is the id {@code chunkRows} rows after its start (keyset: {@code ORDER BY id LIMIT 1
   * OFFSET n} on the primary key, which reads n index entries), so chunks stay short however sparse
   * the ids.
   */
  private void forEachChunk(long from, long to, boolean toIncluded, Chunk chunk) {
    String id = TableSpec.quote(spec.idColumn());
    String next =
        "SELECT "
            + id
            + " FROM "
            + TableSpec.quote(spec.table())
            + " WHERE "
            + id
            + " >= ? AND "
            + id
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

  /**
   * How the checksums of this table are made: whether the server must cast the values to BINARY
   * (the columns do not share one charset), whether the client may compute them from the values it
   * reads ({@link RowChecksum#clientMayCompute}), and the select list of full rows (id, time, the
   * fingerprint columns, then the server's checksum unless the client computes it).
   */
  private record ChecksumPlan(boolean castToBinary, boolean onClient, String selectColumns) {}

  private ChecksumPlan checksums() {
    if (checksums == null) {
      String charset = sharedCharset();
      boolean castToBinary = charset == null;
      boolean onClient = RowChecksum.clientMayCompute(charset);
      String select =
          TableSpec.quote(spec.idColumn())
              + ", "
              + TableSpec.quote(spec.timeColumn())
              + columns.stream().map(c -> ", " + TableSpec.quote(c)).collect(Collectors.joining())
              + (onClient ? "" : ", " + RowChecksum.sqlExpression(columns, castToBinary, null));
      checksums = new ChecksumPlan(castToBinary, onClient, select);
    }
    return checksums;
  }

  private String rowCrc() {
    return rowChecksumSql(null);
  }

  private String selectColumns() {
    return checksums().selectColumns();
  }

  /**
   * The charset every fingerprint column is stored in, when all are character columns of one
   * charset and collation; else null.
   */
  private String sharedCharset() {
    return database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COUNT(*), COUNT(character_set_name),"
                            + " COUNT(DISTINCT character_set_name), COUNT(DISTINCT collation_name), MIN(character_set_name)"
                            + " FROM information_schema.columns"
                            + " WHERE table_schema = DATABASE() AND table_name = :table AND column_name IN (<columns>)")
                    .bind("table", spec.table())
                    .bindList("columns", columns)
                    .map(
                        (rs, ctx) ->
                            rs.getLong(1) == columns.size()
                                    && rs.getLong(2) == columns.size()
                                    && rs.getLong(3) == 1
                                    && rs.getLong(4) == 1
                                ? rs.getString(5)
                                : null)
                    .one());
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
    return database
        .jdbi()
        .withHandle(
            handle -> {
              try (var statement = handle.getConnection().createStatement();
                  ResultSet rs =
                      statement.executeQuery(
                          "SELECT * FROM " + TableSpec.quote(spec.table()) + " LIMIT 0")) {
                ResultSetMetaData meta = rs.getMetaData();
                List<String> all = new ArrayList<>();
                List<Integer> types = new ArrayList<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                  all.add(meta.getColumnName(i));
                  types.add(meta.getColumnType(i));
                }
                List<String> lower = all.stream().map(c -> c.toLowerCase(Locale.ROOT)).toList();
                requireColumn("source.id-column", spec.idColumn(), lower, all);
                requireColumn("source.time-column", spec.timeColumn(), lower, all);
                for (String field : spec.exactFields()) {
                  requireColumn("fields.exact", field, lower, all);
                }
                for (String field : spec.nearFields()) {
                  requireColumn("fields.near", field, lower, all);
                }
                int idType = types.get(lower.indexOf(spec.idColumn().toLowerCase(Locale.ROOT)));
                if (idType != Types.BIGINT
                    && idType != Types.INTEGER
                    && idType != Types.SMALLINT
                    && idType != Types.TINYINT) {
                  throw new BadInputException(
                      "source.id-column '"
                          + spec.idColumn()
                          + "' of table '"
                          + spec.table()
                          + "' must be an integer column");
                }
                int timeType = types.get(lower.indexOf(spec.timeColumn().toLowerCase(Locale.ROOT)));
                if (timeType != Types.TIMESTAMP
                    && timeType != Types.DATE
                    && timeType != Types.TIMESTAMP_WITH_TIMEZONE) {
                  throw new BadInputException(
                      "source.time-column '"
                          + spec.timeColumn()
                          + "' of table '"
                          + spec.table()
                          + "' must be DATETIME, TIMESTAMP or DATE");
                }
                for (String column : spec.keepPolicy().valueColumns()) {
                  requireColumn("keep.policy", column, lower, all);
                  int type = types.get(lower.indexOf(column.toLowerCase(Locale.ROOT)));
                  if (!KEEP_POLICY_TYPES.contains(type)) {
                    throw new BadInputException(
                        "keep.policy column '"
                            + column
                            + "' of table '"
                            + spec.table()
                            + "' is "
                            + meta.getColumnTypeName(
                                lower.indexOf(column.toLowerCase(Locale.ROOT)) + 1)
                            + ": it must be an integer (TINYINT … BIGINT, BOOLEAN, YEAR) or a DATE, DATETIME or TIMESTAMP column"
                            + " (text orders by collation, decimals by value: neither is ranked the same way in Java and SQL)");
                  }
                }
                requireUniqueId(handle);
                return all;
              } catch (SQLException e) {
                if (SqlError.MISSING_TABLE.matches(e)) {
                  throw new BadInputException(
                      "source.table '"
                          + spec.table()
                          + "' does not exist in "
                          + database.displayUrl(),
                      e);
                }
                throw new IllegalStateException(
                    "cannot read the columns of " + spec.table() + ": " + e.getMessage(), e);
              }
            });
  }

  /**
   * Rows are told apart by their id alone (the index, the plan and the archive key on it), so the
   * id column must be the primary key or carry a unique index of its own; two rows with one id
   * would make the archive's key fail on every apply.
   */
  private void requireUniqueId(Handle handle) {
    boolean unique =
        !handle
            .createQuery(
                "SELECT index_name FROM information_schema.statistics"
                    + " WHERE table_schema = DATABASE() AND table_name = ? GROUP BY index_name"
                    + " HAVING MAX(non_unique) = 0 AND COUNT(*) = 1 AND MAX(LOWER(column_name)) = LOWER(?)")
            .bind(0, spec.table())
            .bind(1, spec.idColumn())
            .mapTo(String.class)
            .list()
            .isEmpty();
    if (!unique) {
      throw new BadInputException(
          "source.id-column '"
              + spec.idColumn()
              + "' of table '"
              + spec.table()
              + "' is not unique (no PRIMARY KEY or UNIQUE index on it alone): rows are told apart by it; add one,"
              + " e.g. ALTER TABLE "
              + TableSpec.quote(spec.table())
              + " ADD PRIMARY KEY ("
              + TableSpec.quote(spec.idColumn())
              + ")");
    }
  }

  /**
   * JDBC types a keep.policy column may have: integers and dates, ranked alike by the index and the
   * server.
   */
  private static final java.util.Set<Integer> KEEP_POLICY_TYPES =
      java.util.Set.of(
          Types.TINYINT,
          Types.SMALLINT,
          Types.INTEGER,
          Types.BIGINT,
          Types.BIT,
          Types.BOOLEAN,
          Types.DATE,
          Types.TIMESTAMP,
          Types.TIMESTAMP_WITH_TIMEZONE);

  private void requireColumn(String key, String column, List<String> lower, List<String> all) {
    if (!lower.contains(column.toLowerCase(Locale.ROOT))) {
      throw new BadInputException(
          key
              + " names column '"
              + column
              + "' that table '"
              + spec.table()
              + "' does not have (it has: "
              + String.join(", ", all)
              + ")");
    }
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
    String id = TableSpec.quote(spec.idColumn());
    String select =
        "SELECT "
            + id
            + ", "
            + TableSpec.quote(spec.timeColumn())
            + ", "
            + rowCrc()
            + " FROM "
            + TableSpec.quote(spec.table())
            + " WHERE "
            + id
            + " >= ? AND "
            + id;
    forEachChunk(
        from,
        to,
        toIncluded,
        (lo, hi, hiIncluded) ->
            stream(
                select + (hiIncluded ? " <= ?" : " < ?") + " ORDER BY " + id,
                rs ->
                    row ->
                        consumer.accept(row.getLong(1), toMillis(readTime(row, 2)), row.getLong(3)),
                lo,
                hi));
  }

  /**
   * The ids with {@code from <= id < to} ({@code id <= to} when {@code toIncluded}), in increasing
   * order.
   */
  public void forEachIdInRange(long from, long to, boolean toIncluded, LongConsumer consumer) {
    String id = TableSpec.quote(spec.idColumn());
    String select =
        "SELECT "
            + id
            + " FROM "
            + TableSpec.quote(spec.table())
            + " WHERE "
            + id
            + " >= ? AND "
            + id;
    forEachChunk(
        from,
        to,
        toIncluded,
        (lo, hi, hiIncluded) ->
            stream(
                select + (hiIncluded ? " <= ?" : " < ?") + " ORDER BY " + id,
                rs -> row -> consumer.accept(row.getLong(1)),
                lo,
                hi));
  }

  /**
   * As {@link #forEachRowStateInRange}, for the rows whose {@code updatedColumn} is at or after
   * {@code since} minus {@code marginSeconds}. {@code since} is a DATETIME text the server gave
   * ({@link #serverNow}): the comparison is done by the server in its own time zone, never
   * converted by the JVM.
   */
  public void forEachRowStateUpdatedSince(
      String updatedColumn, String since, int marginSeconds, RowState consumer) {
    long[] range = idRange();
    if (range == null) {
      return;
    }
    String id = TableSpec.quote(spec.idColumn());
    String select =
        "SELECT "
            + id
            + ", "
            + TableSpec.quote(spec.timeColumn())
            + ", "
            + rowCrc()
            + " FROM "
            + TableSpec.quote(spec.table())
            + " WHERE "
            + TableSpec.quote(updatedColumn)
            + " >= CAST(? AS DATETIME(6))"
            + " - INTERVAL "
            + marginSeconds
            + " SECOND AND "
            + id
            + " >= ? AND "
            + id;
    forEachChunk(
        range[0],
        range[1],
        true,
        (lo, hi, hiIncluded) ->
            stream(
                select + (hiIncluded ? " <= ?" : " < ?") + " ORDER BY " + id,
                rs ->
                    row ->
                        consumer.accept(row.getLong(1), toMillis(readTime(row, 2)), row.getLong(3)),
                since,
                lo,
                hi));
  }

  /**
   * Where the next sync's look for changed rows starts (source.updated-column): the column's
   * largest value now, minus how long the oldest transaction open on the server has been running,
   * as DATETIME text ({@link #forEachRowStateUpdatedSince} takes it back); null when no row has a
   * value.
   *
   * <p>Why the column's own values and not the server's clock: the application writes the column in
   * its session's time zone, which may be west of this tool's (UTC) or east, and a DATETIME keeps
   * no zone; its largest value is in the writers' zone, whatever it is. A value more than 14 hours
   * ahead of UTC (no zone is) is a wrong clock, not a watermark, and is left out. Why the open
   * transactions: a row edited in a transaction that has not committed yet holds an earlier time
   * than rows committed meanwhile, and appears only when it commits; the watermark goes back to the
   * start of the oldest one. Reading them needs the PROCESS privilege; without it the reader's
   * fixed margin ({@code marginSeconds}) is all there is.
   */
  public String updatedWatermark(String updatedColumn) {
    long openSeconds = oldestOpenTransactionSeconds();
    String column = TableSpec.quote(updatedColumn);
    return database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT CAST(MAX("
                            + column
                            + ") - INTERVAL "
                            + openSeconds
                            + " SECOND AS CHAR) FROM "
                            + TableSpec.quote(spec.table())
                            + " WHERE "
                            + column
                            + " <= NOW(6) + INTERVAL 14 HOUR")
                    .mapTo(String.class)
                    .findOne()
                    .orElse(null));
  }

  /**
   * How long the oldest transaction open on the server has been running, in seconds; 0 when none is
   * or the user may not see them. {@code information_schema.innodb_trx} gives its start in the
   * server's system time zone, so it is compared with NOW() in that zone.
   */
  private long oldestOpenTransactionSeconds() {
    try {
      return database
          .jdbi()
          .withHandle(
              h -> {
                h.execute("SET SESSION time_zone = 'SYSTEM'");
                Long seconds =
                    h.createQuery(
                            "SELECT TIMESTAMPDIFF(SECOND, MIN(trx_started), NOW()) FROM"
                                + " information_schema.innodb_trx")
                        .mapTo(Long.class)
                        .findOne()
                        .orElse(null);
                return seconds == null ? 0L : Math.max(0L, seconds);
              });
    } catch (RuntimeException e) {
      return 0; // no PROCESS privilege
    }
  }

  /**
   * Checks that {@code column} exists in the table and is DATETIME or TIMESTAMP
   * (source.updated-column); throws {@link BadInputException} naming what is wrong.
   */
  public void checkUpdatedColumn(String column) {
    database
        .jdbi()
        .useHandle(
            handle -> {
              try (var statement = handle.getConnection().createStatement();
                  ResultSet rs =
                      statement.executeQuery(
                          "SELECT "
                              + TableSpec.quote(column)
                              + " FROM "
                              + TableSpec.quote(spec.table())
                              + " LIMIT 0")) {
                int type = rs.getMetaData().getColumnType(1);
                if (type != Types.TIMESTAMP && type != Types.TIMESTAMP_WITH_TIMEZONE) {
                  throw new BadInputException(
                      "source.updated-column '"
                          + column
                          + "' of table '"
                          + spec.table()
                          + "' must be DATETIME or TIMESTAMP");
                }
              } catch (SQLException e) {
                throw new BadInputException(
                    "source.updated-column '"
                        + column
                        + "' is not a column of table '"
                        + spec.table()
                        + "': "
                        + Database.rootMessage(e),
                    e);
              }
            });
  }

  /** Streams every row of the table, in increasing id order. */
  public void forEachRecord(Consumer<SourceRecord> consumer) {
    long[] range = idRange();
    if (range == null) {
      return;
    }
    String id = TableSpec.quote(spec.idColumn());
    String select =
        "SELECT "
            + selectColumns()
            + " FROM "
            + TableSpec.quote(spec.table())
            + " WHERE "
            + id
            + " >= ? AND "
            + id;
    forEachChunk(
        range[0],
        range[1],
        true,
        (lo, hi, hiIncluded) ->
            stream(
                select + (hiIncluded ? " <= ?" : " < ?") + " ORDER BY " + id,
                rs -> records(rs, consumer),
                lo,
                hi));
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
    String id = TableSpec.quote(spec.idColumn());
    String select =
        "SELECT "
            + selectColumns()
            + " FROM "
            + TableSpec.quote(spec.table())
            + " WHERE "
            + id
            + " >= ?"
            + " AND "
            + id;
    forEachChunk(
        from,
        to,
        false,
        (lo, hi, hiIncluded) ->
            stream(
                select + (hiIncluded ? " <= ?" : " < ?") + " ORDER BY " + id,
                rs -> records(rs, consumer),
                lo,
                hi));
  }

  private interface RowHandler {
    void accept(ResultSet rs) throws SQLException;
  }

  /** Makes the handler of a query's rows, once its result set (and so its metadata) is there. */
  private interface RowHandlerFactory {
    RowHandler open(ResultSet rs) throws SQLException;
  }

  /**
   * The handler that reads records: as UTF-8 bytes when the driver decodes every fingerprint column
   * from UTF-8 (then the bytes it holds are that UTF-8, and {@code getString} would only decode
   * them), else as strings.
   */
  private RowHandler records(ResultSet rs, Consumer<SourceRecord> consumer) throws SQLException {
    if (!fingerprintColumnsAreUtf8(rs)) {
      return row -> consumer.accept(read(row));
    }
    boolean crcOnClient = checksums().onClient();
    int crcColumn = columns.size() + 3;
    return row -> {
      byte[][] values = new byte[columns.size()][];
      for (int i = 0; i < values.length; i++) {
        values[i] = row.getBytes(i + 3);
      }
      long crc = crcOnClient ? RowChecksum.ofUtf8(values) : row.getLong(crcColumn);
      consumer.accept(SourceRecord.ofUtf8(row.getLong(1), toMillis(readTime(row, 2)), crc, values));
    };
  }

  private boolean fingerprintColumnsAreUtf8(ResultSet rs) throws SQLException {
    return columnsAreUtf8(rs, 3, columns.size());
  }

  /**
   * Whether the driver decodes columns {@code [first, first + count)} of {@code rs} from UTF-8:
   * then {@code getBytes} gives their UTF-8 (the exact key is computed from it without decoding).
   */
  public static boolean columnsAreUtf8(ResultSet rs, int first, int count) throws SQLException {
    ResultSetMetaData meta = rs.getMetaData();
    if (!meta.isWrapperFor(com.mysql.cj.jdbc.result.ResultSetMetaData.class)) {
      return false;
    }
    com.mysql.cj.jdbc.result.ResultSetMetaData mysql =
        meta.unwrap(com.mysql.cj.jdbc.result.ResultSetMetaData.class);
    for (int i = 0; i < count; i++) {
      if (!isUtf8(mysql.getColumnCharacterEncoding(first + i))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether a Java encoding name (as Connector/J reports it: "UTF-8", "GBK", "Cp1252" …) is UTF-8.
   */
  private static boolean isUtf8(String encoding) {
    try {
      return encoding != null
          && java.nio.charset.Charset.forName(encoding)
              .equals(java.nio.charset.StandardCharsets.UTF_8);
    } catch (
        IllegalArgumentException
            e) { // an unknown or illegal name: leave the decoding to the driver
      return false;
    }
  }

  /** Runs a query with a streaming result set: rows arrive one by one, none are buffered. */
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

  /** Reads the rows with these ids (sorted), in batches; ids no longer in the table are skipped. */
  public void forEachRecord(long[] ids, int count, Consumer<SourceRecord> consumer) {
    database
        .jdbi()
        .useHandle(
            handle -> {
              for (int from = 0; from < count; from += ID_BATCH) {
                int to = Math.min(count, from + ID_BATCH);
                Query query =
                    handle.createQuery(
                        "SELECT "
                            + selectColumns()
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
                query.bindList("ids", batch).map((rs, ctx) -> read(rs)).forEach(consumer);
              }
            });
  }

  /** Reads the given columns of one row, or null when the row does not exist (for reports). */
  public List<String> readColumns(Handle handle, long id, List<String> wanted) {
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

  private SourceRecord read(ResultSet rs) throws SQLException {
    long id = rs.getLong(1);
    LocalDateTime time = readTime(rs, 2);
    String[] values = new String[columns.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = rs.getString(i + 3);
    }
    long crc = checksums().onClient() ? RowChecksum.of(values) : rs.getLong(columns.size() + 3);
    return new SourceRecord(id, toMillis(time), crc, values);
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
