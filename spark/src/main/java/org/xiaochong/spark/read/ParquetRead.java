package org.xiaochong.spark.read;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.IntegralType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.RowChecksum;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * Reads the records from a Parquet export of the table instead of the database: a snapshot taken by
 * {@code dedup-spark export} ({@link ParquetExport}) or by any tool that writes the table's columns
 * under their names (Spark's JDBC source run in UTC, Sqoop, DataX…). The export needs the id
 * column, the time column and {@link TableSpec#fingerprintColumns()}; other columns are ignored.
 *
 * <p>Each value becomes the text the server would send: strings as they are, integers in decimal,
 * decimals in plain notation with their scale ({@code 12.50}), booleans as {@code 1}/{@code 0},
 * dates as {@code 2024-05-01} and date-times as {@code 2024-05-01 08:00:00}. The time column may be
 * a TIMESTAMP_NTZ (the DATETIME as stored), a TIMESTAMP (read as UTC, as the single machine reads a
 * DATETIME), a DATE or a string ({@code 2024-05-01 08:00:00}); NULL is the oldest time. Other types
 * (floating point, nested) are refused in one line: their text is not the server's.
 *
 * <p>The row checksum is computed from the values ({@link RowChecksum#ofUtf8}), which is the
 * server's for UTF-8 tables. The apply still runs on the live table: its re-check under row locks
 * compares each row with what the export held, so rows changed since the export (or a checksum that
 * differs) are decided again, never removed on stale data.
 */
public final class ParquetRead {
  /** A DATETIME as the server prints it: no fraction when it is zero. */
  private static final DateTimeFormatter DATE_TIME =
      new DateTimeFormatterBuilder()
          .appendPattern("yyyy-MM-dd HH:mm:ss")
          .optionalStart()
          .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
          .optionalEnd()
          .toFormatter(Locale.ROOT);

  private ParquetRead() {}

  /**
   * The export at {@code path} as a {@link RecordInput}.
   *
   * @throws BadInputException as {@link #read} (checked here, before anything runs)
   */
  public static RecordInput input(SparkSession spark, JobConfig job, String path) {
    Dataset<Row> columns = columns(spark, job, path);
    return new RecordInput() {
      @Override
      public Dataset<Row> read(StructType schema, TableRead.RowMaker maker) {
        JavaRDD<Row> rows =
            columns.javaRDD().mapPartitions(it -> records(job.config(), it, maker), true);
        return spark.createDataFrame(rows, schema);
      }

      @Override
      public <T> JavaRDD<T> fold(TableRead.Folder<T> folder) {
        return columns
            .javaRDD()
            .mapPartitions(
                it -> {
                  TableRead.Fold<T> fold = folder.open(job.config());
                  it.forEachRemaining(row -> fold.accept(record(row)));
                  return List.of(fold.result()).iterator();
                });
      }
    };
  }

  /**
   * The records of the export at {@code path} as rows of {@code schema}.
   *
   * @throws BadInputException when the path holds no Parquet export, or a needed column is missing
   *     or of a type the job cannot read as the server's text
   */
  public static Dataset<Row> read(
      SparkSession spark, JobConfig job, String path, StructType schema, TableRead.RowMaker maker) {
    return input(spark, job, path).read(schema, maker);
  }

  /** The id, time and fields of the export, in that order, after checking their types. */
  private static Dataset<Row> columns(SparkSession spark, JobConfig job, String path) {
    TableSpec spec = job.config().table();
    Dataset<Row> export;
    try {
      export = spark.read().parquet(path);
    } catch (Exception e) { // Spark's AnalysisException is checked; Scala does not declare it
      throw new BadInputException(
          "--parquet " + path + " is not a readable Parquet export: " + firstLine(e), e);
    }
    List<String> names = new ArrayList<>();
    names.add(spec.idColumn());
    names.add(spec.timeColumn());
    names.addAll(spec.fingerprintColumns());
    List<Column> selected = new ArrayList<>();
    for (String name : names) {
      StructField field = field(export.schema(), name, path);
      check(field, name.equals(spec.idColumn()), name.equals(spec.timeColumn()), path);
      selected.add(export.col("`" + field.name() + "`"));
    }
    return export.select(selected.toArray(new Column[0]));
  }

  private static Iterator<Row> records(
      DedupConfig config, Iterator<Row> rows, TableRead.RowMaker maker) {
    if (!rows.hasNext()) {
      return List.<Row>of().iterator();
    }
    Function<SourceRecord, Row> make = maker.open(config);
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return rows.hasNext();
      }

      @Override
      public Row next() {
        return make.apply(record(rows.next()));
      }
    };
  }

  /** The record of one export row: id, time, then the fingerprint columns' values. */
  static SourceRecord record(Row row) {
    if (row.isNullAt(0)) {
      throw new BadInputException("the Parquet export has a row without an id");
    }
    long id = ((Number) row.get(0)).longValue();
    long time = RecordSource.toMillis(time(row.get(1)));
    byte[][] values = new byte[row.length() - 2][];
    for (int i = 0; i < values.length; i++) {
      String text = text(row.get(i + 2));
      values[i] = text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }
    return SourceRecord.ofUtf8(id, time, RowChecksum.ofUtf8(values), values);
  }

  private static LocalDateTime time(Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof LocalDateTime t) {
      return t;
    }
    if (value instanceof Timestamp t) {
      return LocalDateTime.ofInstant(t.toInstant(), ZoneOffset.UTC);
    }
    if (value instanceof Instant t) {
      return LocalDateTime.ofInstant(t, ZoneOffset.UTC);
    }
    if (value instanceof java.sql.Date d) {
      return d.toLocalDate().atStartOfDay();
    }
    if (value instanceof LocalDate d) {
      return d.atStartOfDay();
    }
    String text = value.toString().strip();
    try {
      return text.length() == 10
          ? LocalDate.parse(text).atStartOfDay()
          : LocalDateTime.parse(text.replace('T', ' '), DATE_TIME);
    } catch (java.time.format.DateTimeParseException e) {
      // '0000-00-00' and dates with a zero month or day name no day: the oldest time, as in a read
      return null;
    }
  }

  /** A value as the server's text, or null for NULL. */
  static String text(Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof String s) {
      return s;
    }
    if (value instanceof byte[] b) {
      return new String(b, StandardCharsets.UTF_8);
    }
    if (value instanceof BigDecimal d) {
      return d.toPlainString();
    }
    if (value instanceof Boolean b) {
      return b ? "1" : "0";
    }
    if (value instanceof LocalDateTime || value instanceof Timestamp || value instanceof Instant) {
      return DATE_TIME.format(time(value));
    }
    if (value instanceof java.sql.Date d) {
      return d.toLocalDate().toString();
    }
    return value.toString(); // integers, LocalDate
  }

  private static StructField field(StructType schema, String name, String path) {
    for (StructField field : schema.fields()) {
      if (field.name().equalsIgnoreCase(name)) {
        return field;
      }
    }
    throw new BadInputException(
        "the Parquet export "
            + path
            + " has no column "
            + name
            + " (it needs the id and time columns and "
            + "the fields of the config; it has "
            + String.join(", ", schema.fieldNames())
            + ")");
  }

  private static void check(StructField field, boolean id, boolean time, String path) {
    DataType type = field.dataType();
    boolean readable =
        id
            ? type instanceof IntegralType || type instanceof DecimalType
            : time
                ? type instanceof TimestampNTZType
                    || type instanceof TimestampType
                    || type instanceof DateType
                    || type instanceof StringType
                : type instanceof StringType
                    || type instanceof BinaryType
                    || type instanceof IntegralType
                    || type instanceof DecimalType
                    || type instanceof BooleanType
                    || type instanceof DateType
                    || type instanceof TimestampNTZType
                    || type instanceof TimestampType;
    if (!readable) {
      throw new BadInputException(
          "column "
              + field.name()
              + " of the Parquet export "
              + path
              + " is "
              + type.simpleString()
              + (id
                  ? ", not an integer id"
                  : time
                      ? ", not a date, timestamp or date-time string"
                      : ": export it as a string, as the server prints it"));
    }
  }

  private static String firstLine(Throwable e) {
    String message = String.valueOf(e.getMessage());
    return message.lines().findFirst().orElse(message);
  }
}
