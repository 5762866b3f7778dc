package org.xiaochong.urls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.xiaochong.bloom.CountingBloomFilter;
import org.xiaochong.bloom.FilterShape;
import org.xiaochong.bloom.PrefilterSnapshot;

/**
 * Which (canonical) URLs a crawler has already seen (seed 001): a Bloom filter over the MD5 of the
 * URL. Defaults m/N = 20 bits and k = 10 give a false positive rate of 8.89e-5 at N URLs (about 9
 * in 100,000 new URLs are wrongly skipped). Never a false negative: a URL marked seen is always
 * reported seen.
 *
 * <p>Two kinds: {@link #plain} (1 bit per position, 2.5 bytes per URL at the defaults) and {@link
 * #counting} (4-bit counters, 4x the memory) which can also {@link #forget} a URL, e.g. to let a
 * recrawl through. Both are a {@link CountingBloomFilter}: the plain one with 1-bit counters, which
 * saturate at 1 and so can never be decremented. Saved and loaded with {@link PrefilterSnapshot}'s
 * versioned, checksummed format.
 *
 * <p>Callers canonicalize first ({@link UrlCanonicalizer}); this class hashes the string as given.
 * Not thread-safe (one MD5 digester and scratch buffer per instance).
 */
final class UrlSeenFilter {

  static final double DEFAULT_BITS_PER_KEY = 20;
  static final int DEFAULT_HASHES = 10;

  private final CountingBloomFilter filter;
  private final MessageDigest md5;
  private final byte[] digest = new byte[CountingBloomFilter.KEY_BYTES];

  private UrlSeenFilter(CountingBloomFilter filter) {
    this.filter = filter;
    try {
      this.md5 = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must provide MD5", e);
    }
  }

  /** A plain Bloom filter: {@code bitsPerKey} bits per expected URL, {@code hashes} probes. */
  public static UrlSeenFilter plain(long expectedUrls, double bitsPerKey, int hashes) {
    return new UrlSeenFilter(
        new CountingBloomFilter(
            FilterShape.fromExpectedInsertions(expectedUrls, bitsPerKey, hashes)
                .withCounterBits(1)));
  }

  /** A counting filter with 4-bit counters, which supports {@link #forget}. */
  static UrlSeenFilter counting(long expectedUrls, double countersPerKey, int hashes) {
    return new UrlSeenFilter(
        new CountingBloomFilter(
            FilterShape.fromExpectedInsertions(expectedUrls, countersPerKey, hashes)));
  }

  /**
   * Loads a filter saved by {@link #save}.
   *
   * @throws org.xiaochong.bloom.PrefilterFormatException if the file is corrupt or truncated
   */
  public static UrlSeenFilter load(Path file) throws IOException {
    return new UrlSeenFilter(PrefilterSnapshot.read(file).filter());
  }

  /** Saves atomically (temporary file, then move). */
  public void save(Path file) throws IOException {
    PrefilterSnapshot.write(file, filter);
  }

  /**
   * Marks {@code url} seen; returns true if it certainly had not been seen before. A URL that may
   * have been seen is not added again, so each URL counts once and one {@link #forget} undoes it.
   */
  boolean markSeen(String url) {
    hash(url);
    if (filter.mightContain(digest)) {
      return false;
    }
    filter.put(digest);
    return true;
  }

  /** False: certainly never seen (or forgotten). True: seen, or a false positive. */
  boolean mightHaveSeen(String url) {
    hash(url);
    return filter.mightContain(digest);
  }

  /**
   * Forgets {@code url}; returns false if it was not in the filter. Forgetting a URL that was never
   * marked but is a false positive decrements other URLs' counters and may make one of them look
   * unseen (it gets crawled again): only forget URLs that were marked.
   *
   * @throws UnsupportedOperationException on a plain filter, whose bits cannot be cleared
   */
  public boolean forget(String url) {
    if (!isCounting()) {
      throw new UnsupportedOperationException(
          "a plain Bloom filter cannot forget a URL; use a counting filter");
    }
    hash(url);
    return filter.remove(digest);
  }

  /** Whether {@link #forget} is supported. */
  boolean isCounting() {
    return filter.shape().counterBits() > 1;
  }

  public FilterShape shape() {
    return filter.shape();
  }

  public long memoryBytes() {
    return filter.memoryBytes();
  }

  /** URLs marked minus URLs forgotten. */
  public long netInsertions() {
    return filter.netInsertions();
  }

  private void hash(String url) {
    md5.update(url.getBytes(StandardCharsets.UTF_8));
    try {
      md5.digest(digest, 0, digest.length);
    } catch (DigestException e) {
      throw new IllegalStateException("MD5 digest must fit 16 bytes", e);
    }
  }
}
