package org.xiaochong.method.near.fingerprint;

/**
 * Why a near-duplicate fingerprint set is what it is. Only {@link #OK} carries fingerprints; the
 * others are empty sets that the pipeline reports as rejects (they are never silently dropped).
 * Append new constants at the end.
 */
public enum NearOutcome {
  /** At least one term survived; {@link Fingerprints#size()} > 0. */
  OK,
  /** All fields were null, blank or white space. */
  EMPTY_AFTER_NORMALIZE,
  /** Text remained, but segmentation found no word: only punctuation, symbols or emoji. */
  EMPTY_AFTER_SEGMENTATION,
  /** Words were found, but all of them are stop words ("欢迎来电咨询"). */
  ONLY_STOPWORDS
}
