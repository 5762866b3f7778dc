package org.xiaochong.spark.near;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.sql.Row;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.method.near.NearComponent;
import org.xiaochong.method.near.NearMethod;
import org.xiaochong.method.near.NearRule;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.spark.count.PartitionCounter;
import org.xiaochong.spark.near.PassRows.Found;
import org.xiaochong.spark.near.PassRows.Member;
import org.xiaochong.spark.plan.Decisions;

/**
 * The decisions of the near stage per connected component: {@link NearComponent#decide}, the single
 * machine's step 3 and merge, in a task or, for a component too large for one, on the driver.
 */
final class ComponentDecisions {
  private ComponentDecisions() {}

  /** {@link NearComponent#decide} over one component; adds its decisions to {@code out}. */
  static void decideComponent(
      Iterable<Member> memberList,
      Iterable<Found> foundList,
      long since,
      long until,
      NearConfig config,
      ShippedFrequencies frequencies,
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
                NearMethod.NAME,
                result.score()[pos],
                removed.time(),
                removed.crc(),
                kept.time(),
                kept.crc()));
      }
    }
  }

  /**
   * Decides the components of {@code giants} on the driver, one at a time, with the same code as
   * the executors: a component too large for one task's memory (a boilerplate template shared by a
   * million posts) is collected whole, and the driver, sized for it ({@code spark.driver.memory}),
   * walks it in the single machine's order. Rounds over a giant component (each record deciding
   * once all its newer neighbours have) would spread it, but the merge by average linkage reads the
   * groups as they grow, which rounds cannot give without replaying the walk.
   */
  static List<Row> decideOnDriver(
      long[] giants,
      JavaPairRDD<Long, Member> componentMembers,
      JavaPairRDD<Long, Found> componentFound,
      long since,
      long until,
      NearConfig config,
      ShippedFrequencies frequencies,
      long[] apart,
      NearStage.Counters counters) {
    ApartPairs marks = ApartPairs.fromArray(apart);
    List<Row> out = new ArrayList<>();
    counters
        .components()
        .decideOnDriver(
            giants,
            componentMembers,
            componentFound,
            (members, found) ->
                decideComponent(
                    members,
                    found,
                    since,
                    until,
                    config,
                    frequencies,
                    marks,
                    counters.merged(),
                    out));
    marks.honouredPairs().forEach(counters.honoured()::add);
    return out;
  }
}
