package org.xiaochong.method.near.fingerprint;

import org.xiaochong.normalize.ChineseFolding;

/**
 * Settings of the near-duplicate (multi-MD5) stage. Validated on construction; reading them from
 * properties is the caller's job.
 *
 * @param pre number of top-ranked fingerprints used as candidate keys (the seed's pre); in [1, 64]
 * @param minShared least number of shared fingerprints s for a near duplicate; the seed writes s >
 *     t, so the seed's t is {@code minShared - 1}; in [1, 1000]. A pair whose smaller set has fewer
 *     fingerprints needs all of them to match, see {@link NearSimilarity#isNearDuplicate}.
 * @param minSimilarity least similarity: the IDF-weighted Jaccard of {@link
 *     NearSimilarity#weightedJaccard} in the near pass and check, the plain Jaccard in {@link
 *     NearSimilarity#isNearDuplicate(Fingerprints, Fingerprints, NearConfig)}; in [0, 1]
 * @param maxChars analyzed length cap: the normalized, joined fields are cut to this many chars and
 *     the rest is ignored (reported as {@link Fingerprints#truncated()}); in [16, 10_000_000]
 * @param useIdf rank by tf * idf when document frequencies are supplied, else by raw tf
 * @param stopwordsLocation stop word list, see {@link org.xiaochong.normalize.WordLists}; "" for
 *     none
 * @param synonymsLocation synonym groups, see {@link ChineseFolding}; "" for none
 * @param foldTraditional fold traditional characters to simplified ones before segmentation
 * @param requireSharedNumber when both posts carry two or more numbers (quantities, prices, dates;
 *     not phone numbers) and share none, every other term must be shared for a near duplicate: a
 *     repost updates its price or stock and little else, while the same seller's next offer of the
 *     same product has other numbers and another origin, grade or description
 * @param grams add the character q-gram key family ({@link TopTermsMd5#GRAM_SIZE}-grams of every
 *     Latin word): keys that survive a typo, an abbreviation or a missing letter
 * @param shingles add the word-shingle key family (each run of three neighbouring words) and
 *     require the shingles alone to reach {@code minSimilarity} too: the same words in another
 *     order (a swapped subject and object) are then no near duplicate. For one-sentence records.
 */
public record NearConfig(
    int pre,
    int minShared,
    double minSimilarity,
    int maxChars,
    boolean useIdf,
    String stopwordsLocation,
    String synonymsLocation,
    boolean foldTraditional,
    boolean requireSharedNumber,
    boolean grams,
    boolean shingles) {

  /** The seed's pre: the first three fingerprints are the candidate keys. */
  public static final int DEFAULT_PRE = 3;

  /**
   * Five shared terms: a typical 200-char post has 20-40 distinct terms after stop words, and two
   * unrelated posts of one seller already share phone, name and place (3-4 terms).
   */
  public static final int DEFAULT_MIN_SHARED = 5;

  /**
   * 0.5 of the IDF-weighted Jaccard similarity ({@link NearSimilarity#weightedJaccard}), one value
   * for every table: on the labelled sets of {@code eval} 0.4 and 0.45 let childcare's and cora's
   * precision fall under 0.97 and 0.99 (docs/near.md, "Settings"); every step up loses typo pairs
   * of febrl and restaurants that score just above it.
   */
  public static final double DEFAULT_MIN_SIMILARITY = 0.5;

  /** 20,000 chars: about 50 times a typical post; longer text is mostly pasted boilerplate. */
  public static final int DEFAULT_MAX_CHARS = 20_000;

  public static final String DEFAULT_STOPWORDS = "classpath:/config/stopwords-zh.txt";

  public NearConfig {
    checkRange("pre", pre, 1, 64);
    checkRange("minShared", minShared, 1, 1000);
    if (!(minSimilarity >= 0 && minSimilarity <= 1)) {
      throw new IllegalArgumentException("minSimilarity (" + minSimilarity + ") must be in [0, 1]");
    }
    checkRange("maxChars", maxChars, 16, 10_000_000);
    if (stopwordsLocation == null) {
      throw new IllegalArgumentException(
          "stopwordsLocation (null) must be a location or \"\" for none");
    }
    if (synonymsLocation == null) {
      throw new IllegalArgumentException(
          "synonymsLocation (null) must be a location or \"\" for none");
    }
  }

  /** Defaults for agricultural supply/demand posts (see the constants). */
  public static NearConfig defaults() {
    return new NearConfig(
        DEFAULT_PRE,
        DEFAULT_MIN_SHARED,
        DEFAULT_MIN_SIMILARITY,
        DEFAULT_MAX_CHARS,
        false,
        DEFAULT_STOPWORDS,
        ChineseFolding.DEFAULT_SYNONYMS,
        true,
        true,
        true,
        false);
  }

  public NearConfig withPre(int newPre) {
    return with(c -> c.pre = newPre);
  }

  public NearConfig withMinShared(int newMinShared) {
    return with(c -> c.minShared = newMinShared);
  }

  public NearConfig withMinSimilarity(double newMinSimilarity) {
    return with(c -> c.minSimilarity = newMinSimilarity);
  }

  public NearConfig withMaxChars(int newMaxChars) {
    return with(c -> c.maxChars = newMaxChars);
  }

  public NearConfig withUseIdf(boolean newUseIdf) {
    return with(c -> c.useIdf = newUseIdf);
  }

  public NearConfig withStopwordsLocation(String location) {
    return with(c -> c.stopwordsLocation = location);
  }

  public NearConfig withSynonymsLocation(String location) {
    return with(c -> c.synonymsLocation = location);
  }

  public NearConfig withFoldTraditional(boolean fold) {
    return with(c -> c.foldTraditional = fold);
  }

  public NearConfig withRequireSharedNumber(boolean require) {
    return with(c -> c.requireSharedNumber = require);
  }

  public NearConfig withGrams(boolean newGrams) {
    return with(c -> c.grams = newGrams);
  }

  public NearConfig withShingles(boolean newShingles) {
    return with(c -> c.shingles = newShingles);
  }

  /** A copy with the settings {@code change} sets; validated as any config. */
  private NearConfig with(java.util.function.Consumer<Settings> change) {
    Settings settings = new Settings(this);
    change.accept(settings);
    return settings.build();
  }

  /** The settings of a config being copied, one of them changed. */
  private static final class Settings {
    int pre;
    int minShared;
    double minSimilarity;
    int maxChars;
    boolean useIdf;
    String stopwordsLocation;
    String synonymsLocation;
    boolean foldTraditional;
    boolean requireSharedNumber;
    boolean grams;
    boolean shingles;

    Settings(NearConfig config) {
      pre = config.pre;
      minShared = config.minShared;
      minSimilarity = config.minSimilarity;
      maxChars = config.maxChars;
      useIdf = config.useIdf;
      stopwordsLocation = config.stopwordsLocation;
      synonymsLocation = config.synonymsLocation;
      foldTraditional = config.foldTraditional;
      requireSharedNumber = config.requireSharedNumber;
      grams = config.grams;
      shingles = config.shingles;
    }

    NearConfig build() {
      return new NearConfig(
          pre,
          minShared,
          minSimilarity,
          maxChars,
          useIdf,
          stopwordsLocation,
          synonymsLocation,
          foldTraditional,
          requireSharedNumber,
          grams,
          shingles);
    }
  }

  private static void checkRange(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          name + " (" + value + ") must be in [" + min + ", " + max + "]");
    }
  }
}
