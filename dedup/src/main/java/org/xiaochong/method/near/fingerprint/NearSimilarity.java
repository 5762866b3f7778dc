package org.xiaochong.method.near.fingerprint;

import java.util.function.LongToDoubleFunction;

/**
 * Compares two posts by their fingerprint sets: the shared count s (the seed's "相同 MD5 指纹数") and
 * the Jaccard similarity s / (|A| + |B| - s). Stateless and thread-safe.
 *
 * <p>Sets are the distinct 64-bit keys of {@link Fingerprints#sortedPrefixes()} (ascending, as
 * Lucene or a database can store them). Counting is a merge of two sorted arrays: O(|A| + |B|), no
 * allocation.
 */
public final class NearSimilarity {

  private NearSimilarity() {}

  /** The total weight of the keys both sorted sets hold. */
  public static double sharedWeight(long[] sortedA, long[] sortedB, LongToDoubleFunction weight) {
    double sum = 0;
    int i = 0;
    int j = 0;
    while (i < sortedA.length && j < sortedB.length) {
      if (sortedA[i] == sortedB[j]) {
        sum += weight.applyAsDouble(sortedA[i]);
        i++;
        j++;
      } else if (sortedA[i] < sortedB[j]) {
        i++;
      } else {
        j++;
      }
    }
    return sum;
  }

  /**
   * Number of keys in both arrays. Both must be ascending without duplicates (checked with assert).
   */
  public static int sharedCount(long[] sortedA, long[] sortedB) {
    assert isStrictlyAscending(sortedA) && isStrictlyAscending(sortedB)
        : "keys must be distinct and ascending";
    int shared = 0;
    int i = 0;
    int j = 0;
    while (i < sortedA.length && j < sortedB.length) {
      long a = sortedA[i];
      long b = sortedB[j];
      if (a == b) {
        shared++;
        i++;
        j++;
      } else if (a < b) {
        i++;
      } else {
        j++;
      }
    }
    return shared;
  }

  /** Jaccard similarity of two sorted key sets; 0 when both are empty. */
  public static double jaccard(long[] sortedA, long[] sortedB) {
    int shared = sharedCount(sortedA, sortedB);
    int union = sortedA.length + sortedB.length - shared;
    return union == 0 ? 0.0 : (double) shared / union;
  }

  public static int sharedCount(Fingerprints a, Fingerprints b) {
    return sharedCount(a.sortedPrefixesShared(), b.sortedPrefixesShared());
  }

  public static double jaccard(Fingerprints a, Fingerprints b) {
    return jaccard(a.sortedPrefixesShared(), b.sortedPrefixesShared());
  }

  /**
   * The weight of a key held by {@code holders} of {@code records} records: its inverse document
   * frequency idf = ln(1 + N / df), df clipped to [1, N]. A key every record holds (boilerplate, a
   * template phrase, a category word of half the table) weighs ln 2 ≈ 0.69; a key two records of a
   * million hold (a surname, a phone, a street number) ln(500,001) ≈ 13. The 1 + keeps every weight
   * positive and tiny tables sane: with N = 2 a shared key weighs ln 2 and a key of one record ln
   * 3.
   */
  public static double idf(long holders, long records) {
    long n = Math.max(1, records);
    long df = Math.min(n, Math.max(1, holders));
    return Math.log1p((double) n / df);
  }

  /**
   * IDF-weighted Jaccard similarity Σ_{k ∈ A ∩ B} w(k) / Σ_{k ∈ A ∪ B} w(k) of two sorted key sets,
   * with w the key's {@link #idf}: the share of the two posts' evidence they have in common. Shared
   * boilerplate adds little to either sum; a shared rare key (a phone, a surname) adds much, and a
   * rare key only one of them has counts much against them. 0 when both are empty.
   *
   * @param weight w(k) > 0 for each key
   */
  public static double weightedJaccard(
      long[] sortedA, long[] sortedB, LongToDoubleFunction weight) {
    return weightedJaccard(sortedA, sortedB, weight, 0);
  }

  /**
   * {@link #weightedJaccard(long[], long[], LongToDoubleFunction)} with {@code against}, the weight
   * of evidence against the pair from outside the key sets, added to the union: Σ_{A∩B} w /
   * (Σ_{A∪B} w + against). 0 when both are empty.
   */
  public static double weightedJaccard(
      long[] sortedA, long[] sortedB, LongToDoubleFunction weight, double against) {
    double shared = 0;
    double union = 0;
    int i = 0;
    int j = 0;
    while (i < sortedA.length || j < sortedB.length) {
      if (j == sortedB.length || (i < sortedA.length && sortedA[i] < sortedB[j])) {
        union += weight.applyAsDouble(sortedA[i++]);
      } else if (i == sortedA.length || sortedB[j] < sortedA[i]) {
        union += weight.applyAsDouble(sortedB[j++]);
      } else {
        double w = weight.applyAsDouble(sortedA[i]);
        shared += w;
        union += w;
        i++;
        j++;
      }
    }
    return union == 0 ? 0.0 : shared / (union + against);
  }

  /**
   * The near-duplicate decision on weighted keys: s >= min(minShared, |A|, |B|) shared keys and
   * {@link #weightedJaccard} >= minSimilarity, both sets non-empty.
   */
  public static boolean isNearDuplicate(
      long[] sortedA, long[] sortedB, LongToDoubleFunction weight, NearConfig config) {
    if (sortedA.length == 0 || sortedB.length == 0) {
      return false;
    }
    int shared = sharedCount(sortedA, sortedB);
    int needed = Math.min(config.minShared(), Math.min(sortedA.length, sortedB.length));
    return shared >= needed && weightedJaccard(sortedA, sortedB, weight) >= config.minSimilarity();
  }

  private static boolean isStrictlyAscending(long[] keys) {
    for (int i = 1; i < keys.length; i++) {
      if (keys[i - 1] >= keys[i]) {
        return false;
      }
    }
    return true;
  }
}
