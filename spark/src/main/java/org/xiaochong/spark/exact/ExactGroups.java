package org.xiaochong.spark.exact;

import static org.apache.spark.sql.functions.col;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.util.CollectionAccumulator;
import org.xiaochong.archive.ApartClusters;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.method.exact.ExactMethod;
import org.xiaochong.spark.count.PartitionCounter;
import org.xiaochong.spark.keep.Keep;
import org.xiaochong.spark.plan.Decisions;
import org.xiaochong.spark.read.RecordColumns;

/**
 * The exact pass as a Spark stage: records with the same exact key meet in one partition (a shuffle
 * on the key), sorted by key, and each group of two or more that has a record in the window is
 * decided as the single machine's exact pass decides it ({@code ExactPass.decide}): the members in
 * preference order ({@link Keep}), decided under the marks ({@link ApartPairs}) by {@link
 * ApartClusters}. Rule {@code exact}, score 1, and the two rows' states as read.
 */
public final class ExactGroups {
  private ExactGroups() {}

  /** What the stage counts on the executors, for the run's report. */
  public record Counters(PartitionCounter groups, CollectionAccumulator<long[]> honoured)
      implements java.io.Serializable {}

  /**
   * The decisions for {@code records} (rows of {@link RecordColumns#schema}).
   *
   * @param since the window's first time (epoch ms, inclusive)
   * @param until the window's last time (inclusive)
   * @param apart the marks, as {@link ApartPairs#toArray} writes them
   */
  public static Dataset<Row> decide(
      Dataset<Row> records,
      int partitions,
      long since,
      long until,
      Broadcast<long[]> apart,
      Counters counters) {
    Keep.Columns keep = Keep.Columns.of(records.schema());
    return records
        .repartition(partitions, col("k1"), col("k2"))
        .sortWithinPartitions("k1", "k2")
        .mapPartitions(
            (MapPartitionsFunction<Row, Row>)
                rows ->
                    decidePartition(
                        rows, since, until, keep, ApartPairs.fromArray(apart.value()), counters),
            Encoders.row(Decisions.SCHEMA));
  }

  private static Iterator<Row> decidePartition(
      Iterator<Row> rows,
      long since,
      long until,
      Keep.Columns keep,
      ApartPairs apart,
      Counters counters) {
    List<Row> out = new ArrayList<>();
    List<Row> group = new ArrayList<>();
    long groups = 0;
    while (rows.hasNext()) {
      Row row = rows.next();
      if (!group.isEmpty()
          && (row.getLong(3) != group.get(0).getLong(3)
              || row.getLong(4) != group.get(0).getLong(4))) {
        groups += decideGroup(group, since, until, keep, apart, out);
        group.clear();
      }
      group.add(row);
    }
    groups += decideGroup(group, since, until, keep, apart, out);
    counters.groups().add(groups);
    apart.honouredPairs().forEach(counters.honoured()::add);
    return out.iterator();
  }

  /**
   * Decides one group (rows of one key, any order); returns 1 when it is a group the pass decides.
   */
  private static int decideGroup(
      List<Row> group, long since, long until, Keep.Columns keep, ApartPairs apart, List<Row> out) {
    if (group.size() < 2
        || group.stream().noneMatch(r -> r.getLong(1) >= since && r.getLong(1) <= until)) {
      return 0;
    }
    Row[] members = group.toArray(new Row[0]);
    Arrays.sort(members, (a, b) -> keep.compare(b, a));
    long[] ids = new long[members.length];
    for (int i = 0; i < members.length; i++) {
      ids[i] = members[i].getLong(0);
    }
    int[] into = ApartClusters.removedFor(ids, apart);
    for (int i = 1; i < members.length; i++) {
      if (into[i] < 0) {
        continue; // marked apart from every cluster: it stays
      }
      Row d = members[i];
      Row kept = members[into[i]];
      out.add(
          Decisions.row(
              d.getLong(0),
              kept.getLong(0),
              ExactMethod.RULE.label,
              1.0,
              d.getLong(1),
              d.getLong(2),
              kept.getLong(1),
              kept.getLong(2)));
    }
    return 1;
  }
}
