package org.xiaochong.spark.near;

import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.xiaochong.method.near.fingerprint.NearOutcome;

/**
 * What the near report counts of the records of the window in {@code live}, as the single machine's
 * near pass counts them.
 *
 * @param examined the records of the window
 * @param empty those without fingerprints, per reason (lower-case {@link NearOutcome} names in
 *     their order): only the exact pass can remove them
 * @param truncated those whose text was cut to near.max-chars
 */
public record WindowCounts(long examined, Map<String, Long> empty, long truncated) {
  /** The counts of {@code live}, in one pass. */
  public static WindowCounts of(Dataset<Row> live, long since, long until) {
    int nearColumn = live.schema().fieldIndex(NearSparkMethod.COLUMN);
    int truncatedFlag = NearOutcome.values().length;
    long[] counts =
        live.javaRDD()
            .filter(row -> row.getLong(1) >= since && row.getLong(1) <= until)
            .aggregate(
                new long[truncatedFlag + 2],
                (acc, row) -> {
                  byte[] near = (byte[]) row.get(nearColumn);
                  acc[NearRecord.outcomeOf(near).ordinal()]++;
                  if (NearRecord.truncated(near)) {
                    acc[truncatedFlag]++;
                  }
                  acc[truncatedFlag + 1]++;
                  return acc;
                },
                (a, b) -> {
                  long[] sum = a.clone();
                  for (int i = 0; i < sum.length; i++) {
                    sum[i] += b[i];
                  }
                  return sum;
                });
    Map<String, Long> empty = new java.util.LinkedHashMap<>();
    for (NearOutcome outcome : NearOutcome.values()) {
      if (outcome != NearOutcome.OK && counts[outcome.ordinal()] > 0) {
        empty.put(outcome.name().toLowerCase(java.util.Locale.ROOT), counts[outcome.ordinal()]);
      }
    }
    return new WindowCounts(counts[truncatedFlag + 1], empty, counts[truncatedFlag]);
  }
}
