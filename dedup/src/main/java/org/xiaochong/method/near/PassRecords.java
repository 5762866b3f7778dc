package org.xiaochong.method.near;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntConsumer;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.pass.IndexSnapshot;

/**
 * The records of the near pass for {@link NearComponent}: positions of the newest-first order, with
 * the near duplicates step 2 found for each ({@link NewerNearDuplicates}). Keys are read from the
 * index on demand and the most recently used are held (groups meet their neighbours). Not
 * thread-safe.
 */
final class PassRecords implements NearComponent.Records {
  /** Records whose keys are held in memory, most recently used (groups meet their neighbours). */
  private static final int KEYS_HELD = 10_000;

  private final IndexSnapshot snapshot;
  private final NearConfig config;
  private final int[] order;
  private final int size;
  private final FixedBitSet inWindow;
  private final FixedBitSet allShort;
  private final int[][] nearOf;
  private final double[][] scoreOf;
  private final NearCandidateIndex index;
  private final KeyFrequencies frequencies;
  private final Map<Integer, NearRule.Keys> read =
      new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, NearRule.Keys> eldest) {
          return size() > KEYS_HELD;
        }
      };

  /**
   * @param nearOf per position, the positions of its near duplicates best first (null: none)
   * @param scoreOf per position, their similarities
   */
  PassRecords(
      IndexSnapshot snapshot,
      NearConfig config,
      PassDocuments docs,
      FixedBitSet inWindow,
      int[][] nearOf,
      double[][] scoreOf,
      NearCandidateIndex index,
      KeyFrequencies frequencies) {
    this.snapshot = snapshot;
    this.config = config;
    this.order = docs.order();
    this.size = docs.records();
    this.inWindow = inWindow;
    this.allShort = docs.allShort();
    this.nearOf = nearOf;
    this.scoreOf = scoreOf;
    this.index = index;
    this.frequencies = frequencies;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public long id(int pos) {
    return snapshot.id(order[pos]);
  }

  @Override
  public long rank(int pos) {
    return snapshot.rank(order[pos]);
  }

  @Override
  public boolean inWindow(int pos) {
    return inWindow.get(order[pos]);
  }

  @Override
  public boolean allShort(int pos) {
    return allShort.get(order[pos]);
  }

  @Override
  public int[] near(int pos) {
    return nearOf[pos];
  }

  @Override
  public double[] scores(int pos) {
    return scoreOf[pos];
  }

  @Override
  public void meets(int pos, IntConsumer sink) throws IOException {
    index.forEach(pos, NearPass.select(keys(pos), frequencies, config), false, sink);
  }

  @Override
  public NearRule.Keys keys(int pos) {
    return read.computeIfAbsent(pos, p -> IndexedNearKeys.stored(snapshot.leaves(), order[p]));
  }
}
