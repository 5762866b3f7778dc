package org.xiaochong.method.near;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.util.Bits;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.method.near.fingerprint.NearOutcome;
import org.xiaochong.method.near.fingerprint.NearSimilarity;
import org.xiaochong.method.near.index.NearSchema;

/**
 * Why the near rule did not join two records of a near index, for {@code eval}'s report of the true
 * pairs a run lost: the first reason in this order.
 *
 * <ul>
 *   <li>{@code no fingerprints}: a record is not in the index or has no keys ({@link NearOutcome});
 *   <li>{@code not a candidate}: the two records do not meet ({@link NearCandidates#meet}), so the
 *       pass never compares them;
 *   <li>the first test of {@link NearRule#why} they fail, the similarity ones with the similarity
 *       in tenths ({@code similarity 0.5-0.6});
 *   <li>{@code rule passes, greedy}: the rule joins them, but the pass had already removed one of
 *       the two in favour of a third record, or kept both before they met.
 * </ul>
 *
 * Not thread-safe.
 */
public final class NearExplain {
  private final List<LeafReaderContext> leaves;
  private final NearConfig config;
  private final KeyFrequencies frequencies;
  private final NearRule.KeyWeights weight;
  private final Map<Long, Integer> docOfId = new HashMap<>();

  public NearExplain(DirectoryReader reader, NearConfig config) {
    this.leaves = reader.leaves();
    this.config = config;
    try {
      this.frequencies = KeyFrequencies.live(leaves, NearSchema.KEY, NearSchema.KEYS);
      for (LeafReaderContext leaf : leaves) {
        NumericDocValues ids = leaf.reader().getNumericDocValues(IndexSchema.ID);
        NumericDocValues outcomes = leaf.reader().getNumericDocValues(NearSchema.OUTCOME);
        Bits live = leaf.reader().getLiveDocs();
        for (int d = 0; d < leaf.reader().maxDoc(); d++) {
          if ((live != null && !live.get(d)) || ids == null || !ids.advanceExact(d)) {
            continue;
          }
          long id = ids.longValue();
          boolean ok =
              outcomes != null
                  && outcomes.advanceExact(d)
                  && NearSchema.outcome(outcomes.longValue()) == NearOutcome.OK;
          if (ok) {
            docOfId.put(id, leaf.docBase + d);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    frequencies.useWeights(frequencies.records());
    this.weight = frequencies.weights();
  }

  /** The reason for one pair of record ids. */
  public String reason(long idA, long idB) {
    Integer a = docOfId.get(idA);
    Integer b = docOfId.get(idB);
    if (a == null || b == null) {
      return "no fingerprints";
    }
    NearRule.Keys keysA = IndexedNearKeys.of(leaves, a);
    NearRule.Keys keysB = IndexedNearKeys.of(leaves, b);
    if (!NearCandidates.meet(keysA, select(keysA), keysB, select(keysB))) {
      return "not a candidate";
    }
    NearRule.Failure failure = NearRule.why(keysA, keysB, config, weight);
    if (failure == null) {
      failure = NearRule.why(keysB, keysA, config, weight);
    }
    if (failure == null) {
      return "rule passes, greedy";
    }
    if (failure == NearRule.Failure.SIMILARITY || failure == NearRule.Failure.ORDER) {
      double similarity =
          failure == NearRule.Failure.SIMILARITY
              ? NearRule.similarity(keysA, keysB, weight)
              : NearSimilarity.weightedJaccard(keysA.shingles(), keysB.shingles(), weight);
      int tenth = (int) Math.floor(similarity * 10);
      return String.format(
          "%s %.1f-%.1f",
          failure == NearRule.Failure.SIMILARITY ? "similarity" : "order",
          tenth / 10.0,
          (tenth + 1) / 10.0);
    }
    return failure.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
  }

  /**
   * Counts of {@link #reason} over pairs of ids, most frequent first in iteration order of the
   * caller's sort.
   */
  public Map<String, Long> reasons(Iterable<long[]> pairs) {
    Map<String, Long> counts = new TreeMap<>();
    for (long[] pair : pairs) {
      counts.merge(reason(pair[0], pair[1]), 1L, Long::sum);
    }
    return counts;
  }

  private NearCandidates.Selection select(NearRule.Keys record) {
    return NearCandidates.select(record, record.tel(), frequencies::get, 2, config.pre());
  }
}
