package org.xiaochong.method.near.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class FingerprintsTest {

  static TopTermsMd5 near;

  @BeforeAll
  static void setUp() {
    near = new TopTermsMd5(NearConfig.defaults());
  }

  @AfterAll
  static void tearDown() {
    near.close();
  }

  @Test
  void md5_anyRank_agreesWithHexHighLowAndTermDigest() {
    Fingerprints prints = near.fingerprint(TopTermsMd5Test.APPLE_POST);
    for (int rank = 0; rank < prints.size(); rank++) {
      byte[] md5 = prints.md5(rank);
      assertThat(md5).isEqualTo(TopTermsMd5.md5(prints.terms().get(rank)));
      StringBuilder hex = new StringBuilder();
      for (byte b : md5) {
        hex.append(String.format("%02x", b));
      }
      assertThat(prints.hex(rank)).isEqualTo(hex.toString());
      assertThat(prints.prefixes()[rank]).isEqualTo(prints.high(rank));
    }
  }

  @Test
  void sortedPrefixes_anyPost_distinctAscendingSameSet() {
    Fingerprints prints = near.fingerprint(TopTermsMd5Test.APPLE_POST);
    long[] sorted = prints.sortedPrefixes();
    assertThat(sorted).hasSize(prints.size()).isSorted().doesNotHaveDuplicates();
    assertThat(sorted).containsExactlyInAnyOrder(prints.prefixes());
  }

  @Test
  void top_preWithinSize_firstPreInRankOrder() {
    Fingerprints prints = near.fingerprint(TopTermsMd5Test.APPLE_POST);
    Fingerprints top = prints.top(3);
    assertThat(top.size()).isEqualTo(3);
    assertThat(top.terms()).isEqualTo(prints.terms().subList(0, 3));
    assertThat(top.hexList()).isEqualTo(prints.hexList().subList(0, 3));
    assertThat(top.outcome()).isEqualTo(NearOutcome.OK);
  }

  @Test
  void top_zero_throwsNamingValue() {
    assertThatThrownBy(() -> near.fingerprint("苹果").top(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("pre (0) must be >= 1");
  }

  @Test
  void toString_longPost_showsOutcomeAndFirstTerms() {
    assertThat(near.fingerprint(TopTermsMd5Test.APPLE_POST).toString())
        .startsWith("Fingerprints[OK: 果=")
        .contains("in all)");
  }
}
