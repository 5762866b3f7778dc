package org.xiaochong.method.near.fingerprint;

import java.util.concurrent.atomic.LongAdder;

/**
 * Where the fingerprinting time of a {@link TopTermsMd5} goes, per near key family, summed over the
 * threads that share it: the word keys (folding, numbers, smartcn segmentation, counting, ranking
 * and hashing the terms), the q-gram keys and the shingle keys, and the whole of {@link
 * TopTermsMd5#fingerprint} (normalization and the fields' bookkeeping are the rest). Also the
 * sentence cache's hits and misses ({@link SentenceCachingAnalyzer}). Thread-safe.
 *
 * <p>Cheap: each thread adds its own {@code System.nanoTime} differences (a few per post, tens of
 * nanoseconds against tens of microseconds of segmentation) to {@link LongAdder}s, which do not
 * contend.
 */
public final class NearKeyTimes {
  private final LongAdder posts = new LongAdder();
  private final LongAdder totalNanos = new LongAdder();
  private final LongAdder wordNanos = new LongAdder();
  private final LongAdder gramNanos = new LongAdder();
  private final LongAdder shingleNanos = new LongAdder();
  private final LongAdder sentenceHits = new LongAdder();
  private final LongAdder sentenceMisses = new LongAdder();

  void addPost(long total, long words, long grams, long shingles) {
    posts.increment();
    totalNanos.add(total);
    wordNanos.add(words);
    gramNanos.add(grams);
    shingleNanos.add(shingles);
  }

  void addSentences(long hits, long misses) {
    sentenceHits.add(hits);
    sentenceMisses.add(misses);
  }

  /** The sums so far. */
  public Snapshot snapshot() {
    return new Snapshot(
        posts.sum(),
        totalNanos.sum() / 1e9,
        wordNanos.sum() / 1e9,
        gramNanos.sum() / 1e9,
        shingleNanos.sum() / 1e9,
        sentenceHits.sum(),
        sentenceMisses.sum());
  }

  /**
   * Thread-seconds (summed over the threads) of fingerprinting.
   *
   * @param posts posts fingerprinted
   * @param total seconds in {@link TopTermsMd5#fingerprint}, the families included
   * @param words seconds producing the word keys (steps 3-9: smartcn segmentation is most of it)
   * @param grams seconds producing the q-gram keys
   * @param shingles seconds producing the shingle keys (their words come from the word step)
   * @param sentenceHits sentences whose words the sentence cache knew
   * @param sentenceMisses sentences smartcn segmented
   */
  public record Snapshot(
      long posts,
      double total,
      double words,
      double grams,
      double shingles,
      long sentenceHits,
      long sentenceMisses) {
    public static final Snapshot NONE = new Snapshot(0, 0, 0, 0, 0, 0, 0);

    /** The share of sentences the cache knew, in [0, 1]; 0 when none were segmented. */
    public double sentenceHitRate() {
      long all = sentenceHits + sentenceMisses;
      return all == 0 ? 0 : (double) sentenceHits / all;
    }
  }
}
