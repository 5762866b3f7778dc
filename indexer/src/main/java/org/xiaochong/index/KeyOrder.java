package org.xiaochong.index;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Orders documents by their 16-byte MD5 keys as Lucene orders terms (unsigned bytes), ties by doc
 * number: the order in which {@link RecordSegmentReader} hands its terms and postings to {@code
 * IndexWriter.addIndexes}. Stateless.
 */
final class KeyOrder {
  static final int KEY_BYTES = 16;

  private KeyOrder() {}

  /*
   * Sorting n keys of 128 bits by (key, doc): pack the key's top (64 - b) bits and the doc number
   * (b = bits of n - 1) into one long and sort the longs (Arrays.sort on primitives, no comparator
   * calls). The sign bit is flipped so that signed long order is the unsigned byte order Lucene's
   * terms need. Docs whose packed prefixes are equal end up next to each other, ordered by doc: equal
   * keys (the duplicates) are then already in order; only runs that mix different keys sharing a
   * prefix are sorted again by full key (with MD5 and n = 1M, 44 prefix bits: expected 0.03 such
   * pairs, so this costs nothing but keeps the order right whatever the keys).
   */
  static int[] docsInKeyOrder(byte[] keys, int n) {
    int docBits = Math.max(1, 64 - Long.numberOfLeadingZeros(Math.max(1, n - 1)));
    long docMask = (1L << docBits) - 1;
    long[] packed = new long[n];
    for (int doc = 0; doc < n; doc++) {
      packed[doc] = ((high(keys, doc) >>> docBits) << docBits | doc) ^ Long.MIN_VALUE;
    }
    java.util.Arrays.sort(packed);
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = (int) (packed[i] & docMask);
    }
    for (int start = 0; start < n; ) {
      int end = start + 1;
      boolean mixed = false;
      while (end < n && packed[end] >>> docBits == packed[start] >>> docBits) {
        mixed |= compareKeys(keys, order[start], order[end]) != 0;
        end++;
      }
      if (mixed) {
        sortByKeyThenDoc(keys, order, start, end);
      }
      start = end;
    }
    return order;
  }

  private static void sortByKeyThenDoc(byte[] keys, int[] order, int from, int to) {
    IntArrays.sort(
        order,
        from,
        to,
        (a, b) -> {
          int c = compareKeys(keys, a, b);
          return c != 0 ? c : Integer.compare(a, b);
        });
  }

  private static long high(byte[] keys, int doc) {
    return word(keys, KEY_BYTES * doc);
  }

  private static final VarHandle BIG_ENDIAN_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  /** Bytes [offset, offset + 8) as a big-endian long: unsigned long order is then byte order. */
  private static long word(byte[] keys, int offset) {
    return (long) BIG_ENDIAN_LONG.get(keys, offset);
  }

  /** Unsigned byte order of two documents' keys (the order of Lucene's terms). */
  static int compareKeys(byte[] keys, int a, int b) {
    int c = Long.compareUnsigned(word(keys, KEY_BYTES * a), word(keys, KEY_BYTES * b));
    return c != 0
        ? c
        : Long.compareUnsigned(word(keys, KEY_BYTES * a + 8), word(keys, KEY_BYTES * b + 8));
  }
}
