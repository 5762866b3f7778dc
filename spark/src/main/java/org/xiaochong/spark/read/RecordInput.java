package org.xiaochong.spark.read;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;

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
}
