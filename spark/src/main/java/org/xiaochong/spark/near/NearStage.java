package org.xiaochong.spark.near;

import static org.xiaochong.spark.near.PassRows.INDEX;
import static org.xiaochong.spark.near.PassRows.LOOSE;
import static org.xiaochong.spark.near.PassRows.TEL;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.CollectionAccumulator;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.method.near.KeyFrequencies;
import org.xiaochong.method.near.NearCandidates;
import org.xiaochong.method.near.NearComponent;
import org.xiaochong.method.near.NearRule;
import org.xiaochong.method.near.fingerprint.NearOutcome;
import org.xiaochong.spark.count.PartitionCounter;
import org.xiaochong.spark.graph.ComponentSizes;
import org.xiaochong.spark.graph.Components;
import org.xiaochong.spark.keep.Keep;
import org.xiaochong.spark.near.PassRows.Found;
import org.xiaochong.spark.near.PassRows.Hit;
import org.xiaochong.spark.near.PassRows.Holder;
import org.xiaochong.spark.near.PassRows.Lookup;
import org.xiaochong.spark.near.PassRows.Member;
import org.xiaochong.spark.plan.Decisions;
import scala.Tuple2;

/**
 * The near pass as Spark stages, with the single machine's decisions ({@code NearPass}).
 *
 * <p>Frequencies: each key's holders among the records no earlier stage removed (the single
 * machine's near index leaves those out when it is built for the run), aggregated and broadcast;
 * the idf weights and the candidate selection read them.
 *
 * <p>Candidates: each record of the pass selects its keys by the single machine's code ({@link
 * NearCandidates#select}); its lookups (its phone keys when it is phone-blocked, its selected keys
 * rarest first) are joined with the postings of the records of the pass (every holder for phone
 * keys and for the lookups of a record that is not phone-blocked, the holders that are not
 * phone-blocked for the lookups of one that is). Per record, the lookups are then walked in their
 * order as the single machine's index walks them: a key is looked up unless {@link
 * NearCandidates#stopBefore} stops before it, counting the holders the earlier keys found (newer
 * ones for the comparisons, all for the merge). The candidates are verified with {@link
 * NearRule#isNearDuplicate} and scored with {@link NearRule#similarity}, best first.
 *
 * <p>Decisions: the verified pairs and the meetings of records that may merge by average linkage
 * make a graph; per connected component ({@link Components}) the records, newest first, go through
 * {@link NearComponent#decide}, the single machine's step 3 and merge.
 *
 * <p>Over 300 lines because {@link #decide} is the stage's chain of joins in the order the
 * algorithm needs them, each a few lines of Spark; what each step computes lives in {@link
 * CandidateWalk}, {@link ComponentDecisions}, {@link ShippedFrequencies} and {@link NearRecord}.
 */
public final class NearStage {
  private NearStage() {}

  /**
   * What the stage counts, for the run's report: the keys looked up, the pairs compared (to find
   * candidates, and in the merge), the marked pairs honoured, and the components.
   */
  public record Counters(
      PartitionCounter lookups,
      PartitionCounter compared,
      PartitionCounter merged,
      CollectionAccumulator<long[]> honoured,
      ComponentSizes components)
      implements Serializable {}

  /**
   * The decisions for {@code live} (the records no earlier stage removed; columns id, time, crc,
   * {@code near} and the rank's of {@link Keep}).
   */
  public static Dataset<Row> decide(
      SparkSession spark,
      Dataset<Row> live,
      Map<String, String> settings,
      long since,
      long until,
      Broadcast<long[]> apart,
      long driverComponentSize,
      Counters counters) {
    ShippedSettings near = new ShippedSettings(new HashMap<>(settings));
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    int nearColumn = live.schema().fieldIndex(NearSparkMethod.COLUMN);
    Keep.Columns keep = Keep.Columns.of(live.schema());

    // Frequencies over the records of the run, broadcast.
    Broadcast<ShippedFrequencies> frequencies =
        context.broadcast(ShippedFrequencies.count(live, nearColumn));

    // The records of the pass: fingerprinted, not removed by an earlier stage.
    JavaRDD<Member> members =
        live.javaRDD()
            .map(
                row ->
                    new Member(
                        row.getLong(0),
                        row.getLong(1),
                        row.getLong(2),
                        keep.rank(row),
                        keep.ranks(row),
                        (byte[]) row.get(nearColumn)))
            .filter(m -> NearRecord.decode(m.near()).outcome() == NearOutcome.OK)
            .persist(StorageLevel.MEMORY_AND_DISK());
    long looseRecords =
        members
            .filter(
                m ->
                    !NearCandidates.phoneBlocked(
                        NearRecord.decode(m.near()).keys().tel(), frequencies.value().holders()))
            .count();

    JavaPairRDD<Long, Holder> postings =
        members.flatMapToPair(
            m -> {
              KeyFrequencies f = frequencies.value().get();
              NearRule.Stored record = NearRecord.decode(m.near()).keys();
              boolean loose = !NearCandidates.phoneBlocked(record.tel(), f::get);
              List<Tuple2<Long, Holder>> out = new ArrayList<>();
              for (long key : record.keys()) {
                int df = f.get(key);
                if (df >= 2 && df <= NearCandidates.MAX_HOLDERS) {
                  out.add(
                      new Tuple2<>(key, new Holder(m.id(), m.keepRank(), m.keepRanks(), loose)));
                }
              }
              return out.iterator();
            });
    int pre = near.get().pre();
    JavaPairRDD<Long, Lookup> lookups =
        members
            .filter(m -> m.time() >= since && m.time() <= until)
            .flatMapToPair(
                m -> {
                  KeyFrequencies f = frequencies.value().get();
                  NearRule.Stored record = NearRecord.decode(m.near()).keys();
                  NearCandidates.Selection selection =
                      NearCandidates.select(record, record.tel(), f::get, 2, pre);
                  List<Tuple2<Long, Lookup>> out = new ArrayList<>();
                  if (selection.telBlocked()) {
                    for (long key : selection.tel()) {
                      out.add(
                          new Tuple2<>(
                              key,
                              new Lookup(
                                  m.id(), m.keepRank(), m.keepRanks(), TEL, -1, f.get(key))));
                    }
                    if (looseRecords == 0) {
                      counters.lookups().add(out.size());
                      return out.iterator();
                    }
                  }
                  long[] selected = selection.keys();
                  for (int i = 0; i < selected.length; i++) {
                    out.add(
                        new Tuple2<>(
                            selected[i],
                            new Lookup(
                                m.id(),
                                m.keepRank(),
                                m.keepRanks(),
                                selection.telBlocked() ? LOOSE : INDEX,
                                i,
                                f.get(selected[i]))));
                  }
                  counters.lookups().add(out.size());
                  return out.iterator();
                });
    JavaPairRDD<Long, Hit> hits =
        lookups
            .join(postings)
            .flatMapToPair(
                pair -> {
                  Lookup lookup = pair._2()._1();
                  Holder holder = pair._2()._2();
                  if (holder.id() == lookup.id() || (lookup.kind() == LOOSE && !holder.loose())) {
                    return java.util.Collections.emptyIterator();
                  }
                  boolean newer =
                      Keep.compare(
                              holder.keepRank(),
                              holder.keepRanks(),
                              holder.id(),
                              lookup.keepRank(),
                              lookup.keepRanks(),
                              lookup.id())
                          > 0;
                  return List.of(
                          new Tuple2<>(
                              lookup.id(),
                              new Hit(
                                  lookup.kind(),
                                  lookup.rank(),
                                  lookup.holders(),
                                  holder.id(),
                                  newer)))
                      .iterator();
                });

    JavaPairRDD<Long, Member> byId = members.mapToPair(m -> new Tuple2<>(m.id(), m));
    // Each record of the window with the records it meets (newer ones to compare, all to merge).
    JavaPairRDD<Long, long[][]> met =
        hits.groupByKey()
            .mapValues(
                found ->
                    new long[][] {
                      CandidateWalk.meetings(found, true), CandidateWalk.meetings(found, false)
                    });
    JavaPairRDD<Long, Member> candidates =
        met.flatMapToPair(
                entry -> {
                  List<Tuple2<Long, Long>> out = new ArrayList<>();
                  for (long other : entry._2()[0]) {
                    out.add(new Tuple2<>(other, entry._1()));
                  }
                  return out.iterator();
                })
            .join(byId)
            .mapToPair(pair -> new Tuple2<>(pair._2()._1(), pair._2()._2()));
    JavaRDD<Found> found =
        byId.filter(entry -> entry._2().time() >= since && entry._2().time() <= until)
            .cogroup(candidates, met)
            .flatMap(
                entry -> {
                  Iterator<Member> self = entry._2()._1().iterator();
                  if (!self.hasNext()) {
                    return java.util.Collections.emptyIterator();
                  }
                  Member record = self.next();
                  Iterator<long[][]> meetings = entry._2()._3().iterator();
                  NearRule.Stored keys = NearRecord.decode(record.near()).keys();
                  int present = keys.presentFields();
                  boolean allShort = present != 0 && (present & ~keys.shortFields()) == 0;
                  long[] meets = meetings.hasNext() && allShort ? meetings.next()[1] : new long[0];
                  return List.of(
                          CandidateWalk.verify(
                              record,
                              entry._2()._2(),
                              meets,
                              near.get(),
                              frequencies.value(),
                              counters))
                      .iterator();
                })
            .filter(f -> f.near().length > 0 || f.meets().length > 0)
            .persist(StorageLevel.MEMORY_AND_DISK());

    Dataset<Row> pairs =
        spark.createDataFrame(
            found.flatMap(
                f -> {
                  List<Row> out = new ArrayList<>();
                  for (long other : f.near()) {
                    out.add(RowFactory.create(f.id(), other));
                  }
                  for (long other : f.meets()) {
                    out.add(RowFactory.create(f.id(), other));
                  }
                  return out.iterator();
                }),
            new StructType().add("a", DataTypes.LongType).add("b", DataTypes.LongType));
    JavaPairRDD<Long, Long> component =
        Components.of(pairs.distinct())
            .javaRDD()
            .mapToPair(row -> new Tuple2<>(row.getLong(0), row.getLong(1)))
            .persist(StorageLevel.MEMORY_AND_DISK());
    long[] giants = counters.components().measure(component, driverComponentSize);
    Broadcast<long[]> onDriver = context.broadcast(giants);
    JavaPairRDD<Long, Member> componentMembers =
        byId.join(component).mapToPair(pair -> new Tuple2<>(pair._2()._2(), pair._2()._1()));
    JavaPairRDD<Long, Found> componentFound =
        found
            .mapToPair(f -> new Tuple2<>(f.id(), f))
            .join(component)
            .mapToPair(pair -> new Tuple2<>(pair._2()._2(), pair._2()._1()));
    JavaRDD<Row> decisions =
        componentMembers
            .filter(entry -> Arrays.binarySearch(onDriver.value(), entry._1()) < 0)
            .cogroup(
                componentFound.filter(
                    entry -> Arrays.binarySearch(onDriver.value(), entry._1()) < 0))
            .mapPartitions(
                grouped -> {
                  ApartPairs marks = ApartPairs.fromArray(apart.value());
                  List<Row> out = new ArrayList<>();
                  while (grouped.hasNext()) {
                    Tuple2<Iterable<Member>, Iterable<Found>> one = grouped.next()._2();
                    ComponentDecisions.decideComponent(
                        one._1(),
                        one._2(),
                        since,
                        until,
                        near.get(),
                        frequencies.value(),
                        marks,
                        counters.merged(),
                        out);
                  }
                  marks.honouredPairs().forEach(counters.honoured()::add);
                  return out.iterator();
                });
    if (giants.length > 0) {
      List<Row> decided =
          ComponentDecisions.decideOnDriver(
              giants,
              componentMembers,
              componentFound,
              since,
              until,
              near.get(),
              frequencies.value(),
              apart.value(),
              counters);
      decisions = decisions.union(context.parallelize(decided, 1));
    }
    return spark.createDataFrame(decisions, Decisions.SCHEMA);
  }
}
