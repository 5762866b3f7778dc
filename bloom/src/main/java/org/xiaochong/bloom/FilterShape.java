package org.xiaochong.bloom;

/**
 * Shape of a (counting) Bloom filter: {@code counters} m, {@code hashes} k and {@code counterBits}
 * n.
 *
 * <p>Math, with N keys inserted (Bloom 1970; Broder &amp; Mitzenmacher 2004; Fan et al. 2000):
 *
 * <ul>
 *   <li>false positive rate: {@code p = (1 - e^(-kN/m))^k}, minimised at {@code k = (m/N) ln 2};
 *   <li>sizing for a target p: {@code m = ceil(-N ln p / (ln 2)^2)} counters, {@code k = max(1,
 *       round(m/N ln 2))} (the formulas Guava's {@code BloomFilter} uses);
 *   <li>seeds 000/001: m/N = 20 with k = 8 gives p = 1.40e-4; with k = 10, p = 8.89e-5 (the seed's
 *       0.0000889).
 * </ul>
 *
 * <p>Counter widths: 1 (a plain Bloom filter: counters are sticky at 1, so nothing can be removed),
 * 2, 4 (default, the seed's choice) or 8 bits. Memory is {@code ceil(m * n / 64) * 8} bytes.
 *
 * <p>Immutable and thread-safe.
 *
 * @param counters m, the number of counters, in [1, {@link Integer#MAX_VALUE}]
 * @param hashes k, the number of counters each key touches, in [1, 64]
 * @param counterBits n, bits per counter: 1, 2, 4 or 8
 */
public record FilterShape(long counters, int hashes, int counterBits) {

  /** Default counter width: 4 bits, counters saturate at 15 (seed 000, section 2.2). */
  public static final int DEFAULT_COUNTER_BITS = 4;

  /** Upper bound on k; more probes than this only cost time. */
  public static final int MAX_HASHES = 64;

  static final double LN2 = Math.log(2);
  static final double LN2_SQUARED = LN2 * LN2;

  public FilterShape {
    if (counters < 1 || counters > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          String.format("m (%s) must be in [1, %s]", counters, Integer.MAX_VALUE));
    }
    if (hashes < 1 || hashes > MAX_HASHES) {
      throw new IllegalArgumentException(
          String.format("k (%s) must be in [1, %s]", hashes, MAX_HASHES));
    }
    if (counterBits != 1 && counterBits != 2 && counterBits != 4 && counterBits != 8) {
      throw new IllegalArgumentException(
          String.format("counter bits n (%s) must be one of 1, 2, 4, 8", counterBits));
    }
  }

  /**
   * Optimal shape for {@code expectedInsertions} keys at false positive rate {@code fpp}, 4-bit
   * counters: m = ceil(-N ln p / (ln 2)^2), k = max(1, round(m/N ln 2)).
   */
  public static FilterShape fromExpectedInsertions(long expectedInsertions, double fpp) {
    checkInsertions(expectedInsertions);
    if (!(fpp > 0 && fpp < 1)) {
      throw new IllegalArgumentException(String.format("fpp (%s) must be in (0, 1)", fpp));
    }
    long n = Math.max(1, expectedInsertions);
    double m = Math.ceil(-n * Math.log(fpp) / LN2_SQUARED);
    checkCounters(m, expectedInsertions);
    int k = (int) Math.max(1, Math.min(MAX_HASHES, Math.round(m / n * LN2)));
    return new FilterShape((long) m, k, DEFAULT_COUNTER_BITS);
  }

  /**
   * Shape with {@code countersPerKey} counters per expected key and {@code hashes} probes, 4-bit
   * counters. The seeds use (20, 8) and (20, 10).
   */
  public static FilterShape fromExpectedInsertions(
      long expectedInsertions, double countersPerKey, int hashes) {
    checkInsertions(expectedInsertions);
    if (!(countersPerKey > 0 && Double.isFinite(countersPerKey))) {
      throw new IllegalArgumentException(
          String.format("counters per key (%s) must be > 0", countersPerKey));
    }
    double m = Math.ceil(Math.max(1, expectedInsertions) * countersPerKey);
    checkCounters(m, expectedInsertions);
    return new FilterShape((long) m, hashes, DEFAULT_COUNTER_BITS);
  }

  /** Shape with m counters and k probes, 4-bit counters (cf. Commons {@code Shape.fromKM}). */
  public static FilterShape fromCounters(long counters, int hashes) {
    return new FilterShape(counters, hashes, DEFAULT_COUNTER_BITS);
  }

  /** The same m and k with another counter width. */
  public FilterShape withCounterBits(int bits) {
    return new FilterShape(counters, hashes, bits);
  }

  /** Expected false positive rate after {@code insertions} distinct keys: (1 - e^(-kN/m))^k. */
  public double expectedFpp(long insertions) {
    checkInsertions(insertions);
    return Math.pow(1 - Math.exp(-(double) hashes * insertions / counters), hashes);
  }

  /** Largest value a counter holds; a counter at this value is saturated (sticky). */
  public int maxCounterValue() {
    return (1 << counterBits) - 1;
  }

  /** Bytes of the packed counter array: ceil(m * n / 64) longs. */
  public long memoryBytes() {
    return words() * Long.BYTES;
  }

  /** Number of longs holding the counters. */
  long words() {
    long perWord = Long.SIZE / counterBits;
    return (counters + perWord - 1) / perWord;
  }

  private static void checkInsertions(long insertions) {
    if (insertions < 0) {
      throw new IllegalArgumentException(
          String.format("expected insertions (%s) must be >= 0", insertions));
    }
  }

  private static void checkCounters(double m, long insertions) {
    if (m > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          String.format(
              "m (%.0f counters for %s insertions) must be <= %s",
              m, insertions, Integer.MAX_VALUE));
    }
  }
}
