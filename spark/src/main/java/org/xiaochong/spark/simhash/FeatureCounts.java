package org.xiaochong.spark.simhash;

import org.apache.spark.api.java.JavaRDD;
import org.xiaochong.method.simhash.FeatureFrequencies;
import org.xiaochong.method.simhash.SimhashMethod;
import org.xiaochong.spark.read.RecordInput;
import org.xiaochong.spark.read.TableRead;

/**
 * The feature frequencies of {@code simhash.weights=tf-idf}, counted over the whole table as the
 * single machine counts them when it builds its simhash index from empty ({@link
 * FeatureFrequencies}): each partition reads its id ranges and counts their rows with the single
 * machine's counter ({@link SimhashMethod#featureCounter}, 2^22 buckets), and the partitions'
 * counts are added up ({@link FeatureFrequencies#plus}) in a tree, so that the driver receives a
 * few 16 MiB arrays however many partitions there are.
 */
public final class FeatureCounts {
  /** Partitions' counts added up per level of the tree. */
  private static final int FAN_IN = 8;

  private FeatureCounts() {}

  /** The frequencies of every record of {@code input} (the whole table, or its export). */
  public static FeatureFrequencies count(RecordInput input) {
    JavaRDD<FeatureFrequencies> counts =
        input.fold(
            config -> {
              FeatureFrequencies.Counter counter =
                  SimhashMethod.featureCounter(config.table(), config.methodSettings());
              return new TableRead.Fold<FeatureFrequencies>() {
                @Override
                public void accept(org.xiaochong.source.SourceRecord record) {
                  counter.add(record);
                }

                @Override
                public FeatureFrequencies result() {
                  try (counter) {
                    return counter.counted();
                  }
                }
              };
            });
    int depth =
        Math.max(
            2,
            (int) Math.ceil(Math.log(Math.max(1, counts.getNumPartitions())) / Math.log(FAN_IN)));
    return counts.treeReduce(FeatureFrequencies::plus, depth);
  }
}
