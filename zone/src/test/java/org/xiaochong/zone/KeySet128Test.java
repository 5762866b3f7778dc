package org.xiaochong.zone;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KeySet128Test {

  @Test
  void add_randomKeysWithRepeats_matchesHashSet() {
    SplittableRandom random = new SplittableRandom(128);
    KeySet128 keys = new KeySet128(4);
    Set<String> reference = new HashSet<>();
    for (int i = 0; i < 200_000; i++) {
      long high = random.nextLong(1000); // small values: many repeats, zero included
      long low = random.nextLong(50);
      assertThat(keys.add(high, low)).isEqualTo(reference.add(high + "/" + low));
    }
    assertThat(keys.size()).isEqualTo(reference.size());
    assertThat(keys.contains(999, 49)).isEqualTo(reference.contains("999/49"));
    assertThat(keys.contains(1000, 0)).isFalse();
  }

  @Test
  void add_constantLowHalf_staysFast() {
    // A simhash stored as (simhash, 1): a slot taken from the low half alone would make this
    // quadratic.
    KeySet128 keys = new KeySet128(16);
    SplittableRandom random = new SplittableRandom(64);
    long start = System.nanoTime();
    for (int i = 0; i < 1_000_000; i++) {
      keys.add(random.nextLong(), 1);
    }
    assertThat(keys.size()).isEqualTo(1_000_000);
    assertThat((System.nanoTime() - start) / 1e9).as("seconds for 1M adds").isLessThan(20);
  }
}
