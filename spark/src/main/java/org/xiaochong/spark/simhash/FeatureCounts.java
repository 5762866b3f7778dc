package org.xiaochong.spark.simhash;

import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.xiaochong.method.simhash.FeatureFrequencies;
import org.xiaochong.method.simhash.SimhashMethod;
import org.xiaochong.spark.read.JobConfig;
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

  /** The frequencies of every row of the table, read in {@code ranges} (one partition each). */
  public static FeatureFrequencies count(SparkSession spark, JobConfig job, List<long[]> ranges) {
    int depth =
        Math.max(2, (int) Math.ceil(Math.log(Math.max(1, ranges.size())) / Math.log(FAN_IN)));
    return TableRead.fold(
            spark,
            job,
            ranges,
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
            })
        .treeReduce(FeatureFrequencies::plus, depth);
  }
}
