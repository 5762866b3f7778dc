package org.xiaochong.bench.impcb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.xiaochong.bench.impcb.ImpCbFilter.Deletion;
import org.xiaochong.bench.impcb.ImpCbFilter.Verdict;
import org.xiaochong.bloom.FilterShape;
import org.xiaochong.bloom.TestKeys;

class ImpCbFilterTest {

  @Test
  void insert_newThenDuplicate_returnsKeptIdAndRefCount() {
    ImpCbFilter filter =
        new ImpCbFilter(FilterShape.fromCounters(1000, 8), new InMemoryFingerprintStore());
    byte[] md5 = TestKeys.md5("page-1");
    assertThat(filter.insert(md5, 17)).isEqualTo(new ImpCbFilter.Insertion(Verdict.NEW, 17, 1));
    assertThat(filter.insert(md5, 18))
        .isEqualTo(new ImpCbFilter.Insertion(Verdict.DUPLICATE, 17, 2));
    assertThat(filter.lookup(md5)).hasValue(17);
    assertThat(filter.stats().skipped())
        .as("first insert: a zero counter, store not asked")
        .isEqualTo(1);
    assertThat(filter.stats().lookups()).isEqualTo(2);
  }

  @Test
  void delete_lastReference_removesEntryAndClearsCounters() {
    ImpCbFilter filter =
        new ImpCbFilter(FilterShape.fromCounters(1000, 8), new InMemoryFingerprintStore());
    byte[] md5 = TestKeys.md5("page-1");
    filter.insert(md5, 1);
    filter.insert(md5, 2);
    assertThat(filter.delete(md5)).isEqualTo(Deletion.DEREFERENCED);
    assertThat(filter.lookup(md5)).hasValue(1);
    assertThat(filter.delete(md5)).isEqualTo(Deletion.REMOVED);
    assertThat(filter.lookup(md5)).isEmpty();
    assertThat(filter.delete(md5)).isEqualTo(Deletion.ABSENT);
    assertThat(filter.filter().mightContain(md5)).isFalse();
    assertThat(filter.stats().storeSize()).isZero();
  }

  @Test
  void delete_saturatedCounter_recountedFromStore() {
    // m = 1: every key maps to counter 0, which saturates at 3 with 2-bit counters.
    ImpCbFilter filter = new ImpCbFilter(new FilterShape(1, 1, 2), new InMemoryFingerprintStore());
    for (int i = 0; i < 5; i++) {
      filter.insert(TestKeys.md5("k" + i), i);
    }
    assertThat(filter.filter().counter(0)).isEqualTo(3);
    assertThat(filter.stats().saturated()).isEqualTo(1);
    filter.delete(TestKeys.md5("k0"));
    filter.delete(TestKeys.md5("k1"));
    assertThat(filter.filter().counter(0))
        .as("4 then 3 entries left: still saturated")
        .isEqualTo(3);
    filter.delete(TestKeys.md5("k2"));
    assertThat(filter.filter().counter(0)).as("recount: 2 entries").isEqualTo(2);
    assertThat(filter.stats().saturated()).isZero();
    filter.delete(TestKeys.md5("k3"));
    filter.delete(TestKeys.md5("k4"));
    assertThat(filter.filter().counter(0)).isZero();
  }

  @Test
  void lookup_filterSaysMaybeStoreSaysNo_countsFalsePositive() {
    ImpCbFilter filter = new ImpCbFilter(new FilterShape(1, 1, 4), new InMemoryFingerprintStore());
    filter.insert(TestKeys.md5("a"), 1);
    assertThat(filter.lookup(TestKeys.md5("b"))).isEmpty();
    assertThat(filter.stats().falsePositives()).isEqualTo(1);
  }

  /**
   * The seed's claim (section 2.3): with m/N = 20, k = 8, new fingerprints almost never reach the
   * store. Of 20k distinct inserts, the store is asked only on false positives: about FPP * 20k.
   */
  @Test
  void insert_distinctKeysAtSeedShape_storeAskedOnlyOnFalsePositives() {
    int n = 20_000;
    ImpCbFilter filter =
        new ImpCbFilter(
            FilterShape.fromExpectedInsertions(n, 20, 8), new InMemoryFingerprintStore());
    for (int i = 0; i < n; i++) {
      assertThat(filter.insert(TestKeys.md5("url-" + i), i).verdict()).isEqualTo(Verdict.NEW);
    }
    ImpCbFilter.Stats stats = filter.stats();
    assertThat(stats.lookups()).isEqualTo(stats.falsePositives());
    assertThat(stats.falsePositives()).isLessThan(10); // FPP at N <= 1.40e-4: expect < 3
    assertThat(stats.skipped() + stats.lookups()).isEqualTo(n);
    assertThat(stats.memoryBytes()).isEqualTo(n * 20 / 2);
  }

  /**
   * Random inserts, lookups and deletes against an exact model (fingerprint -> refCount), on
   * filters small enough that many counters saturate. After every step: lookups are exact, no live
   * key is filtered out, and every counter equals min(exact position count, 2^n - 1).
   */
  @ParameterizedTest
  @CsvSource({"48, 3, 2", "16, 4, 4", "16, 5, 2", "24, 8, 4"})
  void randomInsertDelete_againstModel_noFalseNegativeAndExactCounters(int m, int k, int bits) {
    long seed = TestKeys.seed();
    SplittableRandom random = new SplittableRandom(seed);
    ImpCbFilter filter =
        new ImpCbFilter(new FilterShape(m, k, bits), new InMemoryFingerprintStore());
    int max = (1 << bits) - 1;
    List<byte[]> pool = new ArrayList<>();
    for (int i = 0; i < 80; i++) {
      pool.add(TestKeys.md5("key-" + i));
    }
    Map<Integer, Long> refCounts = new HashMap<>();
    Map<Integer, Long> keptIds = new HashMap<>();
    int[] positions = new int[k];
    long maxSaturated = 0;
    for (int step = 0; step < 4_000; step++) {
      int key = random.nextInt(pool.size());
      byte[] md5 = pool.get(key);
      long refCount = refCounts.getOrDefault(key, 0L);
      int op = random.nextInt(100);
      String where = "seed=" + seed + " step=" + step + " key=" + key;
      if (op < 50) {
        ImpCbFilter.Insertion insertion = filter.insert(md5, step);
        if (refCount == 0) {
          assertThat(insertion.verdict()).as(where).isEqualTo(Verdict.NEW);
          keptIds.put(key, (long) step);
        } else {
          assertThat(insertion)
              .as(where)
              .isEqualTo(
                  new ImpCbFilter.Insertion(Verdict.DUPLICATE, keptIds.get(key), refCount + 1));
        }
        refCounts.put(key, refCount + 1);
      } else if (op < 90) {
        Deletion expected =
            refCount == 0
                ? Deletion.ABSENT
                : refCount == 1 ? Deletion.REMOVED : Deletion.DEREFERENCED;
        assertThat(filter.delete(md5)).as(where).isEqualTo(expected);
        refCounts.put(key, Math.max(0, refCount - 1));
      } else {
        assertThat(filter.lookup(md5).isPresent()).as(where).isEqualTo(refCount > 0);
      }
      long[] exact = new long[m];
      for (Map.Entry<Integer, Long> e : refCounts.entrySet()) {
        if (e.getValue() > 0) {
          byte[] live = pool.get(e.getKey());
          assertThat(filter.filter().mightContain(live))
              .as(where + " false negative for " + e.getKey())
              .isTrue();
          filter.filter().positions(live, positions);
          for (int p : positions) {
            exact[p]++;
          }
        }
      }
      for (int p = 0; p < m; p++) {
        assertThat(filter.filter().counter(p))
            .as(where + " p=" + p)
            .isEqualTo((int) Math.min(exact[p], max));
      }
      maxSaturated = Math.max(maxSaturated, filter.stats().saturated());
    }
    assertThat(maxSaturated)
        .as("seed=%s: the test must drive counters into saturation", seed)
        .isPositive();
    ImpCbFilter.Stats stats = filter.stats();
    assertThat(stats.underflows()).as("seed=%s", seed).isZero();
    assertThat(stats.lookups() + stats.skipped()).as("seed=%s", seed).isEqualTo(4_000);
  }
}
