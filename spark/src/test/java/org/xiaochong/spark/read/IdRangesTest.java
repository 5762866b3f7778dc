package org.xiaochong.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class IdRangesTest {
  @Test
  void split_coversTheSpanWithoutGapOrOverlap() {
    List<long[]> ranges = IdRanges.split(5, 104, 7);
    assertThat(ranges).hasSize(7);
    assertThat(ranges.get(0)[0]).isEqualTo(5);
    assertThat(ranges.get(6)[1]).isEqualTo(105);
    for (int i = 1; i < ranges.size(); i++) {
      assertThat(ranges.get(i)[0]).isEqualTo(ranges.get(i - 1)[1]);
      assertThat(ranges.get(i)[1]).isGreaterThan(ranges.get(i)[0]);
    }
  }

  @Test
  void split_fewerIdsThanParts_givesOneRangePerId() {
    assertThat(IdRanges.split(10, 12, 8)).hasSize(3);
  }

  @Test
  void split_negativeAndHugeIds() {
    List<long[]> ranges = IdRanges.split(Long.MIN_VALUE, Long.MAX_VALUE - 1, 4);
    assertThat(ranges.get(0)[0]).isEqualTo(Long.MIN_VALUE);
    assertThat(ranges.get(3)[1]).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> IdRanges.split(0, Long.MAX_VALUE, 2))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
