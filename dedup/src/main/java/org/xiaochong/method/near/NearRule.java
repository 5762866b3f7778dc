package org.xiaochong.method.near;

import java.util.Arrays;
import java.util.function.LongToDoubleFunction;
import org.xiaochong.fingerprint.Evidence;
import org.xiaochong.fingerprint.Fingerprints;
import org.xiaochong.fingerprint.NearConfig;
import org.xiaochong.fingerprint.NearSimilarity;
import org.xiaochong.index.NearSchema;
import org.xiaochong.policy.KeepPolicy;

/**
 * The near-duplicate rule, shared by the near pass ({@link NearPass}), the online check ({@code
 * NearCheck}) and the apply's re-check: whether a candidate is a record's near duplicate, and which
 * of several near duplicates it points to (which keys it looks up: {@link NearCandidates}). Change
 * the rule here and all follow. Stateless and thread-safe.
 *
 * <p>Over 300 lines because {@link #similarity} (three views of one pair: all keys, words only, the
 * typo-tolerant short fields, each leaving out the fields one record lacks), the vetoes and {@link
 * #why} must read the same keys in the same order, or the report's reasons would drift from the
 * decisions; the key-set helpers they share are at the bottom.
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
   * The factor on the typo-tolerant view's similarity ({@link #similarity}): 0.925, so that view
   * alone must reach near.min-similarity / 0.925 (0.54 at the default 0.5). It is the most lenient
   * of the three views (a short field's changed letters cost a few q-grams, where the word view
   * loses the whole word), so it needs more agreement. Measured on every labelled set, one value
   * for all: 1.0 took childcare's precision to 0.968 and cora's to 0.988; 0.95 childcare's to
   * 0.969; 0.9 kept 2 points less of febrl3's recall than 0.925 (NEAR-FINGERPRINTS.md).
   */
  static final double TYPO_DISCOUNT = 0.925;

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
     * #comparableKeys}). Sharing one key only the two of them hold is the least a duplicate shows;
     * in the terms of a Fellegi-Sunter model, the evidence must outweigh the prior odds, about 1 in
     * N, that a record's match is any given other record.
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
   * The similarity of two posts: {@link NearSimilarity#weightedJaccard} of their keys of every
   * family with the key weights of the run (the idf of each key in the near index, see {@link
   * NearSimilarity#idf}), or of their word keys alone, or {@link #TYPO_DISCOUNT} times that of
   * their typo-tolerant views, whichever is highest, with the weight of what the two contradict
   * ({@link Evidence#against}: another place, another quantity) added to each view's union:
   *
   * <pre>
   * similarity = max(sim(all keys), sim(word keys), 0.925 * sim(q-grams of the short fields both have
   *                                                     + word keys of the other fields))
   * sim(A, B)  = Σ_{A∩B} w / (Σ_{A∪B} w + against(A, B))
   * </pre>
   *
   * The q-grams are there to add evidence where a word was mistyped; where whole words differ
   * (another category word, another name) each differing word would otherwise count once for its
   * word key and again for each of its q-grams. In a short field (three words or fewer in both
   * posts: a name, a street, a code) a typo is the usual variation and the field's word keys are
   * lost wholesale, so the third view compares such a field by its q-grams only; longer text stays
   * compared by its words (another word in a title is another claim, not a typo). Each sum leaves
   * out the keys of a field one post lacks ({@link #comparableKeys}). A contradicted place or
   * number is evidence against the pair, weighed like a key (the idf of its value): its words, when
   * the text holds them, already count once as keys only one post holds; the contradiction counts
   * them again, because another place or lot is a claim the two posts cannot both make. This is the
   * near pass's dedup_score.
   */
  public static double similarity(Keys record, Keys candidate, LongToDoubleFunction weight) {
    return similarity(record, candidate, weight, Double.NEGATIVE_INFINITY);
  }

  /**
   * {@link #similarity}, or a value below {@code floor} without weighing the evidence when the keys
   * alone stay below it (the evidence only lowers the similarity, so the pair fails either way).
   */
  private static double similarity(
      Keys record, Keys candidate, LongToDoubleFunction weight, double floor) {
    // Kept small: this runs for every compared pair (9.3M in the 1M bench) and should stay inlined.
    long[] keys = record.keys();
    long[] candidateKeys = candidate.keys();
    int present = record.presentFields();
    int candidatePresent = candidate.presentFields();
    if (present != candidatePresent
        && present != 0
        && candidatePresent != 0) { // equal: nothing to leave out
      if ((candidatePresent & ~present) == 0) {
        keys =
            comparableKeys(
                record,
                candidatePresent,
                candidateKeys); // the candidate lacks fields, has no others
      } else if ((present & ~candidatePresent) == 0) {
        candidateKeys = comparableKeys(candidate, present, keys);
      }
    }
    double all = NearSimilarity.weightedJaccard(keys, candidateKeys, weight);
    double best =
        record.grams().length == 0
            ? all
            : otherViews(all, record, keys, candidate, candidateKeys, weight, 0);
    if (best < floor || best == 0) {
      return best;
    }
    double against = record.evidence().against(candidate.evidence(), weight);
    if (against == 0) {
      return best;
    }
    all = NearSimilarity.weightedJaccard(keys, candidateKeys, weight, against);
    return record.grams().length == 0
        ? all
        : otherViews(all, record, keys, candidate, candidateKeys, weight, against);
  }

  /**
   * The word and typo-tolerant views of {@link #similarity} for posts with q-grams: the highest of
   * the three.
   */
  private static double otherViews(
      double all,
      Keys record,
      long[] keys,
      Keys candidate,
      long[] candidateKeys,
      LongToDoubleFunction weight,
      double against) {
    double words =
        NearSimilarity.weightedJaccard(
            minus(minus(keys, record.grams()), record.shingles()),
            minus(minus(candidateKeys, candidate.grams()), candidate.shingles()),
            weight,
            against);
    int shortFields = record.shortFields() & candidate.shortFields();
    if (shortFields == 0) {
      return Math.max(all, words);
    }
    long[] typo = typoKeys(record, keys, shortFields);
    long[] candidateTypo = typoKeys(candidate, candidateKeys, shortFields);
    if (typo.length == 0 || candidateTypo.length == 0) {
      return Math.max(all, words);
    }
    return Math.max(
        Math.max(all, words),
        TYPO_DISCOUNT * NearSimilarity.weightedJaccard(typo, candidateTypo, weight, against));
  }

  /**
   * The keys of {@code post} that are evidence about the pair: those in a field the other post has
   * something in ({@code otherPresent}), and those the other post holds. A key of a field the other
   * post left empty (a missing address line, an unknown date of birth) says nothing for or against
   * the pair, so it is left out of both sums of the weighted Jaccard; a key of a field both filled
   * in and only one holds still counts against them. With the fields unknown (an index of an older
   * layout), all keys.
   */
  static long[] comparableKeys(Keys post, int otherPresent, long[] otherKeys) {
    long[] keys = post.keys();
    int[] fields = post.keyFields();
    if (fields == null || fields.length != keys.length) {
      return keys;
    }
    long[] out = new long[keys.length];
    int n = 0;
    for (int i = 0; i < keys.length; i++) {
      if ((fields[i] & otherPresent) != 0 || Arrays.binarySearch(otherKeys, keys[i]) >= 0) {
        out[n++] = keys[i];
      }
    }
    return n == keys.length ? keys : Arrays.copyOf(out, n);
  }

  /** {@link #isNearDuplicate(Keys, Keys, NearConfig, KeyWeights)} with every key weighing 1. */
  public static boolean isNearDuplicate(Keys record, Keys candidate, NearConfig config) {
    return isNearDuplicate(record, candidate, config, UNIT_WEIGHTS);
  }

  /**
   * The near-duplicate decision: the weighted similarity test of {@link
   * NearSimilarity#isNearDuplicate(long[], long[], LongToDoubleFunction, NearConfig)} over the keys
   * of every family with {@code weight} (the pass and the check give each key its idf), the shared
   * keys weighing at least {@link KeyWeights#leastShared}, with near.shingles the same test on the
   * shingles alone (the word order), then the vetoes of NEAR-FINGERPRINTS.md ("Vetoes"), each a
   * cheap test of evidence that two similar posts are different offers:
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
   *       phones) and share none, every other term must be shared. A repost changes its price or
   *       its quantity and little else (both may change: "约280斤 … 850元" for "约300斤 … 800元"), while
   *       the same seller's next offer of the same product has other numbers <em>and</em> another
   *       origin, grade or description. With one number each (a price only) there is no veto.
   * </ol>
   */
  public static boolean isNearDuplicate(
      Keys record, Keys candidate, NearConfig config, KeyWeights weight) {
    return why(record, candidate, config, weight) == null;
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
     * The keys alone reach near.min-similarity, but not once the places and numbers the two
     * contradict count against them ({@link Evidence#against}); or they contradict a place or an
     * amount that is not a date ({@link Evidence#contradicts}).
     */
    CONTRADICTED
  }

  /**
   * The first test of {@link #isNearDuplicate(Keys, Keys, NearConfig, KeyWeights)} the pair fails,
   * or null for a near duplicate.
   */
  public static Failure why(Keys record, Keys candidate, NearConfig config, KeyWeights weight) {
    long[] keys = record.keys();
    long[] candidateKeys = candidate.keys();
    if (keys.length == 0 || candidateKeys.length == 0) {
      return Failure.TOO_FEW_SHARED;
    }
    int shared = NearSimilarity.sharedCount(keys, candidateKeys);
    if (shared < Math.min(config.minShared(), Math.min(keys.length, candidateKeys.length))) {
      return Failure.TOO_FEW_SHARED;
    }
    double similarity = similarity(record, candidate, weight, config.minSimilarity());
    if (similarity < config.minSimilarity()) {
      return similarity(record, candidate, weight, Double.POSITIVE_INFINITY)
              < config.minSimilarity()
          ? Failure.SIMILARITY
          : Failure.CONTRADICTED;
    }
    if (record.evidence().contradicts(candidate.evidence())) {
      return Failure.CONTRADICTED;
    }
    // A key of the record's word keys that the candidate holds is one of its word keys too: the
    // families
    // hash distinct text (a q-gram or shingle key is no word's key), so the candidate's need not be
    // read.
    if (weight.leastShared() > 0
        && NearSimilarity.sharedWeight(wordKeys(record), candidateKeys, weight)
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
    if (!phonesAgree(record.tel(), candidate)) {
      return Failure.PHONE;
    }
    if (config.requireSharedNumber() && !numbersAgree(record, candidate)) {
      return Failure.NUMBER;
    }
    long[] matches = record.matches();
    if (matches.length > 0) {
      long[] candidateMatches = candidate.matches();
      for (int i = 0; i < Math.min(matches.length, candidateMatches.length); i++) {
        if (matches[i] != 0 && candidateMatches[i] != 0 && matches[i] != candidateMatches[i]) {
          return Failure.MUST_MATCH;
        }
      }
    }
    return null;
  }

  /**
   * The keys of the typo-tolerant view of a post among {@code keys} (its keys, or those {@link
   * #comparableKeys} kept), with {@code shortFields} the fields short in both posts: a field short
   * in one post and long in the other is compared by its words on both sides, so both views hold
   * the same kind of key for it.
   */
  private static long[] typoKeys(Keys post, long[] keys, int shortFields) {
    int[] fields = post.keyFields();
    if (fields == null || fields.length != post.keys().length) {
      return new long[0];
    }
    long[] view =
        Fingerprints.typoKeys(post.keys(), fields, post.grams(), post.shingles(), shortFields);
    return keys == post.keys() ? view : only(view, keys);
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
  static long[] wordKeys(Keys post) {
    return minus(minus(post.keys(), post.grams()), post.shingles());
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
    long[] keys = wordKeys(record);
    long[] candidateKeys = wordKeys(candidate);
    int shared = NearSimilarity.sharedCount(keys, candidateKeys);
    return shared == keys.length - numbers.length
        && shared == candidateKeys.length - candidateNumbers.length;
  }

  /**
   * False when both posts carry phone numbers and share none (the candidate's are read only if
   * needed).
   */
  private static boolean phonesAgree(long[] tel, Keys candidate) {
    if (tel.length == 0) {
      return true;
    }
    long[] candidateTel = candidate.tel();
    return candidateTel.length == 0 || NearSimilarity.sharedCount(tel, candidateTel) > 0;
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
