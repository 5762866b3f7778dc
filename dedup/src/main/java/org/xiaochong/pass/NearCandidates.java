package org.xiaochong.pass;

import java.util.Arrays;
import java.util.function.LongToIntFunction;

/**
 * Which keys a record looks up to find its near-duplicate candidates, in what order, and when the
 * lookups stop: shared by the near pass ({@link NearPass}) and the online check, like {@link NearRule}
 * (which decides on the candidates found). Stateless and thread-safe.
 */
public final class NearCandidates {
  /** Documents above which a key counts as common (see {@link #candidateKeys}). */
  public static final int COMMON_KEY = 64;

  private NearCandidates() {}

  /**
   * The candidate keys of a record from each key family: the {@code pre} rarest word keys and the
   * {@code pre} rarest q-gram keys ({@link #candidateKeys(long[], LongToIntFunction, int, int)} on each),
   * all of them rarest first. One changed word (a typo) changes a word key but not the q-grams of the
   * record's other words, and a record of two or three words has few word keys to look up: with two
   * families a true pair must differ in a rare key of each to be missed.
   */
  public static long[] candidateKeys(NearRule.Keys record, LongToIntFunction holders, int minHolders, int pre) {
    long[] grams = record.grams();
    long[] words = candidateKeys(NearRule.minus(NearRule.minus(record.keys(), grams), record.shingles()), holders, minHolders, pre);
    if (grams.length == 0) {
      return words;
    }
    long[] fromGrams = candidateKeys(grams, holders, minHolders, pre);
    long[] all = Arrays.copyOf(words, words.length + fromGrams.length);
    System.arraycopy(fromGrams, 0, all, words.length, fromGrams.length);
    Long[] boxed = new Long[all.length];
    for (int i = 0; i < all.length; i++) {
      boxed[i] = all[i];
    }
    Arrays.sort(boxed, (a, b) -> {
      int byFrequency = Integer.compare(holders.applyAsInt(a), holders.applyAsInt(b));
      return byFrequency != 0 ? byFrequency : Long.compare(a, b);
    });
    for (int i = 0; i < all.length; i++) {
      all[i] = boxed[i];
    }
    return all;
  }

  /**
   * The candidate keys of a record: its {@code pre} rarest keys held by at least {@code minHolders}
   * records (ties by key), rarest first. The seed looks up the top-{@code pre} keys by term frequency;
   * in short posts those are boilerplate (product, region, 供应) that thousands of posts share, so every
   * record met thousands of candidates. A near duplicate shares most of its keys, rare ones included (a
   * stock quantity, a phone, a name), so the rarest shared keys find it with a handful of candidates.
   * In the pass the record is in the index itself ({@code minHolders} 2: a key only it holds cannot
   * lead anywhere); in the online check it is not ({@code minHolders} 1).
   *
   * <p>The caller looks the keys up in this order and stops at a key held by more than {@link
   * #COMMON_KEY} records once an earlier key found a candidate ({@link #stopBefore}).
   *
   * @param holders records holding a key (0 when none)
   */
  public static long[] candidateKeys(long[] keys, LongToIntFunction holders, int minHolders, int pre) {
    long[] best = new long[pre];
    int[] bestFrequency = new int[pre];
    int found = 0;
    for (long key : keys) {
      int frequency = holders.applyAsInt(key);
      if (frequency < minHolders) {
        continue;
      }
      // Insertion into the small sorted array of the best so far.
      int at = found;
      while (at > 0 && (bestFrequency[at - 1] > frequency || (bestFrequency[at - 1] == frequency && best[at - 1] > key))) {
        at--;
      }
      if (at >= pre) {
        continue;
      }
      int last = Math.min(found, pre - 1);
      for (int i = last; i > at; i--) {
        best[i] = best[i - 1];
        bestFrequency[i] = bestFrequency[i - 1];
      }
      best[at] = key;
      bestFrequency[at] = frequency;
      found = Math.min(pre, found + 1);
    }
    return Arrays.copyOf(best, found);
  }

  /**
   * True when the lookups stop before a key held by {@code holders} records: a common key (a product,
   * a region) is looked up only while the rarer ones found no candidate; each of its holders would
   * otherwise be compared, and the pass would grow with the square of the posts per product.
   */
  public static boolean stopBefore(int holders, int candidatesSoFar) {
    return candidatesSoFar > 0 && holders > COMMON_KEY;
  }
}
