package org.xiaochong.spark.run;

import java.io.Serializable;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructField;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.spark.read.RecordColumns;

/**
 * One method's part of one run ({@link SparkMethod#open}): the columns it adds to each record as
 * the records are read, and its stage over them. Not thread-safe: used by the run's driver thread.
 */
public interface MethodStage {
  /**
   * The columns the method adds to each record, after the base columns every record has ({@link
   * RecordColumns#schema}: id, time, checksum, exact key, keep rank) and beside other methods'
   * columns; none by default. A stage finds them by name: their position depends on the methods of
   * the run.
   */
  default List<StructField> columns() {
    return List.of();
  }

  /** Makes the values of {@link #columns}; unused when there are none. */
  default ColumnMaker maker() {
    return config -> (record, values, from) -> {};
  }

  /**
   * The stage over {@code live}: the records no earlier stage of the run removed (all of them for
   * the first), with their columns.
   *
   * @param examined the records of the run's window, for the report
   * @param partitions the input's partitions: a shuffle of the stage is cut to as many
   */
  Stage decide(Dataset<Row> live, long examined, int partitions);

  /** Opens the column values of one partition's records, on the executor. */
  @FunctionalInterface
  interface ColumnMaker extends Serializable {
    ColumnValues open(DedupConfig config);
  }

  /** A partition's maker of column values (it may keep buffers: one per partition). */
  @FunctionalInterface
  interface ColumnValues {
    /**
     * Puts the values of {@link MethodStage#columns} for {@code record} into {@code values}, from
     * {@code from}.
     */
    void put(SourceRecord record, Object[] values, int from);
  }
}
