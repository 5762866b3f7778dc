package org.xiaochong.method.simhash;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.Test;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.Window;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.simhash.SimhashIndex;

class SimhashPassTest {
  /**
   * The plan after the pass (chains not collapsed) over records id -> simhash, in this order; the
   * time of record id is id, so the largest id of a group is kept.
   */
  private static DeletionPlan run(
      Map<Long, Long> simhashes, int maxDistance, Window window, DeletionPlan plan)
      throws IOException {
    return run(simhashes, maxDistance, window, plan, ApartPairs.NONE);
  }

  private static DeletionPlan run(
      Map<Long, Long> simhashes,
      int maxDistance,
      Window window,
      DeletionPlan plan,
      ApartPairs apart)
      throws IOException {
    return run(simhashes, maxDistance, window, plan, apart, KeepPolicy.latest("reg_time"));
  }

  /**
   * As above under {@code policy}: the rank of record id is its time (id), or NULL for ids
   * divisible by 10.
   */
  private static DeletionPlan run(
      Map<Long, Long> simhashes,
      int maxDistance,
      Window window,
      DeletionPlan plan,
      ApartPairs apart,
      KeepPolicy policy)
      throws IOException {
    try (Directory dir = new ByteBuffersDirectory();
        IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig())) {
      int added = 0;
      for (Map.Entry<Long, Long> entry : simhashes.entrySet()) {
        Document doc = new Document();
        doc.add(new NumericDocValuesField(IndexSchema.ID, entry.getKey()));
        long time =
            policy.isLatest() || entry.getKey() % 10 != 0
                ? entry.getKey()
                : org.xiaochong.source.SourceRecord.NULL_TIME;
        doc.add(new NumericDocValuesField(IndexSchema.REG_TIME, time));
        IndexSchema.addRank(doc, policy.isLatest() ? null : policy.rank(time, Map.of()));
        SimhashIndex.addFields(doc, entry.getValue());
        writer.addDocument(doc);
        if (++added % 500 == 0) {
          writer.commit(); // several segments
        }
      }
      writer.commit();
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        new SimhashPass(new IndexSnapshot(reader, policy), maxDistance, apart).run(window, plan);
        return plan;
      }
    }
  }

  private static Map<Long, Long> removals(DeletionPlan plan) {
    Map<Long, Long> keptByRemoved = new HashMap<>();
    for (int i = 0; i < plan.size(); i++) {
      assertThat(keptByRemoved.put(plan.removedId(i), plan.keptId(i))).as("removed once").isNull();
    }
    return keptByRemoved;
  }

  @Test
  void run_earliest_keepsTheOldestOfEachPair_aNullTimeNever() throws IOException {
    long base = 0x0123_4567_89ab_cdefL;
    Map<Long, Long> records =
        new java.util.TreeMap<>(
            Map.of(
                1L,
                base,
                2L,
                base ^ 0b11L,
                3L,
                base ^ 0b1L, // one group: 1 is the oldest
                10L,
                ~base,
                11L,
                ~base ^ 0b1L)); // 10 has no time: 11 is kept though newer
    KeepPolicy earliest = KeepPolicy.parse("earliest", "reg_time");

    Map<Long, Long> removed =
        removals(run(records, 3, Window.ALL, new DeletionPlan(), ApartPairs.NONE, earliest));

    assertThat(removed).isEqualTo(Map.of(2L, 1L, 3L, 1L, 10L, 11L));
    assertThat(removals(run(records, 3, Window.ALL, new DeletionPlan())))
        .isEqualTo(Map.of(1L, 3L, 2L, 3L, 10L, 11L));
  }

  @Test
  void run_withinThreeFound_atFourNot() throws IOException {
    long base = 0x0123_4567_89ab_cdefL;
    Map<Long, Long> records =
        new java.util.TreeMap<>(
            Map.of(
                1L,
                base,
                2L,
                base ^ 0b111L, // distance 3, one block
                3L,
                ~base,
                4L,
                ~base ^ (1L | 1L << 16 | 1L << 32 | 1L << 48))); // distance 4, one bit per block

    Map<Long, Long> removed = removals(run(records, 3, Window.ALL, new DeletionPlan()));

    assertThat(removed).isEqualTo(Map.of(1L, 2L));
    assertThat(removals(run(records, 2, Window.ALL, new DeletionPlan()))).isEmpty();
  }

  @Test
  void run_pairMarkedApart_neitherRemovedForTheOther() throws IOException {
    long base = 0x0123_4567_89ab_cdefL;
    // 3 (kept: the latest) and 2 are marked; 1 is within 3 bits of both.
    Map<Long, Long> records =
        new java.util.TreeMap<>(Map.of(1L, base, 2L, base ^ 0b1L, 3L, base ^ 0b10L));
    ApartPairs apart = ApartPairs.of(2, 3);

    Map<Long, Long> removed = removals(run(records, 3, Window.ALL, new DeletionPlan(), apart));

    assertThat(removed).isEqualTo(Map.of(1L, 3L));
    assertThat(apart.honoured()).isEqualTo(1);
  }

  @Test
  void run_mostPreferredMatchMarked_recordStaysRatherThanGoingForTheNext() throws IOException {
    long base = 0x0123_4567_89ab_cdefL;
    // 3 and 2 hold the same fingerprint (exact twins, kept apart); 1 is marked apart from 3, its
    // most
    // preferred match, and must not be removed for 2 when 2's turn comes.
    Map<Long, Long> records = new java.util.TreeMap<>(Map.of(1L, base ^ 0b1L, 2L, base, 3L, base));
    ApartPairs apart = ApartPairs.of(1, 3, 2, 3);

    Map<Long, Long> removed = removals(run(records, 3, Window.ALL, new DeletionPlan(), apart));

    assertThat(removed).isEmpty();
  }

  /**
   * Clusters whose members are pairwise within 3 (the base and copies flipping subsets of one 3-bit
   * set), decoys at distance 4 from a base, and random fingerprints: the pass keeps the latest of
   * each group of records within 3 of each other, as a linear scan of all pairs finds them.
   */
  @Test
  void run_randomFingerprints_matchesLinearScan() throws IOException {
    SplittableRandom random = new SplittableRandom(15);
    Map<Long, Long> records = new HashMap<>();
    long id = 1;
    for (int cluster = 0; cluster < 400; cluster++) {
      long base = random.nextLong();
      int[] bits = random.ints(0, 64).distinct().limit(7).toArray();
      long three = 1L << bits[0] | 1L << bits[1] | 1L << bits[2];
      records.put(id++, base);
      for (int copy = random.nextInt(4); copy > 0; copy--) {
        records.put(id++, base ^ (three & random.nextLong()));
      }
      if (random.nextBoolean()) {
        records.put(id++, base ^ 1L << bits[3] ^ 1L << bits[4] ^ 1L << bits[5] ^ 1L << bits[6]);
      }
    }
    List<Long> ids = new ArrayList<>(records.keySet());
    java.util.Collections.shuffle(ids, new java.util.Random(15)); // doc order is not id order
    Map<Long, Long> shuffled = new java.util.LinkedHashMap<>();
    ids.forEach(i -> shuffled.put(i, records.get(i)));

    Map<Long, Long> expected = new HashMap<>();
    for (long a : ids) {
      long best = a;
      for (long b : ids) {
        if (Long.bitCount(records.get(a) ^ records.get(b)) <= 3
            && KeepPolicy.isPreferred(b, b, best, best)) {
          best = b;
        }
      }
      if (best != a) {
        expected.put(a, best);
      }
    }

    assertThat(expected).isNotEmpty();
    DeletionPlan plan = run(shuffled, 3, Window.ALL, new DeletionPlan());
    assertThat(removals(plan)).isEqualTo(expected);
    assertThat(plan.collapseChains())
        .as("the pass makes no chain: every kept row keeps its state")
        .isZero();
  }

  @Test
  void run_recordsInThePlan_takeNoPart_andTheWindowsCopiesFindOlderOnes() throws IOException {
    long base = 0x7777_0000_ffff_1234L;
    Map<Long, Long> records =
        new java.util.TreeMap<>(Map.of(1L, base, 2L, base ^ 1L, 3L, base ^ 2L, 4L, base ^ 4L));
    DeletionPlan plan = new DeletionPlan();
    plan.add(4L, 99L, DeletionPlan.Rule.of("exact"), 1.0);

    Map<Long, Long> removed = removals(run(records, 3, Window.ofIds(new long[] {3L}), plan));

    assertThat(removed).isEqualTo(Map.of(4L, 99L, 1L, 3L, 2L, 3L));
  }
}
