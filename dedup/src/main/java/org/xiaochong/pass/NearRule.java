package org.xiaochong.pass;

import java.util.Arrays;
import java.util.function.LongToIntFunction;
import org.xiaochong.fingerprint.Fingerprints;
import org.xiaochong.fingerprint.NearConfig;
import org.xiaochong.fingerprint.NearSimilarity;
import org.xiaochong.index.NearSchema;
import org.xiaochong.policy.KeepLatestPolicy;

/**
 * The near-duplicate rule, shared by the near pass ({@link NearPass}) and the online check
 * ({@code OnlineChecker}): which keys a record looks up, whether a candidate is its near duplicate,
 * and which of several near duplicates it points to. Change the rule here and both follow. Stateless
 * and thread-safe.
 */
public final class NearRule {
  /** Documents above which a key counts as common (see {@link #candidateKeys}). */
  public static final int COMMON_KEY = 64;

  private NearRule() {}

  /**
   * The keys of one post as the near index stores them ({@link NearSchema}). An implementation may
   * read {@link #top} and {@link #tel} lazily: the rule asks for them only after the similarity passed.
   */
  public interface Keys {
    /** All distinct keys, ascending. */
    long[] keys();

    /** The top-{@code pre} keys in rank order (the first is the post's most frequent term). */
    long[] top();

    /** The keys of the post's {@code tel:} terms, ascending (empty when it has none). */
    long[] tel();

    /** The keys of the post's number terms (not phones), ascending (empty when it has none). */
    long[] numbers();

    /** One key per fields.must-match column, in config order, 0 for an empty value (empty when none). */
    long[] matches();
  }

  /** Keys held in memory. */
  public record Stored(long[] keys, long[] top, long[] tel, long[] numbers, long[] matches) implements Keys {
    /** Keys without numbers or must-match values. */
    public Stored(long[] keys, long[] top, long[] tel) {
      this(keys, top, tel, new long[0], new long[0]);
    }

    /** The keys the near index stores for these fingerprints (same arrays as {@link NearSchema#document}). */
    public static Stored of(Fingerprints fingerprints, int pre, long[] matchKeys) {
      return new Stored(fingerprints.sortedPrefixes(), NearSchema.topKeys(fingerprints, pre), NearSchema.telKeys(fingerprints),
          NearSchema.numberKeys(fingerprints), matchKeys);
    }
  }

  /**
   * The near-duplicate decision: the similarity test of {@link NearSimilarity#isNearDuplicate}, then
   * the vetoes of NEAR-FINGERPRINTS.md ("Vetoes"), each a cheap test of evidence that two similar posts
   * are different offers:
   *
   * <ol>
   *   <li>same subject: both posts' top terms must be in the other's set (their subject, usually the
   *       product: the same seller's post about another product shares most other words);
   *   <li>same seller: when both carry phone numbers, they must share one (the same product from
   *       another seller is another post);
   *   <li>must-match fields ({@code fields.must-match}, default product): when both values are
   *       non-empty they must be equal after normalization and folding (玉米 and 玉米种子 share the
   *       word 玉米, so rule 1 lets them through);
   *   <li>shared number ({@code near.shared-number}): when both carry at least two numbers (not
   *       phones) and share none, every other term must be shared. A repost changes its price or its
   *       quantity and little else (both may change: "约280斤 … 850元" for "约300斤 … 800元"), while
   *       the same seller's next offer of the same product has other numbers <em>and</em> another
   *       origin, grade or description. With one number each (a price only) there is no veto.
   * </ol>
   */
  public static boolean isNearDuplicate(Keys record, Keys candidate, NearConfig config) {
    long[] keys = record.keys();
    long[] candidateKeys = candidate.keys();
    if (!NearSimilarity.isNearDuplicate(keys, candidateKeys, config)) {
      return false;
    }
    long[] top = record.top();
    if (top.length > 0 && Arrays.binarySearch(candidateKeys, top[0]) < 0) {
      return false;
    }
    long[] candidateTop = candidate.top();
    if (candidateTop.length > 0 && Arrays.binarySearch(keys, candidateTop[0]) < 0) {
      return false;
    }
    if (!phonesAgree(record.tel(), candidate)) {
      return false;
    }
    if (config.requireSharedNumber() && !numbersAgree(keys, record.numbers(), candidateKeys, candidate)) {
      return false;
    }
    long[] matches = record.matches();
    if (matches.length > 0) {
      long[] candidateMatches = candidate.matches();
      for (int i = 0; i < Math.min(matches.length, candidateMatches.length); i++) {
        if (matches[i] != 0 && candidateMatches[i] != 0 && matches[i] != candidateMatches[i]) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The shared-number rule: true unless both posts carry two or more numbers, share none, and differ in
   * some other term. Number keys are a subset of the keys, so with no shared number the shared keys
   * are all non-number ones: every other term is shared when the shared count equals each post's
   * count of non-number keys.
   */
  private static boolean numbersAgree(long[] keys, long[] numbers, long[] candidateKeys, Keys candidate) {
    if (numbers.length < 2) {
      return true;
    }
    long[] candidateNumbers = candidate.numbers();
    if (candidateNumbers.length < 2 || NearSimilarity.sharedCount(numbers, candidateNumbers) > 0) {
      return true;
    }
    int shared = NearSimilarity.sharedCount(keys, candidateKeys);
    return shared == keys.length - numbers.length && shared == candidateKeys.length - candidateNumbers.length;
  }

  /** False when both posts carry phone numbers and share none (the candidate's are read only if needed). */
  private static boolean phonesAgree(long[] tel, Keys candidate) {
    if (tel.length == 0) {
      return true;
    }
    long[] candidateTel = candidate.tel();
    return candidateTel.length == 0 || NearSimilarity.sharedCount(tel, candidateTel) > 0;
  }

  /**
   * Whether a near duplicate (similarity, time, id) beats the best one so far: more similar, or as
   * similar and kept over it by {@link KeepLatestPolicy}, so the record points to the latest copy. The
   * first one always wins when {@code bestSimilarity} is negative.
   */
  public static boolean isBetter(double similarity, long time, long id, double bestSimilarity, long bestTime, long bestId) {
    if (similarity != bestSimilarity) {
      return similarity > bestSimilarity;
    }
    return KeepLatestPolicy.isPreferred(time, id, bestTime, bestId);
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
