package org.xiaochong.method.near.fingerprint;

import java.util.Arrays;

/**
 * Sorted sets of 64-bit keys and their field masks, for {@link Fingerprints}: the union of the key
 * families, the fields of each key, and the typo-tolerant view. Stateless.
 */
final class KeySets {
  private static final long[] NO_LONGS = new long[0];

  private KeySets() {}

  /** See {@link Fingerprints#sortedDistinct}. */
  static long[] sortedDistinct(long[] keys) {
    Arrays.sort(keys);
    int distinct = 0;
    for (int i = 0; i < keys.length; i++) {
      if (i == 0 || keys[i] != keys[distinct - 1]) {
        keys[distinct++] = keys[i];
      }
    }
    return distinct == keys.length ? keys : Arrays.copyOf(keys, distinct);
  }

  /** The distinct keys of three sorted families, ascending. */
  static long[] union(long[] words, long[] grams, long[] shingles) {
    long[] all = new long[words.length + grams.length + shingles.length];
    System.arraycopy(words, 0, all, 0, words.length);
    System.arraycopy(grams, 0, all, words.length, grams.length);
    System.arraycopy(shingles, 0, all, words.length + grams.length, shingles.length);
    return sortedDistinct(all);
  }

  /**
   * Per key of {@code sortedKeys}, the mask of the fields it occurs in: the masks of {@code
   * termFields} (per word key of {@code words}) and {@code gramFields} (per q-gram of {@code
   * grams}) or-ed together, and {@link Fingerprints#ANY_FIELD} for a shingle.
   */
  static int[] fieldsOf(
      long[] sortedKeys,
      long[] words,
      int[] termFields,
      long[] grams,
      int[] gramFields,
      long[] shingles) {
    int[] fields = new int[sortedKeys.length];
    orFields(sortedKeys, fields, words, termFields);
    orFields(sortedKeys, fields, grams, gramFields);
    for (long shingle : shingles) {
      fields[Arrays.binarySearch(sortedKeys, shingle)] = Fingerprints.ANY_FIELD;
    }
    return fields;
  }

  /** The union of {@code masks}. */
  static int anyOf(int[] masks) {
    int any = 0;
    for (int mask : masks) {
      any |= mask;
    }
    return any;
  }

  private static void orFields(long[] sortedKeys, int[] fields, long[] keys, int[] masks) {
    for (int i = 0; i < keys.length; i++) {
      fields[Arrays.binarySearch(sortedKeys, keys[i])] |= masks[i];
    }
  }

  /** See {@link Fingerprints#typoKeys}. */
  static long[] typoKeys(
      long[] keys, int[] fields, long[] grams, long[] shingles, int shortFields) {
    if (fields == null || grams.length == 0 || shortFields == 0) {
      return NO_LONGS;
    }
    long[] out = new long[keys.length];
    int n = 0;
    for (int i = 0; i < keys.length; i++) {
      boolean gram = Arrays.binarySearch(grams, keys[i]) >= 0;
      if (gram
          ? (fields[i] & shortFields) != 0
          : Arrays.binarySearch(shingles, keys[i]) < 0 && (fields[i] & ~shortFields) != 0) {
        out[n++] = keys[i];
      }
    }
    return Arrays.copyOf(out, n);
  }
}
