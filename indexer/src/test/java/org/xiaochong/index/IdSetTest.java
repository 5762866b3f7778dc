package org.xiaochong.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

class IdSetTest {
  @Test
  void denseIdsAnswerLikeABinarySearch() {
    compareWithBinarySearch(1, 3); // about a third of the ids of the range: the bit set
  }

  @Test
  void sparseIdsAnswerLikeABinarySearch() {
    compareWithBinarySearch(1_000_000_007L, 1000); // a member per ~1000 ids: the binary search
  }

  @Test
  void extremeAndEmptyRanges() {
    LongPredicate wide = IdSet.of(new long[] {Long.MIN_VALUE, -1, 0, Long.MAX_VALUE});
    assertThat(wide.test(Long.MIN_VALUE)).isTrue();
    assertThat(wide.test(Long.MAX_VALUE)).isTrue();
    assertThat(wide.test(0)).isTrue();
    assertThat(wide.test(1)).isFalse();
    assertThat(IdSet.of(new long[0]).test(0)).isFalse();
    LongPredicate one = IdSet.of(new long[] {42});
    assertThat(one.test(42)).isTrue();
    assertThat(one.test(41)).isFalse();
    assertThat(one.test(43)).isFalse();
  }

  private static void compareWithBinarySearch(long start, int stride) {
    Random random = new Random(7);
    long[] ids = new long[10_000];
    long id = start;
    for (int i = 0; i < ids.length; i++) {
      id += 1 + random.nextInt(2 * stride - 1);
      ids[i] = id;
    }
    LongPredicate set = IdSet.of(ids);
    for (long probe = start - 10; probe <= id + 10; probe += Math.max(1, stride / 3)) {
      assertThat(set.test(probe))
          .as("id %d", probe)
          .isEqualTo(Arrays.binarySearch(ids, probe) >= 0);
    }
    for (long member : ids) {
      assertThat(set.test(member)).isTrue();
    }
  }
}
