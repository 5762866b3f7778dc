package org.xiaochong.spark.linkage;

import static org.apache.spark.sql.functions.col;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.api.java.function.FlatMapGroupsFunction;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.CollectionAccumulator;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.method.linkage.FrozenLinkage;
import org.xiaochong.method.linkage.LinkageCounts;
import org.xiaochong.method.linkage.LinkageGroups;
import org.xiaochong.method.linkage.LinkageMethod;
import org.xiaochong.spark.count.PartitionCounter;
import org.xiaochong.spark.graph.Components;
import org.xiaochong.spark.keep.Keep;
import org.xiaochong.spark.plan.Decisions;

/**
 * The linkage pass as Spark stages, with the single machine's decisions ({@code LinkagePass}), from
 * the model frozen with the single machine's linkage index ({@link FrozenLinkage}):
 *
 * <ol>
 *   <li>candidates: every record's blocking keys meet in a shuffle by key; each key gives its
 *       holders (a rare key) or the holders after each one by id (a common key) to the records of
 *       the window, and each of those chooses its candidates from its keys as the single machine's
 *       lookup does ({@link CandidateChoice}). Records an earlier stage removed take no part, as
 *       they are out of the single machine's linkage index for its pass;
 *   <li>links: candidate pairs whose match probability reaches the threshold, unless marked apart;
 *   <li>groups: connected components of the links ({@link Components}), each decided in one task as
 *       the single machine decides a group: its most preferred record keeps the members whose own
 *       probability with it reaches the threshold ({@link LinkageGroups}), and the others are
 *       grouped again ({@link LinkageGroups#regroup}).
 * </ol>
 */
final class LinkageStage {
  private static final StructType KEYS =
      new StructType()
          .add("key", DataTypes.StringType, false)
          .add("id", DataTypes.LongType, false)
          .add("position", DataTypes.IntegerType, false)
          .add("asks", DataTypes.BooleanType, false);

  private static final StructType HOLDINGS =
      new StructType()
          .add("id", DataTypes.LongType, false)
          .add("position", DataTypes.IntegerType, false)
          .add("key", DataTypes.StringType, false)
          .add("frequency", DataTypes.IntegerType, false)
          .add("rare", DataTypes.BooleanType, false)
          .add("holders", DataTypes.BinaryType, false);

  private static final StructType CANDIDATES =
      new StructType()
          .add("a", DataTypes.LongType, false)
          .add("b", DataTypes.LongType, false)
          .add("postings", DataTypes.LongType, false);

  private LinkageStage() {}

  /**
   * The stage's decisions (rows of {@link Decisions#SCHEMA}) and, once they are computed, its
   * counts given the removals the run's plan holds of them.
   */
  record Outcome(Dataset<Row> decisions, java.util.function.LongFunction<LinkageCounts> counts) {}

  /**
   * The decisions over {@code live} (the records no earlier stage removed, with id, time, crc, the
   * rank's columns and {@code linkage}).
   *
   * @param examined the records of the run's window, those earlier stages removed among them
   */
  static Outcome decide(
      SparkSession spark,
      Dataset<Row> live,
      FrozenLinkage rules,
      long since,
      long until,
      long examined,
      Broadcast<long[]> apart,
      CollectionAccumulator<long[]> honoured) {
    String[] rank = Keep.rankColumnsIn(live.schema());
    Dataset<Row> valued =
        live.select("id", concat(new String[] {"time", "crc", LinkageSparkMethod.COLUMN}, rank));
    long docCount = live.count();
    long inWindow = live.filter(col("time").between(since, until)).count();
    Dataset<Row> keys =
        valued.flatMap(
            (FlatMapFunction<Row, Row>)
                row -> {
                  long id = row.getLong(0);
                  long time = row.getLong(1);
                  boolean asks = time >= since && time <= until;
                  List<String> all = rules.keys(split(row.getString(3)));
                  List<Row> out = new ArrayList<>(all.size());
                  for (int i = 0; i < all.size(); i++) {
                    out.add(RowFactory.create(all.get(i), id, i, asks));
                  }
                  return out.iterator();
                },
            Encoders.row(KEYS));
    PartitionCounter commonReads =
        PartitionCounter.create(spark.sparkContext(), "linkage common key reads");
    int maxHolders = rules.maxHolders();
    Dataset<Row> holdings =
        keys.groupByKey((MapFunction<Row, String>) row -> row.getString(0), Encoders.STRING())
            .flatMapGroups(
                (FlatMapGroupsFunction<String, Row, Row>)
                    (key, rows) -> holdings(key, rows, maxHolders, commonReads),
                Encoders.row(HOLDINGS));
    Dataset<Row> candidates =
        holdings
            .groupByKey((MapFunction<Row, Long>) row -> row.getLong(0), Encoders.LONG())
            .flatMapGroups(
                (FlatMapGroupsFunction<Long, Row, Row>)
                    (id, rows) -> {
                      CandidateChoice choice =
                          new CandidateChoice(docCount, maxHolders, rules.candidates());
                      List<CandidateChoice.Key> own = new ArrayList<>();
                      rows.forEachRemaining(
                          row ->
                              own.add(
                                  new CandidateChoice.Key(
                                      row.getString(2),
                                      row.getInt(1),
                                      row.getInt(3),
                                      row.getBoolean(4),
                                      longs((byte[]) row.get(5)))));
                      long[] chosen = choice.choose(own);
                      // The first row counts the lookup's postings; b = -1 is no candidate.
                      List<Row> out = new ArrayList<>();
                      out.add(RowFactory.create(id, -1L, choice.postings()));
                      for (long other : chosen) {
                        out.add(RowFactory.create(id, other, 0L));
                      }
                      return out.iterator();
                    },
                Encoders.row(CANDIDATES))
            .persist(StorageLevel.MEMORY_AND_DISK());
    Dataset<Row> pairs = candidates.filter(col("b").geq(0));
    Dataset<Row> left = valued.select(col("id").as("a"), col(LinkageSparkMethod.COLUMN).as("va"));
    Dataset<Row> right = valued.select(col("id").as("b"), col(LinkageSparkMethod.COLUMN).as("vb"));
    Dataset<Row> links =
        pairs
            .join(left, "a")
            .join(right, "b")
            .select("a", "b", "va", "vb")
            .mapPartitions(
                (MapPartitionsFunction<Row, Row>)
                    rows -> {
                      ApartPairs marks = ApartPairs.fromArray(apart.value());
                      List<Row> out = new ArrayList<>();
                      while (rows.hasNext()) {
                        Row row = rows.next();
                        double p =
                            rules.probability(split(row.getString(2)), split(row.getString(3)));
                        if (p >= rules.threshold()
                            && !marks.keepsApart(row.getLong(0), row.getLong(1))) {
                          out.add(RowFactory.create(row.getLong(0), row.getLong(1)));
                        }
                      }
                      marks.honouredPairs().forEach(honoured::add);
                      return out.iterator();
                    },
                Encoders.row(
                    new StructType()
                        .add("a", DataTypes.LongType, false)
                        .add("b", DataTypes.LongType, false)))
            .persist(StorageLevel.MEMORY_AND_DISK());
    Dataset<Row> components = Components.of(links).persist(StorageLevel.MEMORY_AND_DISK());
    Dataset<Row> members =
        valued
            .join(components, "id")
            .select(
                "component",
                concat(new String[] {"id", "time", "crc", LinkageSparkMethod.COLUMN}, rank));
    Keep.Columns keep = Keep.Columns.of(members.schema());
    PartitionCounter indirect = PartitionCounter.create(spark.sparkContext(), "linkage indirect");
    Dataset<Row> decisions =
        members
            .groupByKey((MapFunction<Row, Long>) row -> row.getLong(0), Encoders.LONG())
            .flatMapGroups(
                (FlatMapGroupsFunction<Long, Row, Row>)
                    (component, rows) -> {
                      List<Row> group = new ArrayList<>();
                      rows.forEachRemaining(group::add);
                      ApartPairs marks = ApartPairs.fromArray(apart.value());
                      List<Row> out = new ArrayList<>();
                      indirect.add(decideGroup(group, keep, rules, marks, out));
                      marks.honouredPairs().forEach(honoured::add);
                      return out.iterator();
                    },
                Encoders.row(Decisions.SCHEMA));
    return new Outcome(
        decisions,
        removed -> {
          Row sums =
              candidates
                  .agg(
                      org.apache.spark.sql.functions.sum(
                          org.apache.spark.sql.functions.when(col("b").geq(0), 1).otherwise(0)),
                      org.apache.spark.sql.functions.sum("postings"))
                  .first();
          LinkageCounts counts =
              new LinkageCounts(
                  inWindow,
                  removed,
                  examined - inWindow,
                  sums.isNullAt(0) ? 0 : sums.getLong(0),
                  links.count(),
                  components.select("component").distinct().count(),
                  indirect.value(),
                  (sums.isNullAt(1) ? 0 : sums.getLong(1)) + commonReads.value());
          candidates.unpersist();
          links.unpersist();
          components.unpersist();
          return counts;
        });
  }

  /**
   * The holdings of one key: for each holder that looks up candidates, the key's other holders (a
   * key of at most {@code maxHolders}) or its next {@link FrozenLinkage#NEIGHBOURS} holders by id,
   * wrapping around (a common key). A key of one holder gives none.
   */
  private static Iterator<Row> holdings(
      String key, Iterator<Row> rows, int maxHolders, PartitionCounter commonReads) {
    List<long[]> holders = new ArrayList<>(); // {id, position, asks}
    boolean anyAsks = false;
    while (rows.hasNext()) {
      Row row = rows.next();
      holders.add(new long[] {row.getLong(1), row.getInt(2), row.getBoolean(3) ? 1 : 0});
      anyAsks |= row.getBoolean(3);
    }
    int n = holders.size();
    if (n < 2 || !anyAsks) {
      return java.util.Collections.emptyIterator();
    }
    holders.sort((a, b) -> Long.compare(a[0], b[0]));
    boolean rare = n <= maxHolders;
    if (!rare) {
      commonReads.add(n);
    }
    List<Row> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long[] holder = holders.get(i);
      if (holder[2] == 0) {
        continue;
      }
      ByteBuffer others;
      if (rare) {
        others = ByteBuffer.allocate(Long.BYTES * (n - 1));
        for (int j = 0; j < n; j++) {
          if (j != i) {
            others.putLong(holders.get(j)[0]);
          }
        }
      } else {
        int next = Math.min(FrozenLinkage.NEIGHBOURS, n - 1);
        others = ByteBuffer.allocate(Long.BYTES * next);
        for (int j = 0; j < next; j++) {
          others.putLong(holders.get((i + 1 + j) % n)[0]);
        }
      }
      out.add(RowFactory.create(holder[0], (int) holder[1], key, n, rare, others.array()));
    }
    return out.iterator();
  }

  /**
   * One group, as the single machine's pass decides it: its most preferred member is kept; each
   * other member not marked apart from it is removed in its favour when their own match probability
   * reaches the threshold ({@link LinkageGroups}), and the rest are grouped again. Returns the
   * members left alone.
   */
  private static long decideGroup(
      List<Row> group, Keep.Columns keep, FrozenLinkage rules, ApartPairs apart, List<Row> out) {
    Row[] members = group.toArray(new Row[0]);
    String[][] values = new String[members.length][];
    int kept = 0;
    for (int i = 0; i < members.length; i++) {
      values[i] = split(members[i].getString(4));
      if (keep.compare(members[i], members[kept]) > 0) {
        kept = i;
      }
    }
    int[] left = new int[members.length];
    int n = 0;
    for (int i = 0; i < members.length; i++) {
      if (i == kept || apart.keepsApart(members[i].getLong(1), members[kept].getLong(1))) {
        continue;
      }
      double direct = rules.probability(values[i], values[kept]);
      if (direct < rules.threshold()) {
        left[n++] = i;
      } else {
        out.add(decision(members[i], members[kept], direct));
      }
    }
    return LinkageGroups.regroup(
        left,
        n,
        rules.threshold(),
        new LinkageGroups.Regrouping() {
          @Override
          public boolean preferred(int a, int b) {
            return keep.compare(members[a], members[b]) > 0;
          }

          @Override
          public double probability(int member, int keptMember) {
            return apart.keepsApart(members[member].getLong(1), members[keptMember].getLong(1))
                ? 0
                : rules.probability(values[member], values[keptMember]);
          }

          @Override
          public void remove(int member, int keptMember, double probability) {
            out.add(decision(members[member], members[keptMember], probability));
          }
        });
  }

  private static Row decision(Row removed, Row kept, double probability) {
    return Decisions.row(
        removed.getLong(1),
        kept.getLong(1),
        LinkageMethod.NAME,
        probability,
        removed.getLong(2),
        removed.getLong(3),
        kept.getLong(2),
        kept.getLong(3));
  }

  /** A record's compared values from the column that carries them joined. */
  static String[] split(String joined) {
    return joined.split(String.valueOf(LinkageSparkMethod.SEPARATOR), -1);
  }

  private static long[] longs(byte[] bytes) {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    long[] values = new long[bytes.length / Long.BYTES];
    for (int i = 0; i < values.length; i++) {
      values[i] = buffer.getLong();
    }
    return values;
  }

  private static String[] concat(String[] first, String[] then) {
    String[] all = Arrays.copyOf(first, first.length + then.length);
    System.arraycopy(then, 0, all, first.length, then.length);
    return all;
  }
}
