package org.xiaochong.method.simhash;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SimhashMethodTest {
  @Test
  void likeness_isTheShareOfTheBitsTheFingerprintsAgreeOn() {
    assertThat(SimhashMethod.likeness(0)).isEqualTo(1.0);
    assertThat(SimhashMethod.likeness(3)).isEqualTo(61 / 64.0);
    assertThat(SimhashMethod.likeness(64)).isEqualTo(0.0);
  }
}
