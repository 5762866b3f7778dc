package org.xiaochong.method.near;

import java.util.Arrays;
import java.util.function.LongToDoubleFunction;
import org.xiaochong.method.near.NearRule.Keys;
import org.xiaochong.method.near.fingerprint.Evidence;
import org.xiaochong.method.near.fingerprint.Fingerprints;
import org.xiaochong.method.near.fingerprint.NearSimilarity;

/**
 * The similarity of two posts in the near rule ({@link NearRule#similarity}): {@link
 * NearSimilarity#weightedJaccard} of their keys of every family with the key weights of the run
 * (the idf of each key in the near index, see {@link NearSimilarity#idf}), or of their word keys
 * alone, or {@link #TYPO_DISCOUNT} times that of their typo-tolerant views, whichever is highest,
 * with the weight of what the two contradict ({@link Evidence#against}: another place, another
 * quantity) added to each view's union:
 *
 * <pre>
 * similarity = max(sim(all keys), sim(word keys), 0.925 * sim(q-grams of the short fields both have
 *                                                     + word keys of the other fields))
 * sim(A, B)  = Σ_{A∩B} w / (Σ_{A∪B} w + against(A, B))
 * </pre>
 *
 * The q-grams are there to add evidence where a word was mistyped; where whole words differ
 * (another category word, another name) each differing word would otherwise count once for its word
 * key and again for each of its q-grams. In a short field (three words or fewer in both posts: a
 * name, a street, a code) a typo is the usual variation and the field's word keys are lost
 * wholesale, so the third view compares such a field by its q-grams only; longer text stays
 * compared by its words (another word in a title is another claim, not a typo). Each sum leaves out
 * the keys of a field one post lacks ({@link #comparableKeys}). A contradicted place or number is
 * evidence against the pair, weighed like a key (the idf of its value): its words, when the text
 * holds them, already count once as keys only one post holds; the contradiction counts them again,
 * because another place or lot is a claim the two posts cannot both make; but not the amounts of
 * the same seller's repost of one offer ({@link SellerRepost}): its new price or lot is an update.
 * This is the near pass's dedup_score. Stateless and thread-safe.
 */
final class RuleSimilarity {
  private RuleSimilarity() {}

  /**
   * The factor on the typo-tolerant view's similarity ({@link #similarity}): 0.925, so that view
   * alone must reach near.min-similarity / 0.925 (0.54 at the default 0.5). It is the most lenient
   * of the three views (a short field's changed letters cost a few q-grams, where the word view
   * loses the whole word), so it needs more agreement. Measured on every labelled set, one value
   * for all: 1.0 took childcare's precision to 0.968 and cora's to 0.988; 0.95 childcare's to
   * 0.969; 0.9 kept 2 points less of febrl3's recall than 0.925 (bench/RESULTS.md, "The near
   * method's measurements").
   */
  static final double TYPO_DISCOUNT = 0.925;

  /**
   * The similarity, or a value below {@code floor} without weighing the evidence when the keys
   * alone stay below it (the evidence only lowers the similarity, so the pair fails either way).
   */
  static double similarity(Keys record, Keys candidate, LongToDoubleFunction weight, double floor) {
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
    if (against > 0 && SellerRepost.test(record, candidate)) {
      against = record.evidence().against(candidate.evidence(), weight, true);
    }
    if (against == 0) {
      return best;
    }
    all = NearSimilarity.weightedJaccard(keys, candidateKeys, weight, against);
    return record.grams().length == 0
        ? all
        : otherViews(all, record, keys, candidate, candidateKeys, weight, against);
  }

  /**
   * The word and typo-tolerant views of the similarity for posts with q-grams: the highest of the
   * three.
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
            KeySets.minus(KeySets.minus(keys, record.grams()), record.shingles()),
            KeySets.minus(KeySets.minus(candidateKeys, candidate.grams()), candidate.shingles()),
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
    return keys == post.keys() ? view : KeySets.only(view, keys);
  }
}
