package org.xiaochong.spark.near;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.SparkContext;
import org.apache.spark.util.CollectionAccumulator;
import org.xiaochong.method.near.fingerprint.NearKeyTimes;

/**
 * Where the near fingerprinting time went, per key family, summed over the read's partitions: the
 * single machine's {@code key_family_seconds}, in thread-seconds of the executors. One report per
 * partition (a partition read again reports the same work again, and is kept once).
 */
public final class KeyTimes implements Serializable {
  private static final long serialVersionUID = 1L;

  private final CollectionAccumulator<double[]> reports;

  private KeyTimes(CollectionAccumulator<double[]> reports) {
    this.reports = reports;
  }

  public static KeyTimes create(SparkContext context) {
    return new KeyTimes(context.collectionAccumulator("near key family times"));
  }

  void add(int partition, NearKeyTimes.Snapshot times) {
    reports.add(
        new double[] {
          partition,
          times.posts(),
          times.total(),
          times.words(),
          times.grams(),
          times.shingles(),
          times.sentenceHits(),
          times.sentenceMisses()
        });
  }

  /** The sums over the partitions. Call on the driver. */
  public NearKeyTimes.Snapshot value() {
    Map<Double, double[]> byPartition = new HashMap<>();
    reports.value().forEach(report -> byPartition.putIfAbsent(report[0], report));
    double[] sum = new double[8];
    for (double[] report : byPartition.values()) {
      for (int i = 1; i < sum.length; i++) {
        sum[i] += report[i];
      }
    }
    return new NearKeyTimes.Snapshot(
        (long) sum[1], sum[2], sum[3], sum[4], sum[5], (long) sum[6], (long) sum[7]);
  }
}
