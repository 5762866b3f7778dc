package org.xiaochong.bench.impcb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.bloom.CountingBloomFilter;
import org.xiaochong.bloom.FilterShape;
import org.xiaochong.bloom.PrefilterFormatException;
import org.xiaochong.bloom.PrefilterSnapshot;
import org.xiaochong.bloom.TestKeys;

/** An IMP-CBFilter saved with its fingerprint store in a prefilter snapshot and loaded back. */
class ImpCbSnapshotTest {

  @TempDir Path dir;

  private static ImpCbFilter sample() {
    ImpCbFilter filter =
        new ImpCbFilter(new FilterShape(5_000, 8, 4), new InMemoryFingerprintStore());
    for (int i = 0; i < 300; i++) {
      filter.insert(TestKeys.md5("page-" + (i % 250)), i);
    }
    filter.delete(TestKeys.md5("page-200"));
    return filter;
  }

  @Test
  void save_thenLoad_roundTripsFilterAndStore() throws IOException {
    ImpCbFilter original = sample();
    Path file = dir.resolve("prefilter.bin");
    original.save(file);

    ImpCbFilter loaded = ImpCbFilter.load(file, original.shape());

    assertThat(loaded.filter().sameCounters(original.filter())).isTrue();
    assertThat(loaded.filter().netInsertions()).isEqualTo(original.filter().netInsertions());
    assertThat(loaded.stats().storeSize()).isEqualTo(249);
    assertThat(loaded.lookup(TestKeys.md5("page-3"))).hasValue(3);
    assertThat(loaded.lookup(TestKeys.md5("page-200"))).isEmpty();
    assertThat(loaded.insert(TestKeys.md5("page-3"), 999).refCount()).isEqualTo(3); // 3 and 253
  }

  @Test
  void load_filterSavedAlone_saysNoStore() throws IOException {
    CountingBloomFilter filter = new CountingBloomFilter(new FilterShape(1_001, 3, 2));
    filter.put(TestKeys.md5("x"));
    Path file = dir.resolve("f.bin");
    PrefilterSnapshot.write(file, filter);

    assertThatThrownBy(() -> ImpCbFilter.load(file, null))
        .isInstanceOf(PrefilterFormatException.class)
        .hasMessageContaining("the snapshot holds no fingerprint store")
        .hasMessageContaining("store entries=none");
  }

  @Test
  void load_sameKeyTwice_saysBadStoreEntry() throws IOException {
    Path file = dir.resolve("prefilter.bin");
    PrefilterSnapshot.StoredKey key = new PrefilterSnapshot.StoredKey(1, 2, 1, 7);
    PrefilterSnapshot.write(
        file, new CountingBloomFilter(new FilterShape(1_001, 3, 4)), java.util.List.of(key, key));

    assertThatThrownBy(() -> ImpCbFilter.load(file, null))
        .isInstanceOf(PrefilterFormatException.class)
        .hasMessageContaining("bad store entry 1");
  }
}
