package org.xiaochong.spark.read;

import java.util.ArrayList;
import java.util.List;

/**
 * The id ranges the job reads the table in, one per input partition: {@code [from, to)} slices of
 * equal width between the table's smallest and largest id (read with MIN/MAX on the primary key).
 * The bounds only set the stride: every row falls in exactly one range, however the ids are spread.
 */
public final class IdRanges {
  private static final long IDS_PER_PARTITION = 200_000;

  private IdRanges() {}

  /**
   * The default number of ranges for the ids {@code idRange[0]..idRange[1]}: one per 200k ids of
   * the span, at least two per core of the job (so every core has work and a slow range can be
   * split off), at most 100,000.
   */
  public static int defaultCount(long[] idRange, org.apache.spark.sql.SparkSession spark) {
    long span = idRange[1] - idRange[0] + 1;
    long bySpan = (span + IDS_PER_PARTITION - 1) / IDS_PER_PARTITION;
    return (int)
        Math.min(100_000, Math.max(2L * spark.sparkContext().defaultParallelism(), bySpan));
  }

  /**
   * {@code parts} ranges covering {@code min <= id <= max} (fewer when there are fewer ids), each a
   * {@code long[] {from, to}} with {@code to} excluded, in increasing order.
   */
  public static List<long[]> split(long min, long max, int parts) {
    if (min > max || parts < 1) {
      throw new IllegalArgumentException("no ranges in [" + min + ", " + max + "] x " + parts);
    }
    if (max == Long.MAX_VALUE) {
      throw new IllegalArgumentException(
          "an id of " + Long.MAX_VALUE + " leaves no exclusive end for the last range");
    }
    java.math.BigInteger span =
        java.math.BigInteger.valueOf(max)
            .subtract(java.math.BigInteger.valueOf(min))
            .add(java.math.BigInteger.ONE);
    long n = Math.min(parts, span.min(java.math.BigInteger.valueOf(Integer.MAX_VALUE)).longValue());
    List<long[]> ranges = new ArrayList<>();
    long from = min;
    for (long i = 1; i <= n; i++) {
      long to =
          i == n
              ? max + 1
              : java.math.BigInteger.valueOf(min)
                  .add(
                      span.multiply(java.math.BigInteger.valueOf(i))
                          .divide(java.math.BigInteger.valueOf(n)))
                  .longValue();
      ranges.add(new long[] {from, to});
      from = to;
    }
    return ranges;
  }
}
