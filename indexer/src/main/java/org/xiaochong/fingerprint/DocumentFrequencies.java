package org.xiaochong.fingerprint;

/**
 * Corpus statistics for tf * idf ranking (the near method's term ranking, simhash's idf weights).
 * The pipeline can answer from a Lucene index that stores the ranked terms as a field ({@code
 * IndexReader.docFreq(new Term(field, term))} and {@code IndexReader.numDocs()}), or from a frozen
 * snapshot.
 *
 * <p>Implementations must be safe to call from every thread that fingerprints. Use a snapshot for
 * one run: the ranking, and so the top-pre candidate keys, changes when the statistics change.
 */
public interface DocumentFrequencies {

  /** Number of documents the statistics describe (N); >= 0. */
  long docCount();

  /**
   * Number of documents that contain {@code term} (a ranked term, e.g. "苹果", "tel:13800138000").
   */
  long docFreq(String term);
}
