package org.xiaochong.spark.run;

import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.CollectionAccumulator;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.pass.Window;
import org.xiaochong.spark.read.JobConfig;
import org.xiaochong.spark.read.RecordInput;

/**
 * What a method's stage is given by the run ({@link SparkMethod#open}).
 *
 * @param input where the records come from (a method may read them again before the run reads them,
 *     as tf-idf's feature counts do)
 * @param window the records the run examines
 * @param marks the kept-apart marks, as {@link ApartPairs#toArray} writes them
 * @param driverComponentSize components of more records are decided on the driver
 */
public record StageContext(
    SparkSession spark,
    JobConfig job,
    RecordInput input,
    Window window,
    Broadcast<long[]> marks,
    long driverComponentSize) {
  /** A new accumulator of the marked pairs {@code method}'s stage honours. */
  public CollectionAccumulator<long[]> honouredPairs(String method) {
    return spark.sparkContext().collectionAccumulator(method + " apart honoured");
  }
}
