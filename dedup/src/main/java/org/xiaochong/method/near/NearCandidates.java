package org.xiaochong.method.near;

import java.util.Arrays;
import java.util.function.LongToIntFunction;

/**
 * Which keys a record looks up to find its near-duplicate candidates, in what order, and when the
 * lookups stop: shared by the near pass ({@link NearPass}) and the online check, like {@link
 * NearRule} (which decides on the candidates found). Stateless and thread-safe.
 */
public final class NearCandidates {
  /**
   * Records above which a key counts as common ({@link #stopBefore}): 88, where cora keeps its
   * recall with a stop rule that counts newer records, not kept ones (docs/near.md, "Finding
   * candidates"; measured in bench/RESULTS.md, "The near method's measurements").
   */
  public static final int COMMON_KEY = 88;

  /**
   * Records above which a key finds no candidates (it still weighs in the similarity): the
   * looked-up keys of one record bring at most this many candidates each, whatever the table's
   * size, and a phone held by more records (a switchboard number in every post) blocks nothing. The
   * pairs lost are those whose every looked-up key is that common (docs/near.md, "Finding
   * candidates").
   */
  public static final int MAX_HOLDERS = 1000;

  private NearCandidates() {}

  /**
   * The keys one record looks up in the near pass ({@link #select}), and whether it is blocked by
   * its phone numbers.
   *
   * @param telBlocked the record carries phone keys, none held by more than {@link #MAX_HOLDERS}
   *     records: by the rule's same-seller veto its near duplicates that carry phones share one of
   *     them, so it meets records with phones through {@code tel} alone
   * @param tel its phone keys held by another record (and at most the cap), ascending
   * @param keys its candidate keys held by at most {@link #MAX_HOLDERS} records, rarest first:
   *     looked up in this order until {@link #stopBefore} says the rest are too common for what was
   *     found
   * @param alone its keys no other record holds (they cannot lead to a candidate)
   */
  public record Selection(boolean telBlocked, long[] tel, long[] keys, int alone) {}

  /**
   * What a record of the near pass looks up. Two records meet (are compared) when both are {@link
   * Selection#telBlocked} and share a phone key; or otherwise when one holds a looked-up key of the
   * other. The looked-up keys are the record's {@code pre} rarest keys of each family held by
   * another record ({@link #candidateKeys(NearRule.Keys, LongToIntFunction, int, int)}) and by at
   * most {@link #MAX_HOLDERS}, rarest first; a key held by more than {@link #COMMON_KEY} only while
   * the keys before it found no newer record ({@link #stopBefore}). Why these, and what the
   * blocking by phone costs and saves: docs/near.md, "Finding candidates". Deterministic: it
   * depends only on the record's keys, the key frequencies frozen for the run (ties by key) and the
   * newest-first order, never on document ids or on what the pass decided, so a distributed job
   * finds the same pairs with joins.
   *
   * @param tel the record's phone keys ({@link NearRule.Keys#tel}), ascending
   * @param holders records of the run holding a key (the record itself included when it is one of
   *     them)
   * @param minHolders 2 when the record is one of the holders (the pass), 1 when it is not (a new
   *     record)
   */
  public static Selection select(
      NearRule.Keys record, long[] tel, LongToIntFunction holders, int minHolders, int pre) {
    boolean blocked = phoneBlocked(tel, holders);
    long[] telKeys = new long[tel.length];
    int t = 0;
    for (long key : tel) {
      int df = holders.applyAsInt(key);
      if (df >= minHolders && df <= MAX_HOLDERS) {
        telKeys[t++] = key;
      }
    }
    long[] candidates = candidateKeys(record, holders, minHolders, pre);
    int k = 0;
    while (k < candidates.length && holders.applyAsInt(candidates[k]) <= MAX_HOLDERS) {
      k++; // rarest first: the rest are as common
    }
    long[] keys = Arrays.copyOf(candidates, k);
    int alone = 0;
    for (long key : record.keys()) {
      if (holders.applyAsInt(key) < minHolders) {
        alone++;
      }
    }
    return new Selection(blocked, Arrays.copyOf(telKeys, t), keys, alone);
  }

  /**
   * Whether a record with these phone keys is {@link Selection#telBlocked}: it has some, none held
   * by more than the cap.
   */
  public static boolean phoneBlocked(long[] tel, LongToIntFunction holders) {
    for (long key : tel) {
      if (holders.applyAsInt(key) > MAX_HOLDERS) {
        return false;
      }
    }
    return tel.length > 0;
  }

  /**
   * Whether the near pass can compare two records: both phone-blocked and sharing a phone key, or
   * one holding a looked-up key of the other ({@link NearCandidateIndex} also stops before common
   * keys once a rarer one found a newer record, which depends on the rest of the table).
   */
  public static boolean meet(
      NearRule.Keys a, Selection selectionA, NearRule.Keys b, Selection selectionB) {
    if (selectionA.telBlocked() && selectionB.telBlocked()) {
      return holdsAny(selectionB.tel(), selectionA.tel());
    }
    return holdsAny(b.keys(), selectionA.keys()) || holdsAny(a.keys(), selectionB.keys());
  }

  private static boolean holdsAny(long[] sortedKeys, long[] keys) {
    for (long key : keys) {
      if (Arrays.binarySearch(sortedKeys, key) >= 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * The candidate keys of a record from each key family: the {@code pre} rarest word keys and the
   * {@code pre} rarest q-gram keys ({@link #candidateKeys(long[], LongToIntFunction, int, int)} on
   * each), all of them rarest first. One changed word (a typo) changes a word key but not the
   * q-grams of the record's other words, and a record of two or three words has few word keys to
   * look up: with two families a true pair must differ in a rare key of each to be missed.
   */
  public static long[] candidateKeys(
      NearRule.Keys record, LongToIntFunction holders, int minHolders, int pre) {
    long[] grams = record.grams();
    long[] words =
        candidateKeys(
            KeySets.minus(KeySets.minus(record.keys(), grams), record.shingles()),
            holders,
            minHolders,
            pre);
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
    Arrays.sort(
        boxed,
        (a, b) -> {
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
   * records (ties by key), rarest first. The seed looks up the top-{@code pre} keys by term
   * frequency; in short posts those are boilerplate (product, region, 供应) that thousands of posts
   * share, so every record met thousands of candidates. A near duplicate shares most of its keys,
   * rare ones included (a stock quantity, a phone, a name), so the rarest shared keys find it with
   * a handful of candidates. In the pass the record is in the index itself ({@code minHolders} 2: a
   * key only it holds cannot lead anywhere); in the online check it is not ({@code minHolders} 1).
   *
   * <p>The caller looks the keys up in this order and stops at a key held by more than {@link
   * #COMMON_KEY} records once an earlier key found a candidate ({@link #stopBefore}).
   *
   * @param holders records holding a key (0 when none)
   */
  public static long[] candidateKeys(
      long[] keys, LongToIntFunction holders, int minHolders, int pre) {
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
      while (at > 0
          && (bestFrequency[at - 1] > frequency
              || (bestFrequency[at - 1] == frequency && best[at - 1] > key))) {
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
   * True when the lookups stop before a key held by {@code holders} records: a common key (a
   * product, a region) is looked up only while the rarer ones found no candidate (in the pass: no
   * newer record); each of its holders would otherwise be compared, and the pass would grow with
   * the square of the posts per product.
   */
  public static boolean stopBefore(int holders, int candidatesSoFar) {
    return candidatesSoFar > 0 && holders > COMMON_KEY;
  }
}
