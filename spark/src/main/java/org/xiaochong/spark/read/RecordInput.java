package org.xiaochong.spark.read;

import java.util.function.Consumer;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.xiaochong.source.Database;
import org.xiaochong.source.DbSettings;
import org.xiaochong.source.RecordSource;

/**
 * Where a job's records come from: the table in id ranges ({@link TableRead#input}, from the
 * replica of db.read-url when the config names one) or a Parquet export ({@link
 * ParquetRead#input}). Either way each record reaches the code as the single machine's {@link
 * org.xiaochong.source.SourceRecord}.
 */
public interface RecordInput {
  /** The records as rows of {@code schema}, made by {@code maker} in each partition (lazy). */
  Dataset<Row> read(StructType schema, TableRead.RowMaker maker);

  /** One value per partition, folded from its records (an aggregation with no row per record). */
  <T> JavaRDD<T> fold(TableRead.Folder<T> folder);

  /**
   * The records of a run: the Parquet export at {@code parquet}, else the table in id ranges (on
   * the replica when the config names one, else on {@code primary}); null for an empty table.
   *
   * @param partitions the id ranges to read; 0 for {@link IdRanges#defaultCount}
   * @param notes where to say which input is read
   */
  static RecordInput open(
      SparkSession spark,
      JobConfig job,
      Database primary,
      String parquet,
      int partitions,
      Consumer<String> notes) {
    if (parquet != null) {
      notes.accept("reading the records from the Parquet export " + parquet);
      return ParquetRead.input(spark, job, parquet);
    }
    long[] idRange;
    if (job.readsReplica()) {
      notes.accept(
          "reading the records from the replica " + DbSettings.redactUrl(job.readDb().url()));
      try (Database replica = Database.open(job.readDb())) {
        RecordSource source = new RecordSource(replica, job.config().table());
        source.checkSchema();
        idRange = source.idRange();
      }
    } else {
      idRange = new RecordSource(primary, job.config().table()).idRange();
    }
    if (idRange == null) {
      return null;
    }
    int ranges = partitions > 0 ? partitions : IdRanges.defaultCount(idRange, spark);
    return TableRead.input(spark, job, IdRanges.split(idRange[0], idRange[1], ranges));
  }
}
