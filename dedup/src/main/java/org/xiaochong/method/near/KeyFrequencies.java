package org.xiaochong.method.near;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.BitUtil;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.method.near.fingerprint.NearSimilarity;
import org.xiaochong.method.near.index.NearSchema;

/**
 * Document frequency of every near key of the index: an open-addressing map from the 64-bit key to
 * its count of documents, summed over segments. Built in one walk over the term dictionaries; about
 * 24 bytes per distinct key. {@link #live} leaves deleted documents out, so the counts depend on
 * the live records only, not on which segments were merged. Safe for concurrent reads once built.
 */
public final class KeyFrequencies {
  private long[] keys;
  private int[] counts;
  private boolean[] used;
  private int size;
  private float[] weights; // idf per slot, see useWeights
  private double absentWeight;
  private long records;

  /**
   * The frequencies over the live documents: the term dictionaries' counts less the keys of each
   * deleted document ({@code keysField}, the binary doc values holding every key of a document).
   * Deleted documents are few between merges, so this reads far less than walking every posting.
   */
  static KeyFrequencies live(List<LeafReaderContext> leaves, String field, String keysField)
      throws IOException {
    KeyFrequencies frequencies = new KeyFrequencies(leaves, field);
    long records = 0;
    for (LeafReaderContext leaf : leaves) {
      records += leaf.reader().numDocs();
      Bits live = leaf.reader().getLiveDocs();
      BinaryDocValues values = live == null ? null : leaf.reader().getBinaryDocValues(keysField);
      if (values == null) {
        continue;
      }
      for (int d = values.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = values.nextDoc()) {
        if (!live.get(d)) {
          for (long key : NearSchema.decode(values.binaryValue())) {
            frequencies.add(key, -1);
          }
        }
      }
    }
    frequencies.records = records;
    return frequencies;
  }

  /**
   * The frequencies a distributed job aggregated ({@code counts[i]} records hold {@code keys[i]},
   * each key once) over {@code records} records, with their weights ({@link #useWeights}).
   */
  public static KeyFrequencies of(long[] keys, int[] counts, long records) {
    KeyFrequencies frequencies = new KeyFrequencies();
    for (int i = 0; i < keys.length; i++) {
      frequencies.add(keys[i], counts[i]);
    }
    frequencies.useWeights(records);
    return frequencies;
  }

  private KeyFrequencies() {
    keys = new long[1 << 16];
    counts = new int[1 << 16];
    used = new boolean[1 << 16];
  }

  /** Live documents counted by {@link #live}. */
  long records() {
    return records;
  }

  KeyFrequencies(List<LeafReaderContext> leaves, String field) throws IOException {
    int capacity = 1 << 16;
    keys = new long[capacity];
    counts = new int[capacity];
    used = new boolean[capacity];
    for (LeafReaderContext leaf : leaves) {
      Terms terms = leaf.reader().terms(field);
      if (terms == null) {
        continue;
      }
      TermsEnum termsEnum = terms.iterator();
      for (BytesRef term = termsEnum.next(); term != null; term = termsEnum.next()) {
        add((long) BitUtil.VH_BE_LONG.get(term.bytes, term.offset), termsEnum.docFreq());
      }
    }
  }

  /**
   * Computes each key's weight {@link NearSimilarity#idf}(df, records) once, for {@link #weight}:
   * the similarity asks for a weight per key of every pair it compares, millions of times a run.
   */
  void useWeights(long records) {
    this.records = records;
    weights = new float[keys.length];
    for (int i = 0; i < keys.length; i++) {
      if (used[i]) {
        weights[i] = (float) NearSimilarity.idf(counts[i], records);
      }
    }
    absentWeight = NearSimilarity.idf(0, records);
  }

  /**
   * {@link #weight} with the least shared weight of a table of the records given to {@link
   * #useWeights}.
   */
  public NearRule.KeyWeights weights() {
    return NearRule.KeyWeights.idf(this::weight, records);
  }

  /** The key's idf weight as of {@link #useWeights} (a key of no document: the weight of df 1). */
  double weight(long key) {
    int mask = keys.length - 1;
    for (int slot = mix(key) & mask; used[slot]; slot = (slot + 1) & mask) {
      if (keys[slot] == key) {
        return weights[slot];
      }
    }
    return absentWeight;
  }

  /** Documents holding the key (0 when none). */
  public int get(long key) {
    int mask = keys.length - 1;
    for (int slot = mix(key) & mask; used[slot]; slot = (slot + 1) & mask) {
      if (keys[slot] == key) {
        return counts[slot];
      }
    }
    return 0;
  }

  private void add(long key, int count) {
    if (2 * (size + 1) > keys.length) {
      grow();
    }
    int mask = keys.length - 1;
    int slot = mix(key) & mask;
    while (used[slot] && keys[slot] != key) {
      slot = (slot + 1) & mask;
    }
    if (!used[slot]) {
      used[slot] = true;
      keys[slot] = key;
      size++;
    }
    counts[slot] += count;
  }

  private void grow() {
    long[] oldKeys = keys;
    int[] oldCounts = counts;
    boolean[] oldUsed = used;
    keys = new long[oldKeys.length * 2];
    counts = new int[oldKeys.length * 2];
    used = new boolean[oldKeys.length * 2];
    size = 0;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldUsed[i]) {
        add(oldKeys[i], oldCounts[i]);
      }
    }
  }

  /** The keys are MD5 prefixes (uniform already); fold the high bits in for the table index. */
  private static int mix(long key) {
    return (int) (key ^ (key >>> 32));
  }
}
