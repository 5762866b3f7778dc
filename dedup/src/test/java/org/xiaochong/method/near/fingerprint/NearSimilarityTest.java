package org.xiaochong.method.near.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class NearSimilarityTest {

  private static Fingerprints of(String... terms) {
    long[] high = new long[terms.length];
    long[] low = new long[terms.length];
    for (int i = 0; i < terms.length; i++) {
      byte[] md5 = TopTermsMd5.md5(terms[i]);
      for (int b = 0; b < 8; b++) {
        high[i] = (high[i] << 8) | (md5[b] & 0xFF);
        low[i] = (low[i] << 8) | (md5[8 + b] & 0xFF);
      }
    }
    NearOutcome outcome = terms.length == 0 ? NearOutcome.EMPTY_AFTER_SEGMENTATION : NearOutcome.OK;
    return new Fingerprints(outcome, List.of(terms), high, low, false, 0);
  }

  @Test
  void sharedCount_sortedArrays_countsCommonKeys() {
    long[] a = {-9, -1, 0, 3, 7, 100};
    long[] b = {-1, 3, 4, 100, 200};
    assertThat(NearSimilarity.sharedCount(a, b)).isEqualTo(3);
    assertThat(NearSimilarity.jaccard(a, b)).isCloseTo(3.0 / 8, within(1e-12));
  }

  @Test
  void jaccard_bothEmpty_isZero() {
    assertThat(NearSimilarity.jaccard(new long[0], new long[0])).isZero();
  }

  @Test
  void jaccard_identicalSets_isOne() {
    Fingerprints a = of("苹果", "红富士", "tel:13800138000");
    assertThat(NearSimilarity.jaccard(a, a)).isEqualTo(1.0);
    assertThat(NearSimilarity.sharedCount(a, of("tel:13800138000", "红富士", "苹果"))).isEqualTo(3);
  }
}
