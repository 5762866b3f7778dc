package org.xiaochong.prefilter;

import org.xiaochong.bloom.FilterShape;

/**
 * How the pipeline's prefilter is shaped (config keys {@code prefilter.*}).
 *
 * @param enabled ask the counting Bloom filter before each index lookup
 * @param countersPerKey m/n, counters per expected key (seed 000: 20)
 * @param hashes k, counters per key (seed 000's experiment: 8)
 */
public record PrefilterSettings(boolean enabled, int countersPerKey, int hashes) {
  public static final PrefilterSettings DEFAULT = new PrefilterSettings(true, 20, 8);

  public PrefilterSettings {
    if (countersPerKey < 1 || countersPerKey > 64) {
      throw new IllegalArgumentException(
          "prefilter.bits-per-key (" + countersPerKey + ") must be in [1, 64]");
    }
    if (hashes < 1 || hashes > FilterShape.MAX_HASHES) {
      throw new IllegalArgumentException(
          "prefilter.hashes (" + hashes + ") must be in [1, " + FilterShape.MAX_HASHES + "]");
    }
  }
}
