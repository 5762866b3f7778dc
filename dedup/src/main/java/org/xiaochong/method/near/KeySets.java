package org.xiaochong.method.near;

import java.util.Arrays;

/** Set operations on ascending arrays of keys, shared by the near rule and the candidate keys. */
final class KeySets {
  private KeySets() {}

  /** The keys of {@code sorted} in {@code keep} (both ascending). */
  static long[] only(long[] sorted, long[] keep) {
    long[] out = new long[Math.min(sorted.length, keep.length)];
    int n = 0;
    for (long key : sorted) {
      if (Arrays.binarySearch(keep, key) >= 0) {
        out[n++] = key;
      }
    }
    return n == out.length ? out : Arrays.copyOf(out, n);
  }

  /** The keys of {@code sorted} not in {@code remove} (both ascending). */
  static long[] minus(long[] sorted, long[] remove) {
    if (remove.length == 0) {
      return sorted;
    }
    long[] out = new long[sorted.length];
    int n = 0;
    for (long key : sorted) {
      if (Arrays.binarySearch(remove, key) < 0) {
        out[n++] = key;
      }
    }
    return Arrays.copyOf(out, n);
  }

  /** The word keys of a post: its keys without the q-gram and shingle families. */
  static long[] wordKeys(NearRule.Keys post) {
    return minus(minus(post.keys(), post.grams()), post.shingles());
  }
}
