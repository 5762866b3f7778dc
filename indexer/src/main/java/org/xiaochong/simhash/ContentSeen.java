package org.xiaochong.simhash;

/**
 * Seed 004's content-seen module: a 64-bit fingerprint per page and the likeness of two pages, (64
 * - Hamming distance) / 64. Uses the seed's default tokenizer, overlapping character 4-grams with
 * overlap 3, tf weights ({@link Simhash64}). Pages with likeness >= 61/64 (distance <= 3) can be
 * found in an index with {@link SimhashIndex}.
 *
 * <p>Meant for long texts (web pages): on a short post one edited character changes a large share
 * of its features and moves the fingerprint by several bits (docs/simhash.md). Thread-safe.
 */
public final class ContentSeen {
  private static final Simhash64 SHINGLES = Simhash64.withTf(Simhash64.Features.SHINGLES_4_3);

  private ContentSeen() {}

  /** The page's fingerprint; 0 for empty text. */
  public static long fingerprint(String text) {
    return SHINGLES.fingerprint(text);
  }

  /** (64 - distance(a, b)) / 64, in [0, 1]. */
  public static double likeness(long a, long b) {
    return Simhash64.likeness(a, b);
  }
}
