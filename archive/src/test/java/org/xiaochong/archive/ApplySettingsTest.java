package org.xiaochong.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class ApplySettingsTest {
  @Test
  void rowsPerBatch_limitedByRowsAndByBytes_atLeastOne() {
    ApplySettings settings = new ApplySettings(10_000, 32L << 20, 5, 8, 0);

    assertThat(settings.rowsPerBatch(0)).as("average unknown").isEqualTo(10_000);
    assertThat(settings.rowsPerBatch(1_000)).as("10 MB of rows").isEqualTo(10_000);
    assertThat(settings.rowsPerBatch(16_384)).as("16 KB rows: 2048 make 32 MB").isEqualTo(2_048);
    assertThat(settings.rowsPerBatch(1L << 40)).isEqualTo(1);
  }

  @RepeatedTest(20)
  void backoffMillis_doublesFromOneSecond_withJitter_cappedAtAMinute() {
    for (int attempt = 1; attempt <= 30; attempt++) {
      long ceiling = Math.min(60_000, 1_000L << Math.min(attempt - 1, 20));
      assertThat(ApplySettings.backoffMillis(attempt))
          .as("after try %d", attempt)
          .isBetween(ceiling / 2, ceiling);
    }
  }

  @Test
  void settings_outOfRange_areRefusedNamingTheKey() {
    assertThatThrownBy(() -> new ApplySettings(0, 32L << 20, 5, 8, 0))
        .hasMessageContaining("apply.batch-rows");
    assertThatThrownBy(() -> new ApplySettings(10, 100, 5, 8, 0))
        .hasMessageContaining("apply.batch-bytes");
    assertThatThrownBy(() -> new ApplySettings(10, 32L << 20, 0, 8, 0))
        .hasMessageContaining("apply.lock-wait-seconds");
    assertThatThrownBy(() -> new ApplySettings(10, 32L << 20, 5, 0, 0))
        .hasMessageContaining("apply.attempts");
    assertThatThrownBy(() -> new ApplySettings(10, 32L << 20, 5, 8, -1))
        .hasMessageContaining("apply.pause-ms");
  }
}
