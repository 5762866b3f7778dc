package org.xiaochong.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FilterShapeTest {

  // (1 - e^(-kN/m))^k computed by hand; 8.89e-5 is seed 001's "0.0000889" (m/n = 20, k = 10),
  // 1.40e-4 is seed 000's choice (m/n = 20, k = 8), 0.0919 is the loose shape of the golden test.
  @ParameterizedTest
  @CsvSource({
    "2000000, 8, 100000, 1.3955e-4",
    "2000000, 10, 100000, 8.8924e-5",
    "500000, 3, 100000, 0.091893",
    "1000, 1, 0, 0.0",
  })
  void expectedFpp_seedShapes_matchesFormula(long m, int k, long n, double fpp) {
    assertThat(FilterShape.fromCounters(m, k).expectedFpp(n))
        .isCloseTo(fpp, within(fpp * 1e-3 + 1e-12));
  }

  // Guava BloomFilter.optimalNumOfBits(1_000_000, 0.01) = 9_585_058 (floor); we take the ceiling.
  @ParameterizedTest
  @CsvSource({"1000000, 0.01, 9585059, 7", "1000, 0.001, 14378, 10", "0, 0.5, 2, 1"})
  void fromExpectedInsertions_fpp_optimalShape(long n, double fpp, long m, int k) {
    FilterShape shape = FilterShape.fromExpectedInsertions(n, fpp);
    assertThat(shape.counters()).isEqualTo(m);
    assertThat(shape.hashes()).isEqualTo(k);
    assertThat(shape.counterBits()).isEqualTo(4);
  }

  @Test
  void fromExpectedInsertions_countersPerKey_seedShape() {
    FilterShape shape = FilterShape.fromExpectedInsertions(10_000_000, 20, 10);
    assertThat(shape).isEqualTo(new FilterShape(200_000_000, 10, 4));
    assertThat(shape.memoryBytes()).isEqualTo(100_000_000);
    assertThat(shape.withCounterBits(8).memoryBytes()).isEqualTo(200_000_000);
    assertThat(shape.withCounterBits(1).memoryBytes()).isEqualTo(25_000_000);
  }

  @Test
  void constructor_invalidValues_namesValueAndRange() {
    assertThatThrownBy(() -> new FilterShape(100, 65, 4)).hasMessage("k (65) must be in [1, 64]");
    assertThatThrownBy(() -> new FilterShape(100, 0, 4)).hasMessage("k (0) must be in [1, 64]");
    assertThatThrownBy(() -> new FilterShape(0, 3, 4))
        .hasMessage("m (0) must be in [1, 2147483647]");
    assertThatThrownBy(() -> new FilterShape(100, 3, 3))
        .hasMessage("counter bits n (3) must be one of 1, 2, 4, 8");
    assertThatThrownBy(() -> FilterShape.fromExpectedInsertions(10, 1.0))
        .hasMessage("fpp (1.0) must be in (0, 1)");
    assertThatThrownBy(() -> FilterShape.fromExpectedInsertions(-1, 0.1))
        .hasMessage("expected insertions (-1) must be >= 0");
    assertThatThrownBy(() -> FilterShape.fromExpectedInsertions(2_000_000_000L, 20, 10))
        .hasMessageContaining("must be <= 2147483647");
  }
}
