package org.xiaochong.method.near.fingerprint;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.xiaochong.fingerprint.DocumentFrequencies;

/**
 * Ranks a post's terms for {@link TopTermsMd5}: weight desc, then term asc ({@link
 * String#compareTo}). The weight is the term frequency tf, or tf * idf when document frequencies
 * are given, with the BM25 idf ln(1 + (N - df + 0.5) / (df + 0.5)). Stateless.
 */
final class TermRanking {
  private TermRanking() {}

  /** A term and its weight, for {@link #rank}. */
  private record Weighted(String term, double weight) {}

  /**
   * The terms of {@code counts} (term -> {tf, fields}) ranked; {@code documentFrequencies} null: by
   * tf.
   */
  static List<String> rank(Map<String, int[]> counts, DocumentFrequencies documentFrequencies) {
    // Weight desc, then term asc: a total order (terms are distinct), so the ranking does not
    // depend on the sort. Each term's weight is looked up once, not at every comparison.
    Weighted[] weighted = new Weighted[counts.size()];
    long docCount = documentFrequencies == null ? 0 : Math.max(0, documentFrequencies.docCount());
    int n = 0;
    for (Map.Entry<String, int[]> entry : counts.entrySet()) {
      double weight = entry.getValue()[0];
      if (documentFrequencies != null) {
        long docFreq = Math.min(docCount, Math.max(0, documentFrequencies.docFreq(entry.getKey())));
        double idf = Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5));
        weight = entry.getValue()[0] * idf;
      }
      weighted[n++] = new Weighted(entry.getKey(), weight);
    }
    Arrays.sort(
        weighted,
        (a, b) -> {
          int byWeight = Double.compare(b.weight(), a.weight());
          return byWeight != 0 ? byWeight : a.term().compareTo(b.term());
        });
    List<String> terms = new ArrayList<>(n);
    for (Weighted term : weighted) {
      terms.add(term.term());
    }
    return terms;
  }
}
