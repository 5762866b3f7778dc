package org.xiaochong.spark.simhash;

import static org.apache.spark.sql.functions.col;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.util.BytesRef;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.CollectionAccumulator;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.method.simhash.SimhashMethod;
import org.xiaochong.simhash.SimhashIndex;
import org.xiaochong.spark.count.PartitionCounter;
import org.xiaochong.spark.graph.ComponentSizes;
import org.xiaochong.spark.graph.Components;
import org.xiaochong.spark.keep.Keep;
import org.xiaochong.spark.plan.Decisions;
import scala.Tuple2;

/**
 * The simhash pass as Spark stages, with the single machine's decisions ({@code SimhashPass}).
 *
 * <p>Candidates: each record's {@link SimhashIndex#BLOCKS} block terms ({@link
 * SimhashIndex#blockTerm}, the terms the simhash index holds); records sharing a term meet in a
 * join and a pair is kept when its fingerprints are within simhash.max-distance, as the single
 * machine's lookup keeps them. The pairs are independent of any decision, so they are computed at
 * once.
 *
 * <p>Decisions: the single machine walks the examined records from the most preferred down; a
 * record still there removes every less preferred neighbour (unless marked apart, or already kept
 * apart), else joins its most preferred neighbour still there. A record's fate then depends only on
 * the records of its connected component in the graph of pairs, so the walk is run per component
 * ({@link Components}), in the same order, with the same steps: the same decisions.
 */
public final class SimhashStage {
  static final StructType PAIRS =
      new StructType()
          .add("a", DataTypes.LongType)
          .add("b", DataTypes.LongType)
          .add("distance", DataTypes.IntegerType);

  private SimhashStage() {}

  /** What the stage counts on the executors, for the run's report. */
  public record Counters(
      PartitionCounter matches, CollectionAccumulator<long[]> honoured, ComponentSizes components)
      implements Serializable {}

  /**
   * The decisions for {@code records} (with columns id, time, crc, {@code simhash}, null without
   * features, and the rank's of {@link Keep}), those no earlier stage removed.
   */
  public static Dataset<Row> decide(
      SparkSession spark,
      Dataset<Row> records,
      int maxDistance,
      long since,
      long until,
      Broadcast<long[]> apart,
      long driverComponentSize,
      Counters counters) {
    String[] rank = Keep.rankColumnsIn(records.schema());
    Dataset<Row> valued =
        records
            .filter(col(SimhashSparkMethod.COLUMN).isNotNull())
            .select("id", concat(new String[] {"time", "crc", SimhashSparkMethod.COLUMN}, rank));
    Dataset<Row> blocks =
        valued.flatMap(
            (FlatMapFunction<Row, Row>)
                row -> {
                  List<Row> out = new ArrayList<>(SimhashIndex.BLOCKS);
                  for (int block = 0; block < SimhashIndex.BLOCKS; block++) {
                    BytesRef term = SimhashIndex.blockTerm(block, row.getLong(3));
                    int key = 0;
                    for (int i = 0; i < term.length; i++) {
                      key = key << 8 | term.bytes[term.offset + i] & 0xff;
                    }
                    out.add(RowFactory.create(key, row.getLong(0), row.getLong(3)));
                  }
                  return out.iterator();
                },
            Encoders.row(
                new StructType()
                    .add("block", DataTypes.IntegerType)
                    .add("id", DataTypes.LongType)
                    .add("value", DataTypes.LongType)));
    Dataset<Row> left = blocks.toDF("block", "a", "va");
    Dataset<Row> right = blocks.toDF("block", "b", "vb");
    Dataset<Row> pairs =
        left.join(right, "block")
            .filter(col("a").lt(col("b")))
            .select(
                col("a"),
                col("b"),
                org.apache
                    .spark
                    .sql
                    .functions
                    .bit_count(col("va").bitwiseXOR(col("vb")))
                    .cast(DataTypes.IntegerType)
                    .as("distance"))
            .filter(col("distance").leq(maxDistance))
            .distinct()
            .persist(org.apache.spark.storage.StorageLevel.MEMORY_AND_DISK());
    Dataset<Row> components =
        Components.of(pairs).persist(org.apache.spark.storage.StorageLevel.MEMORY_AND_DISK());
    long[] giants =
        counters
            .components()
            .measure(
                components.javaRDD().mapToPair(row -> new Tuple2<>(row.getLong(0), row.getLong(1))),
                driverComponentSize);
    Broadcast<long[]> onDriver =
        JavaSparkContext.fromSparkContext(spark.sparkContext()).broadcast(giants);
    Dataset<Row> memberRows =
        valued
            .join(components, "id")
            .select("component", concat(new String[] {"id", "time", "crc"}, rank));
    Keep.Columns keep = Keep.Columns.of(memberRows.schema());
    JavaPairRDD<Long, Row> members =
        memberRows.javaRDD().mapToPair(row -> new Tuple2<>(row.getLong(0), row));
    JavaPairRDD<Long, Row> edges =
        pairs
            .join(components, col("a").equalTo(col("id")))
            .select("component", "a", "b", "distance")
            .javaRDD()
            .mapToPair(row -> new Tuple2<>(row.getLong(0), row));
    JavaRDD<Row> decisions =
        members
            .filter(entry -> Arrays.binarySearch(onDriver.value(), entry._1()) < 0)
            .cogroup(edges.filter(entry -> Arrays.binarySearch(onDriver.value(), entry._1()) < 0))
            .mapPartitions(
                grouped -> {
                  ApartPairs marks = ApartPairs.fromArray(apart.value());
                  List<Row> out = new ArrayList<>();
                  long matches = 0;
                  while (grouped.hasNext()) {
                    Tuple2<Iterable<Row>, Iterable<Row>> component = grouped.next()._2();
                    matches +=
                        decideComponent(
                            component._1(), keep, component._2(), since, until, marks, out);
                  }
                  counters.matches().add(matches);
                  marks.honouredPairs().forEach(counters.honoured()::add);
                  return out.iterator();
                });
    if (giants.length > 0) {
      ApartPairs marks = ApartPairs.fromArray(apart.value());
      List<Row> out = new ArrayList<>();
      counters
          .components()
          .decideOnDriver(
              giants,
              members,
              edges,
              (componentMembers, componentEdges) ->
                  counters
                      .matches()
                      .add(
                          decideComponent(
                              componentMembers, keep, componentEdges, since, until, marks, out)));
      marks.honouredPairs().forEach(counters.honoured()::add);
      decisions =
          decisions.union(
              JavaSparkContext.fromSparkContext(spark.sparkContext()).parallelize(out, 1));
    }
    return spark.createDataFrame(decisions, Decisions.SCHEMA);
  }

  private static String[] concat(String[] first, String[] then) {
    String[] all = Arrays.copyOf(first, first.length + then.length);
    System.arraycopy(then, 0, all, first.length, then.length);
    return all;
  }

  /**
   * One member of a component: its id, time, checksum and keep rank ({@link Keep}), and its pairs
   * (neighbour id to distance).
   */
  private static final class Member {
    final long id;
    final long time;
    final long crc;
    final long rank;
    final long[] ranks;
    final Map<Long, Integer> neighbours = new HashMap<>();

    Member(Row row, Keep.Columns keep) {
      id = row.getLong(1);
      time = row.getLong(2);
      crc = row.getLong(3);
      rank = keep.rank(row);
      ranks = keep.ranks(row);
    }

    /** Positive when this record is kept over {@code other}. */
    int compareTo(Member other) {
      return Keep.compare(rank, ranks, id, other.rank, other.ranks, other.id);
    }
  }

  /**
   * The single machine's walk ({@code SimhashPass.run}) over one component; adds its decisions to
   * {@code out} and returns the pairs it looked at.
   */
  private static long decideComponent(
      Iterable<Row> memberRows,
      Keep.Columns keep,
      Iterable<Row> edgeRows,
      long since,
      long until,
      ApartPairs apart,
      List<Row> out) {
    Map<Long, Member> members = new HashMap<>();
    memberRows.forEach(row -> members.put(row.getLong(1), new Member(row, keep)));
    long matches = 0;
    for (Row edge : edgeRows) {
      Member a = members.get(edge.getLong(1));
      Member b = members.get(edge.getLong(2));
      a.neighbours.put(b.id, edge.getInt(3));
      b.neighbours.put(a.id, edge.getInt(3));
    }
    Member[] order = members.values().toArray(new Member[0]);
    Arrays.sort(order, (x, y) -> y.compareTo(x));
    Set<Long> removedNow = new HashSet<>();
    Set<Long> keptApart = new HashSet<>();
    for (Member doc : order) {
      if (doc.time < since || doc.time > until || removedNow.contains(doc.id)) {
        continue;
      }
      Member best = doc;
      for (Map.Entry<Long, Integer> neighbour : doc.neighbours.entrySet()) {
        Member other = members.get(neighbour.getKey());
        if (removedNow.contains(other.id)) {
          continue;
        }
        matches++;
        if (doc.compareTo(other) > 0) {
          if (keptApart.contains(other.id)) {
            continue;
          }
          if (apart.keepsApart(other.id, doc.id)) {
            keptApart.add(other.id);
            continue;
          }
          out.add(decision(other, doc, neighbour.getValue()));
          removedNow.add(other.id);
        } else if (other.compareTo(best) > 0) {
          best = other;
        }
      }
      if (best != doc && !keptApart.contains(doc.id) && !apart.keepsApart(doc.id, best.id)) {
        out.add(decision(doc, best, doc.neighbours.get(best.id)));
        removedNow.add(doc.id);
      }
    }
    return matches;
  }

  private static Row decision(Member removed, Member kept, int distance) {
    return Decisions.row(
        removed.id,
        kept.id,
        SimhashMethod.NAME,
        SimhashMethod.likeness(distance),
        removed.time,
        removed.crc,
        kept.time,
        kept.crc);
  }
}
