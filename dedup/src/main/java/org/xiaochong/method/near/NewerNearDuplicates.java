package org.xiaochong.method.near;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.method.near.index.NearSchema;
import org.xiaochong.pass.IndexSnapshot;

/**
 * Step 2 of the near pass ({@link NearPass}): each record of the window compared with every newer
 * record it meets ({@link NearCandidateIndex}: a shared phone, or one of its rarest keys); the near
 * duplicates among them ({@link NearRule#isNearDuplicate}) are kept best first (most similar, then
 * newest). Whether they are kept is decided in step 3, so this step does not depend on it and runs
 * in blocks on every core. Thread-safe: each worker thread has its own buffer of candidates.
 */
final class NewerNearDuplicates {
  /** The near duplicates found for a block of records, best first, and what finding them took. */
  static final class Block {
    final int[][] near;
    final double[][] scores;
    long lookups;
    long compared;
    long keysAlone;

    Block(int size) {
      near = new int[size][];
      scores = new double[size][];
    }
  }

  private final IndexSnapshot snapshot;
  private final NearConfig config;
  private final PassDocuments docs;
  private final FixedBitSet inWindow;
  private final KeyFrequencies frequencies;
  private final NearRule.KeyWeights weight;
  private final NearCandidateIndex index;
  private final ThreadLocal<FoundDocs> found;

  NewerNearDuplicates(
      IndexSnapshot snapshot,
      NearConfig config,
      PassDocuments docs,
      FixedBitSet inWindow,
      KeyFrequencies frequencies,
      NearRule.KeyWeights weight,
      NearCandidateIndex index) {
    this.snapshot = snapshot;
    this.config = config;
    this.docs = docs;
    this.inWindow = inWindow;
    this.frequencies = frequencies;
    this.weight = weight;
    this.index = index;
    int maxDoc = Math.max(1, snapshot.maxDoc());
    this.found = ThreadLocal.withInitial(() -> new FoundDocs(maxDoc));
  }

  /** The near duplicates of the records of the window at positions {@code [from, to)}. */
  Block find(int from, int to) throws IOException {
    FoundDocs candidates = found.get();
    Block block = new Block(to - from);
    for (int pos = from; pos < to; pos++) {
      int doc = docs.order()[pos];
      if (inWindow.get(doc)) {
        compare(pos, pos - from, candidates, block);
      }
    }
    return block;
  }

  /**
   * Compares the record at {@code pos} with every newer record it meets and keeps, in {@code
   * block}, the positions of its near duplicates (at {@code slot}) ordered best first: most
   * similar, then newest ({@link NearRule#isBetter}: the newest-first order is the keep policy's).
   */
  private void compare(int pos, int slot, FoundDocs candidates, Block block) throws IOException {
    List<LeafReaderContext> leaves = snapshot.leaves();
    int[] order = docs.order();
    int[] present = docs.present();
    int doc = order[pos];
    NearRule.Keys record = IndexedNearKeys.of(leaves, doc).withPresentFields(present[doc]);
    NearCandidates.Selection selection = NearPass.select(record, frequencies, config);
    block.keysAlone += selection.alone();
    block.lookups += index.forEach(pos, selection, true, other -> candidates.add(order[other]));
    if (candidates.size == 0) {
      return;
    }
    Arrays.sort(candidates.docs, 0, candidates.size); // forward-only doc values per segment
    int leafIndex = -1;
    BinaryDocValues values = null;
    int[] near = new int[8];
    double[] scores = new double[8];
    int found = 0;
    for (int c = 0; c < candidates.size; c++) {
      int g = candidates.docs[c];
      int li = ReaderUtil.subIndex(g, leaves);
      if (li != leafIndex) {
        leafIndex = li;
        values = leaves.get(li).reader().getBinaryDocValues(NearSchema.KEYS);
      }
      if (values == null || !values.advanceExact(g - leaves.get(li).docBase)) {
        continue;
      }
      block.compared++;
      long[] other = NearSchema.decode(values.binaryValue());
      IndexedNearKeys candidate =
          new IndexedNearKeys(leaves, g, other).withPresentFields(present[g]);
      if (!NearRule.isNearDuplicate(record, candidate, config, weight)) {
        continue;
      }
      if (found == near.length) {
        near = Arrays.copyOf(near, found * 2);
        scores = Arrays.copyOf(scores, found * 2);
      }
      near[found] = g;
      scores[found] = NearRule.similarity(record, candidate, weight);
      found++;
    }
    candidates.clear();
    if (found == 0) {
      return;
    }
    Integer[] rank = new Integer[found];
    for (int i = 0; i < found; i++) {
      rank[i] = i;
    }
    int[] nearDocs = near;
    double[] sims = scores;
    Arrays.sort(
        rank,
        (a, b) ->
            sims[a] != sims[b]
                ? Double.compare(sims[b], sims[a])
                : PassDocuments.compareNewestFirst(snapshot, nearDocs[a], nearDocs[b]));
    int[] nearPositions = new int[found];
    double[] nearScores = new double[found];
    for (int i = 0; i < found; i++) {
      nearPositions[i] = index.positionOf(nearDocs[rank[i]]);
      nearScores[i] = sims[rank[i]];
    }
    block.near[slot] = nearPositions;
    block.scores[slot] = nearScores;
  }
}
