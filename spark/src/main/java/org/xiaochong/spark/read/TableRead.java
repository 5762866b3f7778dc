package org.xiaochong.spark.read;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;

/**
 * Reads the table into a Dataset, one partition per id range ({@link IdRanges}). Each partition
 * reads its range with the single machine's reader ({@link RecordSource#forEachRecordInRange}:
 * short keyset statements of index.read-chunk-rows rows on the primary key, streaming result sets,
 * names quoted with backticks after the config's validation, times read in UTC, values as the
 * server's UTF-8 bytes, the same row checksum), so every record arrives as a single-machine run
 * sees it. Spark's own JDBC source is not used: it would quote names with {@code "} on a
 * jdbc:mariadb URL, hold a partition's rows unless told to use a cursor, and read DATETIME through
 * the JVM's zone.
 *
 * <p>What a record becomes is the caller's {@link RowMaker}: the same code the single machine
 * indexes with (the exact key, the near keys, the simhash), run in the map.
 */
public final class TableRead {
  private TableRead() {}

  /** Makes the rows of one partition's records; opened once per partition, on the executor. */
  @FunctionalInterface
  public interface RowMaker extends Serializable {
    Function<SourceRecord, Row> open(DedupConfig config);
  }

  /** The records of the table as rows of {@code schema}, one partition per range. */
  public static Dataset<Row> read(
      SparkSession spark, JobConfig job, List<long[]> ranges, StructType schema, RowMaker maker) {
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    JavaRDD<long[]> slices = context.parallelize(ranges, ranges.size());
    JavaRDD<Row> rows = slices.mapPartitions(it -> readRanges(job, it, maker));
    return spark.createDataFrame(rows, schema);
  }

  private static Iterator<Row> readRanges(JobConfig job, Iterator<long[]> ranges, RowMaker maker) {
    DedupConfig config = job.config();
    List<Row> out = new ArrayList<>();
    if (!ranges.hasNext()) {
      return out.iterator();
    }
    Function<SourceRecord, Row> make = maker.open(config);
    forEachRecord(job, ranges, record -> out.add(make.apply(record)));
    return out.iterator();
  }

  /** The table read in {@code ranges} (one partition each) as a {@link RecordInput}. */
  public static RecordInput input(SparkSession spark, JobConfig job, List<long[]> ranges) {
    return new RecordInput() {
      @Override
      public Dataset<Row> read(StructType schema, RowMaker maker) {
        return TableRead.read(spark, job, ranges, schema, maker);
      }

      @Override
      public <T> JavaRDD<T> fold(Folder<T> folder) {
        return TableRead.fold(spark, job, ranges, folder);
      }
    };
  }

  /** What one partition makes of its records: fed each record, then asked for the result. */
  public interface Fold<T> extends Consumer<SourceRecord> {
    T result();
  }

  /** Opens the {@link Fold} of one partition, on the executor. */
  @FunctionalInterface
  public interface Folder<T> extends Serializable {
    Fold<T> open(DedupConfig config);
  }

  /**
   * One value per partition (range), folded from its records as {@link #read} reads them: for an
   * aggregation over the table that needs no row per record.
   */
  public static <T> JavaRDD<T> fold(
      SparkSession spark, JobConfig job, List<long[]> ranges, Folder<T> folder) {
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    return context
        .parallelize(ranges, ranges.size())
        .mapPartitions(
            it -> {
              DedupConfig config = job.config();
              Fold<T> fold = folder.open(config);
              if (it.hasNext()) {
                forEachRecord(job, it, fold);
              }
              return List.of(fold.result()).iterator();
            });
  }

  /** Reads the records of {@code ranges} from the replica if the config names one. */
  private static void forEachRecord(
      JobConfig job, Iterator<long[]> ranges, Consumer<SourceRecord> sink) {
    DedupConfig config = job.config();
    try (Database database = Database.open(job.readDb())) {
      RecordSource source =
          new RecordSource(database, config.table()).withChunkRows(config.readChunkRows());
      while (ranges.hasNext()) {
        long[] range = ranges.next();
        source.forEachRecordInRange(range[0], range[1], sink);
      }
    }
  }
}
