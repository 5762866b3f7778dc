package org.xiaochong.simhash;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.index.TermHolders;

/**
 * Hamming-distance search over 64-bit simhashes in a Lucene index: every indexed fingerprint within
 * distance {@value #MAX_DISTANCE} of a query (f = 64, k = 3), and none beyond.
 *
 * <p>Index with {@link #addFields}; search with {@link #search} on any reader (all its segments,
 * deleted documents skipped). Stateless: thread-safe.
 */
public final class SimhashIndex {

  /** k: the largest distance searched. */
  public static final int MAX_DISTANCE = 3;

  /** Blocks per fingerprint: k + 1. */
  public static final int BLOCKS = MAX_DISTANCE + 1;

  /** Bits per block: 64 / (k + 1). */
  public static final int BLOCK_BITS = Simhash64.BITS / BLOCKS;

  /** Term field: one term per block, [block index, 16 block bits big-endian] (3 bytes). */
  public static final String BLOCK_FIELD = "simhash_block";

  /** Doc-values field: the full 64-bit fingerprint. */
  public static final String VALUE_FIELD = "simhash";

  private static final long BLOCK_MASK = (1L << BLOCK_BITS) - 1;

  /*
   * Why k + 1 blocks find every pair (Manku, Jain, Das Sarma, WWW 2007): cut the 64 bits into k + 1
   * = 4 disjoint blocks of 16. Two fingerprints at distance <= k = 3 differ in at most 3 bits, and 3
   * bits touch at most 3 of the 4 blocks, so at least one block is identical (pigeonhole). So the
   * candidates of a query are the documents that share one of its 4 block terms: 4 exact term
   * lookups per segment ({@link TermHolders}: TermsEnum.seekExact + postings, deleted documents skipped). Each candidate's full value is read from
   * doc values and kept iff Long.bitCount(query ^ value) <= k, so no pair beyond k is reported. With
   * uniform fingerprints a block term matches n / 2^16 documents, so a query reads ~4n / 65,536
   * candidates instead of n (SimhashSearchBenchmark, bench/RESULTS.md).
   *
   * A document agreeing with the query in several blocks is one candidate: the candidates of the 4
   * blocks are sorted by doc id and read once each, in order, as forward-only doc values need.
   */

  private SimhashIndex() {}

  /** Adds the block terms and the doc value of {@code simhash} to {@code document}. */
  public static void addFields(Document document, long simhash) {
    for (int block = 0; block < BLOCKS; block++) {
      document.add(new StringField(BLOCK_FIELD, blockTerm(block, simhash), Field.Store.NO));
    }
    document.add(new NumericDocValuesField(VALUE_FIELD, simhash));
  }

  /** One hit: a document (index-wide id) and its fingerprint. */
  public record Hit(int doc, long simhash, int distance) {}

  /** Every live document whose fingerprint is within {@link #MAX_DISTANCE} of {@code query}. */
  public static List<Hit> search(IndexReader reader, long query) throws IOException {
    return search(reader, query, MAX_DISTANCE);
  }

  /**
   * Every live document whose fingerprint is within {@code maxDistance} (0..{@value #MAX_DISTANCE})
   * of {@code query}, in index doc id order.
   */
  public static List<Hit> search(IndexReader reader, long query, int maxDistance)
      throws IOException {
    if (maxDistance < 0 || maxDistance > MAX_DISTANCE) {
      throw new IllegalArgumentException(
          "maxDistance (" + maxDistance + ") must be in [0, " + MAX_DISTANCE + "]");
    }
    List<LeafReaderContext> leaves = reader.leaves();
    TermHolders holders = new TermHolders(leaves, BLOCK_FIELD);
    int[] candidates = new int[64];
    int count = 0;
    for (int block = 0; block < BLOCKS; block++) {
      for (int doc = holders.first(blockTerm(block, query));
          doc != TermHolders.NO_MORE_DOCS;
          doc = holders.next()) {
        if (count == candidates.length) {
          candidates = Arrays.copyOf(candidates, count * 2);
        }
        candidates[count++] = doc;
      }
    }
    // Doc values are forward-only: visit the candidates of all blocks in doc order, each once.
    Arrays.sort(candidates, 0, count);
    List<Hit> hits = new ArrayList<>();
    int leaf = -1;
    NumericDocValues values = null;
    for (int i = 0; i < count; i++) {
      int doc = candidates[i];
      if (i > 0 && doc == candidates[i - 1]) {
        continue;
      }
      int at = ReaderUtil.subIndex(doc, leaves);
      if (at != leaf) {
        leaf = at;
        values = leaves.get(at).reader().getNumericDocValues(VALUE_FIELD);
      }
      if (values == null || !values.advanceExact(doc - leaves.get(at).docBase)) {
        continue;
      }
      int distance = Long.bitCount(query ^ values.longValue());
      if (distance <= maxDistance) {
        hits.add(new Hit(doc, values.longValue(), distance));
      }
    }
    return hits;
  }

  /** The term of block {@code block} of {@code simhash}: [block, high byte, low byte]. */
  public static BytesRef blockTerm(int block, long simhash) {
    int bits = (int) ((simhash >>> (block * BLOCK_BITS)) & BLOCK_MASK);
    return new BytesRef(new byte[] {(byte) block, (byte) (bits >>> 8), (byte) bits});
  }
}
