package org.xiaochong.method.near;

import java.util.Arrays;
import org.xiaochong.method.near.NearRule.Failure;
import org.xiaochong.method.near.NearRule.KeyWeights;
import org.xiaochong.method.near.NearRule.Keys;
import org.xiaochong.method.near.fingerprint.Evidence;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.method.near.fingerprint.NearSimilarity;
import org.xiaochong.method.near.index.NearSchema;

/**
 * The near-duplicate decision ({@link NearRule#isNearDuplicate}), test by test, and the first test
 * a pair fails ({@link NearRule#why}): the weighted similarity ({@link NearRule#similarity}) of at
 * least {@code near.min-similarity} over the keys of every family with {@code weight} (the pass and
 * the check give each key its idf), the shared keys weighing at least {@link
 * KeyWeights#leastShared}, with near.shingles the same test on the shingles alone (the word order),
 * what the two contradict ({@link Evidence}: another place, another grade or size, a price more
 * than 10 % off, another lot; the amounts not for the same seller's repost of one offer, {@link
 * SellerRepost}), then the vetoes of docs/near.md ("Vetoes"), each a cheap test of evidence that
 * two similar posts are different offers:
 *
 * <ol>
 *   <li>same subject: a post's subject (its top term when repeated, {@link NearSchema#topKeys})
 *       must be in the other's set (usually the product: the same seller's post about another
 *       product shares most other words); not for a word repeated only in short fields ({@link
 *       #onlyInShortFields}: a name word recurring in a type column);
 *   <li>same seller: when both carry phone numbers, they must share one (the same product from
 *       another seller is another post);
 *   <li>must-match fields ({@code fields.must-match}, default product): when both values are
 *       non-empty they must be equal after normalization and folding (玉米 and 玉米种子 share the word
 *       玉米, so rule 1 lets them through);
 *   <li>shared number ({@code near.shared-number}): when both carry at least two numbers (not
 *       phones) and share none, every other term must be shared. A repost changes its price or its
 *       quantity and little else (both may change: "约280斤 … 850元" for "约300斤 … 800元"), while the
 *       same seller's next offer of the same product has other numbers <em>and</em> another origin,
 *       grade or description. With one number each (a price only) there is no veto.
 * </ol>
 *
 * <p>Stateless and thread-safe.
 */
final class RuleVerdict {
  private RuleVerdict() {}

  /** The first test the pair fails, or null for a near duplicate. */
  static Failure firstFailure(Keys record, Keys candidate, NearConfig config, KeyWeights weight) {
    long[] keys = record.keys();
    long[] candidateKeys = candidate.keys();
    if (tooFewShared(keys, candidateKeys, config)) {
      return Failure.TOO_FEW_SHARED;
    }
    double similarity =
        RuleSimilarity.similarity(record, candidate, weight, config.minSimilarity());
    if (similarity < config.minSimilarity()) {
      return RuleSimilarity.similarity(record, candidate, weight, Double.POSITIVE_INFINITY)
              < config.minSimilarity()
          ? Failure.SIMILARITY
          : Failure.CONTRADICTED;
    }
    if (record.evidence().contradicts(candidate.evidence())
        && (record.evidence().contradicts(candidate.evidence(), true)
            || !SellerRepost.test(record, candidate))) {
      return Failure.CONTRADICTED;
    }
    // A key of the record's word keys that the candidate holds is one of its word keys too: the
    // families hash distinct text (a q-gram or shingle key is no word's key), so the candidate's
    // need not be read.
    if (weight.leastShared() > 0
        && NearSimilarity.sharedWeight(KeySets.wordKeys(record), candidateKeys, weight)
            < weight.leastShared()) {
      return Failure.LITTLE_EVIDENCE;
    }
    if (config.shingles()) {
      long[] shingles = record.shingles();
      long[] candidateShingles = candidate.shingles();
      if (shingles.length > 0
          && candidateShingles.length > 0
          && NearSimilarity.weightedJaccard(shingles, candidateShingles, weight)
              < config.minSimilarity()) {
        return Failure.ORDER;
      }
    }
    long[] top = record.top();
    if (top.length > 0
        && Arrays.binarySearch(candidateKeys, top[0]) < 0
        && !onlyInShortFields(record, top[0])) {
      return Failure.SUBJECT;
    }
    long[] candidateTop = candidate.top();
    if (candidateTop.length > 0
        && Arrays.binarySearch(keys, candidateTop[0]) < 0
        && !onlyInShortFields(candidate, candidateTop[0])) {
      return Failure.SUBJECT;
    }
    long[] tel = record.tel();
    if (tel.length > 0 && !phonesAgree(tel, candidate.tel())) {
      return Failure.PHONE;
    }
    if (config.requireSharedNumber() && !numbersAgree(record, candidate)) {
      return Failure.NUMBER;
    }
    long[] matches = record.matches();
    if (matches.length > 0 && !matchesAgree(matches, candidate.matches())) {
      return Failure.MUST_MATCH;
    }
    return null;
  }

  /**
   * The first test of {@link #firstFailure}: the pair shares fewer than min(near.min-shared, |A|,
   * |B|) keys, or one has none. A pair for which it holds is no near duplicate.
   */
  static boolean tooFewShared(long[] keys, long[] candidateKeys, NearConfig config) {
    if (keys.length == 0 || candidateKeys.length == 0) {
      return true;
    }
    int shared = NearSimilarity.sharedCount(keys, candidateKeys);
    return shared < Math.min(config.minShared(), Math.min(keys.length, candidateKeys.length));
  }

  /**
   * Veto 3 of {@link #firstFailure}: false when a must-match field holds a value in both and the
   * values differ (0: empty). A pair for which it is false is no near duplicate.
   */
  static boolean matchesAgree(long[] matches, long[] candidateMatches) {
    for (int i = 0; i < Math.min(matches.length, candidateMatches.length); i++) {
      if (matches[i] != 0 && candidateMatches[i] != 0 && matches[i] != candidateMatches[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * True when the post's key occurs in its short fields only ({@link Fingerprints#shortFields}): a
   * word repeated across a record's name and type fields ("arts deli | … | delis") is no subject
   * the way a post's product, repeated through its title and text, is.
   */
  static boolean onlyInShortFields(Keys post, long key) {
    int shortFields = post.shortFields();
    if (shortFields == 0) {
      return false;
    }
    int[] fields = post.keyFields();
    int at = Arrays.binarySearch(post.keys(), key);
    return fields != null
        && at >= 0
        && fields.length == post.keys().length
        && (fields[at] & ~shortFields) == 0;
  }

  /**
   * The shared-number rule: true unless both posts carry two or more numbers, share none, and
   * differ in some other term. Number keys are a subset of the word keys, so with no shared number
   * the shared word keys are all non-number ones: every other term is shared when the shared count
   * equals each post's count of non-number word keys.
   */
  private static boolean numbersAgree(Keys record, Keys candidate) {
    long[] numbers = record.numbers();
    if (numbers.length < 2) {
      return true;
    }
    long[] candidateNumbers = candidate.numbers();
    if (candidateNumbers.length < 2 || NearSimilarity.sharedCount(numbers, candidateNumbers) > 0) {
      return true;
    }
    long[] keys = KeySets.wordKeys(record);
    long[] candidateKeys = KeySets.wordKeys(candidate);
    int shared = NearSimilarity.sharedCount(keys, candidateKeys);
    return shared == keys.length - numbers.length
        && shared == candidateKeys.length - candidateNumbers.length;
  }

  /**
   * Veto 2 of {@link #firstFailure}: false when both posts carry phone numbers and share none (the
   * caller reads the candidate's only when the record has some). A pair for which it is false is no
   * near duplicate.
   */
  static boolean phonesAgree(long[] tel, long[] candidateTel) {
    return tel.length == 0
        || candidateTel.length == 0
        || NearSimilarity.sharedCount(tel, candidateTel) > 0;
  }
}
