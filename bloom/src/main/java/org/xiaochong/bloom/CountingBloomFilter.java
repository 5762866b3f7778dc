package org.xiaochong.bloom;

import org.apache.lucene.util.BitUtil;

/**
 * Multiset of 128-bit keys (MD5 fingerprints) with n-bit saturating counters (n = 4 by default).
 * {@link #mightContain} never answers {@code false} for a key that was put and not removed, and
 * {@link #estimateCount} never reports less than min(true count, 2^n - 1), so errors are one-sided.
 * {@code n = 1} is a plain Bloom filter (counters are sticky at 1; {@link #remove} changes
 * nothing).
 *
 * <p>Not thread-safe: one instance per dedup run, or guard it externally.
 *
 * <p>Over 300 lines because it is one algorithm: the counters are packed 16 to a long word and
 * every operation (put, remove, query by key or by hash pair, saturation, the snapshot's restore)
 * reads or writes those words in the hot loop of the prefilter; the API is two small sets of
 * methods over one array, and the design comment below is its contract.
 */
public final class CountingBloomFilter {
  /*
   * Layout: counters of n bits (n in {1, 2, 4, 8}) packed 64/n per long, little end first: counter c
   *   of word w holds bits n*c .. n*c+n-1 of words[w], and counter p lives in word p >>> log2(64/n),
   *   slot p & (64/n - 1) (the packing of [1], generalised from 4 bits). No counter straddles a word.
   * Sizing: m = ceil(-N ln p / (ln 2)^2) counters, k = max(1, round(m/N ln 2)) [2]; the seeds use
   *   m/N = 20 with k = 8 or 10. Memory = m*n/8 bytes: 4 bits per counter is 1/8 of the int[] cells
   *   of Commons' ArrayCountingBloomFilter (see FilterShape, bench/RESULTS.md).
   * Indices: h1, h2 = MD5 bytes 0-7 and 8-15 (big-endian). g_i = h1 + i*h2 mod 2^64, i = 0..k-1, the
   *   double hashing of [3]: two independent halves of one uniform hash give k probes with the same
   *   asymptotic false positive rate as k independent hashes. MD5 is already uniform, so there is no
   *   second hash function and no rehash. The reduction to [0, m) is Lemire's fast range [5]:
   *   index = ((g >>> 32) * m) >>> 32, one multiply instead of a 64-bit modulo (m < 2^31, so the
   *   product fits in 63 bits). It uses the high 32 bits of g, which are as uniform as g.
   * Saturation: a counter at 2^n - 1 is sticky (never incremented or decremented again; seed 000,
   *   section 2.3). Decrementing it could create a false negative; keeping it only adds false
   *   positives. ImpCbFilter repairs sticky counters on delete by recounting its fingerprint store.
   *   With N keys the load of one counter is Binomial(kN, 1/m) ~ Poisson(lambda = kN/m). Fan et al. [4]
   *   bound P(any counter >= 16) <= m * (e * lambda / 16)^16; at the optimal k, lambda = ln 2, which
   *   gives <= 1.37e-15 * m. With m/N = 20: k = 8 (lambda = 0.4) P(one counter >= 16) ~ lambda^16
   *   e^-lambda / 16! = 1.4e-20, and k = 10 (lambda = 0.5) gives 4.4e-19 per counter. Reaching the
   *   sticky 15 at k = 10: 0.5^15 e^-0.5 / 15! = 1.4e-17 per counter, so ~3e-9 saturated counters
   *   expected in the 200M of a 10M-key filter (the benchmark's filled filter has 0).
   * False positives: P = (1 - e^(-kN/m))^k; m/N = 20: 1.40e-4 at k = 8, 8.89e-5 at k = 10 (seed 001).
   * Underflow: remove() of a key whose counters are not all non-zero is a caller bug (that key was
   *   never put). It is counted in underflows(), nothing is decremented, and the filter stays usable
   *   (cf. Commons ArrayCountingBloomFilter#isValid, which instead poisons the whole filter).
   * Why hand-written: no maintained library offers a packed 4-bit counting Bloom filter. Guava has
   *   no counting filter, and Commons Collections' ArrayCountingBloomFilter spends an int per counter.
   * [1] Caffeine FrequencySketch [2] Guava BloomFilter [3] Kirsch & Mitzenmacher 2006, "Less hashing,
   * same performance" [4] Fan, Cao, Almeida, Broder 2000, "Summary cache" [5] Lemire 2019, "Fast
   * random integer generation in an interval"
   */

  /** Length of an MD5 digest, the key this filter is built for. */
  public static final int KEY_BYTES = 16;

  private final FilterShape shape;
  private final long[] words;
  private final long m;
  private final int k;
  private final int bitsShift; // log2(n)
  private final int slotShift; // log2(64 / n): counter p is in word p >>> slotShift
  private final int slotMask; // 64 / n - 1
  private final long counterMask; // n low bits set
  private final int max; // 2^n - 1, the sticky value

  private long saturated;
  private long underflows;
  private long netInsertions;

  /** Empty filter of the given shape. */
  public CountingBloomFilter(FilterShape shape) {
    this(shape, new long[Math.toIntExact(shape.words())]);
  }

  /** Filter over existing words (snapshot load); recomputes the saturated count. */
  CountingBloomFilter(FilterShape shape, long[] words) {
    if (words.length != shape.words()) {
      throw new IllegalArgumentException(
          "words.length=" + words.length + ", expected " + shape.words() + " for " + shape);
    }
    this.shape = shape;
    this.words = words;
    this.m = shape.counters();
    this.k = shape.hashes();
    this.bitsShift = Integer.numberOfTrailingZeros(shape.counterBits());
    this.slotShift = 6 - bitsShift;
    this.slotMask = (1 << slotShift) - 1;
    this.counterMask = (1L << shape.counterBits()) - 1;
    this.max = shape.maxCounterValue();
    this.saturated = scanSaturated();
  }

  public FilterShape shape() {
    return shape;
  }

  // ---- keys as MD5 bytes ----

  /**
   * Adds one occurrence of {@code md5}. Returns whether any of its counters was 0, i.e. the key was
   * certainly absent before (Guava's "bits changed" meaning of {@code put}).
   */
  public boolean put(byte[] md5) {
    return put(high(md5), low(md5));
  }

  /** False means certainly never put (or removed as often as put); true means maybe present. */
  public boolean mightContain(byte[] md5) {
    return mightContain(high(md5), low(md5));
  }

  /**
   * Removes one occurrence of {@code md5}. Returns false, changes nothing and counts an underflow
   * if one of its counters is 0 (the key was not in the filter: a caller bug).
   */
  public boolean remove(byte[] md5) {
    return remove(high(md5), low(md5));
  }

  /** Minimum of the key's counters: >= min(true count, 2^n - 1). */
  public int estimateCount(byte[] md5) {
    return estimateCount(high(md5), low(md5));
  }

  /** Writes the key's k counter positions to {@code out[0..k)}. */
  public void positions(byte[] md5, int[] out) {
    positions(high(md5), low(md5), out);
  }

  // ---- keys as two 64-bit halves: no allocation ----

  /** As {@link #put(byte[])}, with h1 = MD5 bytes 0-7 and h2 = bytes 8-15, big-endian. */
  public boolean put(long h1, long h2) {
    int wasZero = 0;
    long g = h1;
    for (int i = 0; i < k; i++, g += h2) {
      wasZero |= increment(index(g)) == 0 ? 1 : 0;
    }
    netInsertions++;
    return wasZero != 0;
  }

  /** As {@link #mightContain(byte[])}. */
  public boolean mightContain(long h1, long h2) {
    long g = h1;
    for (int i = 0; i < k; i++, g += h2) {
      if (counter(index(g)) == 0) {
        return false;
      }
    }
    return true;
  }

  /** As {@link #remove(byte[])}. */
  public boolean remove(long h1, long h2) {
    if (!mightContain(h1, h2)) {
      underflows++;
      return false;
    }
    long g = h1;
    for (int i = 0; i < k; i++, g += h2) {
      decrement(index(g));
    }
    netInsertions--;
    return true;
  }

  /** As {@link #estimateCount(byte[])}. */
  int estimateCount(long h1, long h2) {
    int min = max;
    long g = h1;
    for (int i = 0; i < k; i++, g += h2) {
      min = Math.min(min, counter(index(g)));
    }
    return min;
  }

  /** As {@link #positions(byte[], int[])}. */
  public void positions(long h1, long h2, int[] out) {
    if (out.length < k) {
      throw new IllegalArgumentException(
          "out.length (" + out.length + ") must be >= k (" + k + ")");
    }
    long g = h1;
    for (int i = 0; i < k; i++, g += h2) {
      out[i] = index(g);
    }
  }

  // ---- statistics ----

  /** Bytes held by the counter array (the object header and fields are not counted). */
  public long memoryBytes() {
    return (long) words.length * Long.BYTES;
  }

  /** Counters at 2^n - 1 (sticky). O(1): maintained on every change. */
  public long saturatedCounters() {
    return saturated;
  }

  /** remove() calls refused because a counter was already 0. */
  public long underflows() {
    return underflows;
  }

  /** True when both filters have the same shape and every counter is equal. */
  public boolean sameCounters(CountingBloomFilter other) {
    return shape.equals(other.shape) && java.util.Arrays.equals(words, other.words);
  }

  /** Successful puts minus successful removes. */
  public long netInsertions() {
    return netInsertions;
  }

  @Override
  public String toString() {
    return "CountingBloomFilter{m="
        + m
        + ", k="
        + k
        + ", n="
        + shape.counterBits()
        + ", netInsertions="
        + netInsertions
        + ", saturated="
        + saturated
        + ", underflows="
        + underflows
        + "}";
  }

  // ---- Counter by counter: for a filter kept beside an exact store of its keys (IMP-CBFilter,
  // seed 000, in the bench module), which repairs a saturated counter from the store on delete.
  // The prefilters of dedup and urls use only the key-level methods above. ----

  /** Lemire fast range: floor((g >>> 32) * m / 2^32), in [0, m). Depends on m < 2^31. */
  int index(long g) {
    return (int) (((g >>> 32) * m) >>> 32);
  }

  /** The value of the counter at {@code position}, in [0, 2^n - 1]. */
  public int counter(int position) {
    long word = words[position >>> slotShift];
    return (int) ((word >>> ((position & slotMask) << bitsShift)) & counterMask);
  }

  /** Saturating increment; returns the value before. */
  int increment(int position) {
    int w = position >>> slotShift;
    int shift = (position & slotMask) << bitsShift;
    long word = words[w];
    int value = (int) ((word >>> shift) & counterMask);
    if (value < max) {
      // Depends on value < max: adding 1 << shift cannot carry into the next counter.
      words[w] = word + (1L << shift);
      if (value + 1 == max) {
        saturated++;
      }
    }
    return value;
  }

  /** Decrement that leaves sticky counters alone and counts an underflow at 0. */
  public void decrement(int position) {
    int w = position >>> slotShift;
    int shift = (position & slotMask) << bitsShift;
    long word = words[w];
    int value = (int) ((word >>> shift) & counterMask);
    if (value == 0) {
      underflows++; // only reachable when a key's positions repeat and the caller is buggy
    } else if (value < max) {
      // Depends on value > 0: subtracting 1 << shift cannot borrow from the next counter.
      words[w] = word - (1L << shift);
    }
  }

  /** Sets a counter (recount of a saturated counter); the value is capped at 2^n - 1. */
  public void setCounter(int position, long value) {
    if (value < 0) {
      throw new IllegalArgumentException("counter value (" + value + ") must be >= 0");
    }
    int capped = (int) Math.min(value, max);
    int w = position >>> slotShift;
    int shift = (position & slotMask) << bitsShift;
    int old = (int) ((words[w] >>> shift) & counterMask);
    words[w] = (words[w] & ~(counterMask << shift)) | ((long) capped << shift);
    saturated += (capped == max ? 1 : 0) - (old == max ? 1 : 0);
  }

  /** Bookkeeping for a removal done counter by counter (ImpCbFilter#delete). */
  public void countRemoval() {
    netInsertions--;
  }

  long[] words() {
    return words;
  }

  void restoreCounts(long netInsertions, long underflows) {
    this.netInsertions = netInsertions;
    this.underflows = underflows;
  }

  private long scanSaturated() {
    long count = 0;
    int perWord = slotMask + 1;
    for (int w = 0; w < words.length; w++) {
      if (words[w] == 0) {
        continue; // a fresh filter is all zeros: skip it word by word
      }
      for (int slot = 0; slot < perWord; slot++) {
        long position = ((long) w << slotShift) + slot;
        if (position < m && counter((int) position) == max) {
          count++;
        }
      }
    }
    return count;
  }

  /** MD5 bytes 0-7, big-endian. */
  public static long high(byte[] md5) {
    checkKey(md5);
    return (long) BitUtil.VH_BE_LONG.get(md5, 0);
  }

  /** MD5 bytes 8-15, big-endian. */
  public static long low(byte[] md5) {
    return (long) BitUtil.VH_BE_LONG.get(md5, 8);
  }

  private static void checkKey(byte[] md5) {
    if (md5.length != KEY_BYTES) {
      throw new IllegalArgumentException("md5 length (" + md5.length + ") must be " + KEY_BYTES);
    }
  }
}
