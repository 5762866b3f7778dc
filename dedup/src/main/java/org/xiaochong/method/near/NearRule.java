package org.xiaochong.method.near;

import java.util.function.LongToDoubleFunction;
import org.xiaochong.method.near.fingerprint.Evidence;
import org.xiaochong.method.near.fingerprint.Fingerprints;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.method.near.fingerprint.NearSimilarity;
import org.xiaochong.method.near.index.NearSchema;
import org.xiaochong.policy.KeepPolicy;

/**
 * The near-duplicate rule, shared by the near pass ({@link NearPass}), the online check ({@code
 * NearCheck}) and the apply's re-check: whether a candidate is a record's near duplicate, and which
 * of several near duplicates it points to (which keys it looks up: {@link NearCandidates}). Change
 * the rule here and all follow: the similarity in {@link RuleSimilarity}, the tests and vetoes in
 * their order in {@link RuleVerdict}. Stateless and thread-safe.
 *
 * <p>Over 300 lines because its nested types ({@link Keys}, {@link Stored}, {@link KeyWeights},
 * {@link Failure}) are the rule's vocabulary that the spark module compiles against as {@code
 * NearRule.Stored} and {@code NearRule.Keys}; moving them would change every caller's signature.
 */
public final class NearRule {
  private NearRule() {}

  /**
   * The keys of one post as the near index stores them ({@link NearSchema}). An implementation may
   * read {@link #top} and {@link #tel} lazily: the rule asks for them only after the similarity
   * passed.
   */
  public interface Keys {
    /** All distinct keys, ascending. */
    long[] keys();

    /**
     * The post's subject key (its most frequent term when repeated, {@link NearSchema#topKeys}), or
     * none.
     */
    long[] top();

    /** The keys of the post's {@code tel:} terms, ascending (empty when it has none). */
    long[] tel();

    /** The keys of the post's number terms (not phones), ascending (empty when it has none). */
    long[] numbers();

    /**
     * One key per fields.must-match column, in config order, 0 for an empty value (empty when
     * none).
     */
    long[] matches();

    /** The keys of the q-gram family, ascending (a subset of {@link #keys}). */
    default long[] grams() {
      return new long[0];
    }

    /**
     * The keys of the shingle family, ascending (a subset of {@link #keys}; empty unless
     * near.shingles).
     */
    default long[] shingles() {
      return new long[0];
    }

    /** The mask of the post's short fields ({@link Fingerprints#shortFields}); 0 when none. */
    default int shortFields() {
      return 0;
    }

    /**
     * The mask of the near fields that gave the post a key ({@link Fingerprints#presentFields}); 0:
     * unknown.
     */
    default int presentFields() {
      return 0;
    }

    /**
     * Per key of {@link #keys}, the mask of its fields ({@link Fingerprints#sortedKeyFields});
     * null: unknown.
     */
    default int[] keyFields() {
      return null;
    }

    /**
     * What the post says about its item that a near duplicate must not contradict: its place and
     * number values and the amounts of its text ({@link Evidence}); none when unknown.
     */
    default Evidence evidence() {
      return Evidence.NONE;
    }
  }

  /** Keys held in memory. */
  public record Stored(
      long[] keys,
      long[] top,
      long[] tel,
      long[] numbers,
      long[] matches,
      long[] grams,
      long[] shingles,
      int presentFields,
      int[] keyFields,
      int shortFields,
      Evidence evidence)
      implements Keys {
    /** Keys of every family with their fields and short fields, no evidence. */
    public Stored(
        long[] keys,
        long[] top,
        long[] tel,
        long[] numbers,
        long[] matches,
        long[] grams,
        long[] shingles,
        int presentFields,
        int[] keyFields,
        int shortFields) {
      this(
          keys,
          top,
          tel,
          numbers,
          matches,
          grams,
          shingles,
          presentFields,
          keyFields,
          shortFields,
          Evidence.NONE);
    }

    /** Keys of every family, fields unknown. */
    public Stored(
        long[] keys,
        long[] top,
        long[] tel,
        long[] numbers,
        long[] matches,
        long[] grams,
        long[] shingles) {
      this(keys, top, tel, numbers, matches, grams, shingles, 0, null, 0);
    }

    /** Keys of every family with their fields, no typo-tolerant view. */
    public Stored(
        long[] keys,
        long[] top,
        long[] tel,
        long[] numbers,
        long[] matches,
        long[] grams,
        long[] shingles,
        int presentFields,
        int[] keyFields) {
      this(keys, top, tel, numbers, matches, grams, shingles, presentFields, keyFields, 0);
    }

    /** Keys without numbers or must-match values. */
    public Stored(long[] keys, long[] top, long[] tel) {
      this(keys, top, tel, new long[0], new long[0]);
    }

    /** Word keys only (no q-gram or shingle family). */
    public Stored(long[] keys, long[] top, long[] tel, long[] numbers, long[] matches) {
      this(keys, top, tel, numbers, matches, new long[0], new long[0]);
    }

    /**
     * The keys the near index stores for these fingerprints (same arrays as {@link
     * NearSchema#document}), with the amounts of the text as the only evidence (no place or number
     * columns).
     */
    /** Every key of {@code keys} read into memory at once (itself when it is held already). */
    public static Stored copyOf(Keys keys) {
      return keys instanceof Stored stored
          ? stored
          : new Stored(
              keys.keys(),
              keys.top(),
              keys.tel(),
              keys.numbers(),
              keys.matches(),
              keys.grams(),
              keys.shingles(),
              keys.presentFields(),
              keys.keyFields(),
              keys.shortFields(),
              keys.evidence());
    }

    public static Stored of(Fingerprints fingerprints, int pre, long[] matchKeys) {
      return of(fingerprints, pre, matchKeys, Evidence.ofText(fingerprints));
    }

    /**
     * The keys the near index stores for these fingerprints and this evidence ({@link
     * NearSchema#document}).
     */
    public static Stored of(
        Fingerprints fingerprints, int pre, long[] matchKeys, Evidence evidence) {
      return new Stored(
          fingerprints.sortedKeys(),
          NearSchema.topKeys(fingerprints, pre),
          NearSchema.telKeys(fingerprints),
          NearSchema.numberKeys(fingerprints),
          matchKeys,
          fingerprints.sortedGrams(),
          fingerprints.sortedShingles(),
          fingerprints.presentFields(),
          fingerprints.sortedKeyFields(),
          fingerprints.shortFields(),
          evidence);
    }
  }

  /**
   * Every key weighs 1: the similarity is the plain Jaccard shared / union; no least shared weight.
   */
  public static final KeyWeights UNIT_WEIGHTS = key -> 1.0;

  /**
   * The weight of each key for the rule, and the least total weight of the keys two near duplicates
   * must share ({@link #leastShared}).
   */
  @FunctionalInterface
  public interface KeyWeights extends LongToDoubleFunction {
    /**
     * The least total weight of the keys a near-duplicate pair shares: 0 (none) unless the weights
     * know the size of the table, see {@link #idf}.
     */
    default double leastShared() {
      return 0;
    }

    /**
     * Idf weights in a table of {@code records}; a near-duplicate pair must share word keys
     * weighing at least as much as one key only two records hold, idf(2, N) = ln(1 + N / 2). Word
     * keys, because the q-grams of a word only repeat its evidence (a shared "various" is also a
     * shared "var", "ari", …). The similarity is a ratio, so two records that hold little besides
     * keys half the table holds (a year, "various", a state, what is left of text broken by a wrong
     * encoding) look alike however little they say: on the FreeDB CDs a record whose only key was
     * its year was "identical" to every CD of that year (a missing field is no evidence, {@link
     * RuleSimilarity#comparableKeys}). Sharing one key only the two of them hold is the least a
     * duplicate shows; in the terms of a Fellegi-Sunter model, the evidence must outweigh the prior
     * odds, about 1 in N, that a record's match is any given other record.
     */
    static KeyWeights idf(LongToDoubleFunction weight, long records) {
      double least = NearSimilarity.idf(2, records);
      return new KeyWeights() {
        @Override
        public double applyAsDouble(long key) {
          return weight.applyAsDouble(key);
        }

        @Override
        public double leastShared() {
          return least;
        }
      };
    }
  }

  /**
   * The similarity of two posts, the near pass's dedup_score: the highest of three views of their
   * keys (all keys, word keys, the typo-tolerant short fields) with the key weights of the run,
   * what the two contradict counted against them ({@link RuleSimilarity}).
   */
  public static double similarity(Keys record, Keys candidate, LongToDoubleFunction weight) {
    return RuleSimilarity.similarity(record, candidate, weight, Double.NEGATIVE_INFINITY);
  }

  /** {@link #isNearDuplicate(Keys, Keys, NearConfig, KeyWeights)} with every key weighing 1. */
  public static boolean isNearDuplicate(Keys record, Keys candidate, NearConfig config) {
    return isNearDuplicate(record, candidate, config, UNIT_WEIGHTS);
  }

  /**
   * The near-duplicate decision: the weighted similarity test over the keys of every family with
   * {@code weight} (the pass and the check give each key its idf), then the vetoes of docs/near.md
   * ("Vetoes"), each a cheap test of evidence that two similar posts are different offers; the
   * tests, in order: {@link RuleVerdict}.
   */
  public static boolean isNearDuplicate(
      Keys record, Keys candidate, NearConfig config, KeyWeights weight) {
    return why(record, candidate, config, weight) == null;
  }

  /**
   * Whether the rule joins the pair because they are the same seller's repost of one offer ({@link
   * SellerRepost}): their amounts (a price, a lot) count against them, and the rule lifts them. For
   * {@code explain}; true only for pairs whose amounts differ.
   */
  public static boolean isSellerRepost(Keys record, Keys candidate) {
    Evidence evidence = record.evidence();
    Evidence other = candidate.evidence();
    return evidence.against(other, UNIT_WEIGHTS) > evidence.against(other, UNIT_WEIGHTS, true)
        && SellerRepost.test(record, candidate);
  }

  /** Why a candidate is no near duplicate of a record (the first test it fails), for reports. */
  public enum Failure {
    /** Fewer shared keys than min(near.min-shared, |A|, |B|). */
    TOO_FEW_SHARED,
    /** Weighted similarity below near.min-similarity. */
    SIMILARITY,
    /**
     * The shared word keys weigh less than {@link KeyWeights#leastShared} (one key only two records
     * hold).
     */
    LITTLE_EVIDENCE,
    /** near.shingles: the shingles alone are below near.min-similarity (other word order). */
    ORDER,
    /** Veto 1: a subject (repeated top term) the other post lacks. */
    SUBJECT,
    /** Veto 2: both carry phone numbers and share none. */
    PHONE,
    /** Veto 4: both carry 2+ numbers and share none, and other terms differ. */
    NUMBER,
    /** Veto 3: a must-match field differs. */
    MUST_MATCH,
    /**
     * The keys alone reach near.min-similarity, but not once the places, grades and numbers the two
     * contradict count against them ({@link Evidence#against}); or they contradict a place, a grade
     * or size, or an amount that is not a date ({@link Evidence#contradicts}). The same seller's
     * repost of one offer has its amounts lifted ({@link SellerRepost}): only another place or
     * grade contradicts it.
     */
    CONTRADICTED
  }

  /**
   * The first test of {@link #isNearDuplicate(Keys, Keys, NearConfig, KeyWeights)} the pair fails,
   * or null for a near duplicate.
   */
  public static Failure why(Keys record, Keys candidate, NearConfig config, KeyWeights weight) {
    return RuleVerdict.firstFailure(record, candidate, config, weight);
  }

  /**
   * Whether a near duplicate (similarity, keep rank, id) beats the best one so far: more similar,
   * or as similar and kept over it by the keep policy ({@link KeepPolicy#compare(long, long, long,
   * long)}), so the record points to the copy that is kept. The first one always wins when {@code
   * bestSimilarity} is negative.
   */
  public static boolean isBetter(
      double similarity, long rank, long id, double bestSimilarity, long bestRank, long bestId) {
    if (similarity != bestSimilarity) {
      return similarity > bestSimilarity;
    }
    return KeepPolicy.isPreferred(rank, id, bestRank, bestId);
  }

  /**
   * As {@link #isBetter(double, long, long, double, long, long)} with whole ranks ({@link
   * KeepPolicy#rank}).
   */
  public static boolean isBetter(
      double similarity,
      long[] rank,
      long id,
      double bestSimilarity,
      long[] bestRank,
      long bestId) {
    if (similarity != bestSimilarity) {
      return similarity > bestSimilarity;
    }
    return KeepPolicy.isPreferred(rank, id, bestRank, bestId);
  }
}
