package org.xiaochong.spark.near;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntConsumer;
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
import org.xiaochong.fingerprint.NearConfig;
import org.xiaochong.fingerprint.NearOutcome;
import org.xiaochong.method.near.KeyFrequencies;
import org.xiaochong.method.near.NearCandidates;
import org.xiaochong.method.near.NearComponent;
import org.xiaochong.method.near.NearRule;
import org.xiaochong.method.near.NearSettings;
import org.xiaochong.spark.count.PartitionCounter;
import org.xiaochong.spark.graph.ComponentSizes;
import org.xiaochong.spark.graph.Components;
import org.xiaochong.spark.keep.Keep;
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

  private static final int TEL = 0;
  private static final int INDEX = 1;
  private static final int LOOSE = 2;

  /**
   * A record of the pass: its id, time, checksum, keep rank ({@link Keep}: the first long, the
   * whole rank when it has more) and encoded keys.
   */
  private record Member(long id, long time, long crc, long keepRank, long[] keepRanks, byte[] near)
      implements Serializable {
    /** Positive when this record is kept over {@code other}. */
    int compareKeep(Member other) {
      return Keep.compare(keepRank, keepRanks, id, other.keepRank, other.keepRanks, other.id);
    }
  }

  /** A key's holder: a record of the pass, its keep rank, and whether it is phone-blocked. */
  private record Holder(long id, long keepRank, long[] keepRanks, boolean loose)
      implements Serializable {}

  /**
   * One lookup of a record (with its keep rank): its kind, its rank in the record's lookups, the
   * key's holders.
   */
  private record Lookup(long id, long keepRank, long[] keepRanks, int kind, int rank, int holders)
      implements Serializable {}

  /** A lookup that found a holder. */
  private record Hit(int kind, int rank, int holders, long other, boolean newer)
      implements Serializable {}

  /** What a record of the window found: its newer near duplicates best first, and its meetings. */
  private record Found(long id, long[] near, double[] scores, long[] meets)
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
    Settings near = new Settings(new HashMap<>(settings));
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    int nearColumn = live.schema().fieldIndex("near");
    Keep.Columns keep = Keep.Columns.of(live.schema());

    // Frequencies over the records of the run, broadcast.
    JavaPairRDD<Long, Integer> counts =
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
            .reduceByKey(Integer::sum);
    List<Tuple2<Long, Integer>> collected = counts.collect();
    long[] heldKeys = new long[collected.size()];
    int[] holders = new int[collected.size()];
    for (int i = 0; i < heldKeys.length; i++) {
      heldKeys[i] = collected.get(i)._1();
      holders[i] = collected.get(i)._2();
    }
    long records = live.count();
    Broadcast<Frequencies> frequencies =
        context.broadcast(new Frequencies(heldKeys, holders, records));

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
            .mapValues(found -> new long[][] {meetings(found, true), meetings(found, false)});
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
                          verify(
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
                  ApartPairs marks = ApartPairs.of(apart.value());
                  List<Row> out = new ArrayList<>();
                  while (grouped.hasNext()) {
                    Tuple2<Iterable<Member>, Iterable<Found>> one = grouped.next()._2();
                    decideComponent(
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
                  honoured(marks, counters);
                  return out.iterator();
                });
    if (giants.length > 0) {
      List<Row> decided =
          decideOnDriver(
              giants,
              componentMembers.persist(StorageLevel.MEMORY_AND_DISK()),
              componentFound.persist(StorageLevel.MEMORY_AND_DISK()),
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

  /**
   * Decides the components of {@code giants} on the driver, one at a time, with the same code as
   * the executors: a component too large for one task's memory (a boilerplate template shared by a
   * million posts) is collected whole, and the driver, sized for it ({@code spark.driver.memory}),
   * walks it in the single machine's order. Rounds over a giant component (each record deciding
   * once all its newer neighbours have) would spread it, but the merge by average linkage reads the
   * groups as they grow, which rounds cannot give without replaying the walk.
   */
  private static List<Row> decideOnDriver(
      long[] giants,
      JavaPairRDD<Long, Member> componentMembers,
      JavaPairRDD<Long, Found> componentFound,
      long since,
      long until,
      NearConfig config,
      Frequencies frequencies,
      long[] apart,
      Counters counters) {
    long start = System.nanoTime();
    ApartPairs marks = ApartPairs.of(apart);
    List<Row> out = new ArrayList<>();
    try {
      for (long giant : giants) {
        List<Member> members = componentMembers.filter(e -> e._1() == giant).values().collect();
        List<Found> found = componentFound.filter(e -> e._1() == giant).values().collect();
        decideComponent(
            members, found, since, until, config, frequencies, marks, counters.merged(), out);
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } finally {
      componentMembers.unpersist();
      componentFound.unpersist();
    }
    honoured(marks, counters);
    counters.components().decidedOnDriver(System.nanoTime() - start);
    return out;
  }

  private static void honoured(ApartPairs marks, Counters counters) {
    for (int i = 0; i < marks.size(); i++) {
      if (marks.honoured(i)) {
        counters.honoured().add(new long[] {marks.smaller(i), marks.larger(i)});
      }
    }
  }

  /**
   * What the near report counts of the records of the window in {@code live}, as the single
   * machine's near pass counts them.
   *
   * @param examined the records of the window
   * @param empty those without fingerprints, per reason (lower-case {@link NearOutcome} names in
   *     their order): only the exact pass can remove them
   * @param truncated those whose text was cut to near.max-chars
   */
  public record WindowCounts(long examined, Map<String, Long> empty, long truncated) {}

  /** The {@link WindowCounts} of {@code live}, in one pass. */
  public static WindowCounts windowCounts(Dataset<Row> live, long since, long until) {
    int nearColumn = live.schema().fieldIndex("near");
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

  /**
   * The records one record meets, as the single machine's candidate index hands them: its phone
   * keys' holders, then its keys rarest first until {@link NearCandidates#stopBefore} stops, over
   * the holders found so far ({@code newerOnly}: the newer ones, else all).
   */
  private static long[] meetings(Iterable<Hit> hits, boolean newerOnly) {
    List<Hit> sorted = new ArrayList<>();
    hits.forEach(
        hit -> {
          if (hit.newer() || !newerOnly) {
            sorted.add(hit);
          }
        });
    sorted.sort(
        (a, b) ->
            a.rank() != b.rank()
                ? Integer.compare(a.rank(), b.rank())
                : Long.compare(a.other(), b.other()));
    Set<Long> out = new LinkedHashSet<>();
    int found = 0;
    for (int i = 0; i < sorted.size(); ) {
      Hit first = sorted.get(i);
      int j = i;
      while (j < sorted.size() && sorted.get(j).rank() == first.rank()) {
        j++;
      }
      if (first.kind() != TEL && NearCandidates.stopBefore(first.holders(), found)) {
        break;
      }
      for (int k = i; k < j; k++) {
        out.add(sorted.get(k).other());
      }
      if (first.kind() != TEL) {
        found += j - i;
      }
      i = j;
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  /**
   * The near duplicates of {@code record} among its newer candidates, best first (most similar,
   * then newest: {@code NearPass.compare}).
   */
  private static Found verify(
      Member record,
      Iterable<Member> candidates,
      long[] meets,
      NearConfig config,
      Frequencies frequencies,
      Counters counters) {
    NearRule.KeyWeights weight = frequencies.get().weights();
    NearRule.Stored keys = NearRecord.decode(record.near()).keys();
    List<Member> near = new ArrayList<>();
    List<Double> scores = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    long compared = 0;
    for (Member candidate : candidates) {
      if (!seen.add(candidate.id())) {
        continue;
      }
      compared++;
      NearRule.Stored other = NearRecord.decode(candidate.near()).keys();
      if (NearRule.isNearDuplicate(keys, other, config, weight)) {
        near.add(candidate);
        scores.add(NearRule.similarity(keys, other, weight));
      }
    }
    counters.compared().add(compared);
    Integer[] rank = new Integer[near.size()];
    for (int i = 0; i < rank.length; i++) {
      rank[i] = i;
    }
    Arrays.sort(
        rank,
        (a, b) ->
            !scores.get(a).equals(scores.get(b))
                ? Double.compare(scores.get(b), scores.get(a))
                : near.get(b).compareKeep(near.get(a)));
    long[] ids = new long[rank.length];
    double[] sims = new double[rank.length];
    for (int i = 0; i < rank.length; i++) {
      ids[i] = near.get(rank[i]).id();
      sims[i] = scores.get(rank[i]);
    }
    return new Found(record.id(), ids, sims, meets);
  }

  /** {@link NearComponent#decide} over one component; adds its decisions to {@code out}. */
  private static void decideComponent(
      Iterable<Member> memberList,
      Iterable<Found> foundList,
      long since,
      long until,
      NearConfig config,
      Frequencies frequencies,
      ApartPairs apart,
      PartitionCounter merged,
      List<Row> out)
      throws java.io.IOException {
    List<Member> sorted = new ArrayList<>();
    memberList.forEach(sorted::add);
    sorted.sort((x, y) -> y.compareKeep(x));
    Map<Long, Integer> position = new HashMap<>();
    for (int i = 0; i < sorted.size(); i++) {
      position.put(sorted.get(i).id(), i);
    }
    int n = sorted.size();
    int[][] near = new int[n][];
    double[][] scores = new double[n][];
    int[][] meets = new int[n][];
    for (Found f : foundList) {
      int pos = position.get(f.id());
      if (f.near().length > 0) {
        near[pos] = new int[f.near().length];
        for (int i = 0; i < f.near().length; i++) {
          near[pos][i] = position.get(f.near()[i]);
        }
        scores[pos] = f.scores();
      }
      meets[pos] = new int[f.meets().length];
      for (int i = 0; i < f.meets().length; i++) {
        meets[pos][i] = position.get(f.meets()[i]);
      }
    }
    NearRule.Stored[] keys = new NearRule.Stored[n];
    for (int i = 0; i < n; i++) {
      keys[i] = NearRecord.decode(sorted.get(i).near()).keys();
    }
    NearComponent.Result result =
        NearComponent.decide(
            new NearComponent.Records() {
              @Override
              public int size() {
                return n;
              }

              @Override
              public long id(int pos) {
                return sorted.get(pos).id();
              }

              /** The position in the preference order: the more preferred, the larger. */
              @Override
              public long rank(int pos) {
                return -pos;
              }

              @Override
              public boolean inWindow(int pos) {
                long time = sorted.get(pos).time();
                return time >= since && time <= until;
              }

              @Override
              public boolean allShort(int pos) {
                int present = keys[pos].presentFields();
                return present != 0 && (present & ~keys[pos].shortFields()) == 0;
              }

              @Override
              public int[] near(int pos) {
                return near[pos];
              }

              @Override
              public double[] scores(int pos) {
                return scores[pos];
              }

              @Override
              public void meets(int pos, IntConsumer sink) {
                if (meets[pos] != null) {
                  for (int other : meets[pos]) {
                    sink.accept(other);
                  }
                }
              }

              @Override
              public NearRule.Keys keys(int pos) {
                return keys[pos];
              }
            },
            config,
            frequencies.get().weights(),
            apart);
    merged.add(result.pairsCompared());
    for (int pos = 0; pos < n; pos++) {
      if (result.isRemoved(pos)) {
        Member removed = sorted.get(pos);
        Member kept = sorted.get(result.survivor()[pos]);
        out.add(
            Decisions.row(
                removed.id(),
                kept.id(),
                "near",
                result.score()[pos],
                removed.time(),
                removed.crc(),
                kept.time(),
                kept.crc()));
      }
    }
  }

  /** The near settings as shipped to the executors, read once per executor. */
  static final class Settings implements Serializable {
    private final HashMap<String, String> values;
    private transient volatile NearConfig config;

    Settings(HashMap<String, String> values) {
      this.values = values;
    }

    NearConfig get() {
      NearConfig c = config;
      if (c == null) {
        c = NearSettings.of(values);
        config = c;
      }
      return c;
    }
  }

  /**
   * The key frequencies as broadcast: the counts, and the single machine's {@link KeyFrequencies}
   * built from them once per executor.
   */
  static final class Frequencies implements Serializable {
    private final long[] keys;
    private final int[] counts;
    private final long records;
    private transient volatile KeyFrequencies built;

    Frequencies(long[] keys, int[] counts, long records) {
      this.keys = keys;
      this.counts = counts;
      this.records = records;
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
}
