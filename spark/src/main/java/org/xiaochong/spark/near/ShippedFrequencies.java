package org.xiaochong.spark.near;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.xiaochong.method.near.KeyFrequencies;
import scala.Tuple2;

/**
 * The key frequencies as broadcast: the counts, and the single machine's {@link KeyFrequencies}
 * built from them once per executor.
 */
final class ShippedFrequencies implements Serializable {
  private final long[] keys;
  private final int[] counts;
  private final long records;
  private transient volatile KeyFrequencies built;

  ShippedFrequencies(long[] keys, int[] counts, long records) {
    this.keys = keys;
    this.counts = counts;
    this.records = records;
  }

  /**
   * Counts, for each key, the records of {@code live} whose index terms hold it (their keys and
   * evidence column keys, {@link NearRecord#counted}), as the single machine's near index counts
   * its terms; collected on the driver.
   */
  static ShippedFrequencies count(Dataset<Row> live, int nearColumn) {
    List<Tuple2<Long, Integer>> collected =
        live.javaRDD()
            .flatMapToPair(
                row -> {
                  long[] counted = NearRecord.decode((byte[]) row.get(nearColumn)).counted();
                  List<Tuple2<Long, Integer>> out = new ArrayList<>(counted.length);
                  for (long key : counted) {
                    out.add(new Tuple2<>(key, 1));
                  }
                  return out.iterator();
                })
            .reduceByKey(Integer::sum)
            .collect();
    long[] heldKeys = new long[collected.size()];
    int[] holders = new int[collected.size()];
    for (int i = 0; i < heldKeys.length; i++) {
      heldKeys[i] = collected.get(i)._1();
      holders[i] = collected.get(i)._2();
    }
    return new ShippedFrequencies(heldKeys, holders, live.count());
  }

  KeyFrequencies get() {
    KeyFrequencies f = built;
    if (f == null) {
      synchronized (this) {
        if (built == null) {
          built = KeyFrequencies.of(keys, counts, records);
        }
        f = built;
      }
    }
    return f;
  }

  java.util.function.LongToIntFunction holders() {
    return get()::get;
  }
}
