package org.xiaochong.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FingerprintVersionTest {

  /**
   * The names are persisted in the Lucene commit user data: constants may only be appended. If this
   * fails because a constant was added, append its name here; never reorder or rename.
   */
  @Test
  void values_persistedNames_inDeclarationOrder() {
    assertThat(Arrays.stream(FingerprintVersion.values()).map(Enum::name)).containsExactly("V1");
    assertThat(FingerprintVersion.V1.ordinal()).isZero();
  }

  @Test
  void current_thisBuild_isLatestConstant() {
    FingerprintVersion[] all = FingerprintVersion.values();
    assertThat(FingerprintVersion.CURRENT)
        .isSameAs(all[all.length - 1])
        .isSameAs(FingerprintVersion.valueOf("V1"));
  }
}
