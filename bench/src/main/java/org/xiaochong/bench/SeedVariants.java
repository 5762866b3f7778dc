package org.xiaochong.bench;

import java.io.IOException;
import org.xiaochong.bench.SeedStores.Store;
import org.xiaochong.bloom.CountingBloomFilter;
import org.xiaochong.bloom.FilterShape;

/**
 * The two variants {@link SeedExperiment} times on one stream: (A) the store alone and (B)
 * IMP-CBFilter, a counting Bloom filter in front of the store. Each counts the new items, the store
 * lookups and (B) the filter's false positives; only the dedup step and the final commit are timed.
 */
final class SeedVariants {
  private SeedVariants() {}

  record Run(long newItems, long lookups, long falsePositives, long nanos, String store) {}

  /** Variant A: lookup every item, add the absent ones. */
  static Run runStoreAlone(Store store, long[] hi, long[] lo, int n) throws IOException {
    long lookups = 0;
    long fresh = 0;
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      lookups++;
      if (!store.contains(hi[i], lo[i])) {
        store.add(hi[i], lo[i]);
        fresh++;
      }
    }
    store.commit();
    long nanos = System.nanoTime() - t0;
    return new Run(fresh, lookups, 0, nanos, store.describe());
  }

  /** Variant B: IMP-CBFilter, the filter decides certainly-new items without the store. */
  static Run runFiltered(Store store, FilterShape shape, long[] hi, long[] lo, int n)
      throws IOException {
    long lookups = 0;
    long fresh = 0;
    long falsePositives = 0;
    long t0 = System.nanoTime();
    CountingBloomFilter filter = new CountingBloomFilter(shape); // allocation is part of B's cost
    for (int i = 0; i < n; i++) {
      long h = hi[i];
      long l = lo[i];
      if (filter.mightContain(h, l)) {
        lookups++;
        if (store.contains(h, l)) {
          continue; // duplicate
        }
        falsePositives++;
      }
      filter.put(h, l);
      store.add(h, l);
      fresh++;
    }
    store.commit();
    long nanos = System.nanoTime() - t0;
    return new Run(
        fresh,
        lookups,
        falsePositives,
        nanos,
        store.describe()
            + "; filter "
            + filter.memoryBytes() / 1_000_000.0
            + " MB, saturated="
            + filter.saturatedCounters());
  }

  static Run check(Run run, long truth, String variant, int n) {
    if (run.newItems() != truth) {
      throw new IllegalStateException(
          variant + " at size " + n + " found " + run.newItems() + " new URLs, expected " + truth);
    }
    return run;
  }
}
