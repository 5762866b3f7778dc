package org.xiaochong.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StageClockTest {
  @Test
  void ended_secondsInTheOrderTheStagesEnded_andTheListenerToldOfEach() {
    List<String> told = new ArrayList<>();
    StageClock clock = new StageClock((stage, start, end) -> told.add(stage + " " + (end - start)));

    clock.ended("index", 1_000_000_000L, 3_500_000_000L);
    clock.ended("plan", 3_500_000_000L, 3_501_234_567L);
    clock.ended("total", 0L, 4_000_000_000L);

    assertThat(clock.seconds())
        .containsExactly(
            java.util.Map.entry("index", 2.5),
            java.util.Map.entry("plan", 0.001),
            java.util.Map.entry("total", 4.0));
    assertThat(told).containsExactly("index 2500000000", "plan 1234567", "total 4000000000");
  }

  @Test
  void seconds_aSnapshotThatLaterStagesDoNotChange() {
    StageClock clock = new StageClock();
    clock.ended("index", 0L, 2_000_000L);
    java.util.Map<String, Double> before = clock.seconds();

    clock.ended("total", 0L, 3_000_000L);

    assertThat(before).containsOnlyKeys("index");
    assertThatThrownBy(() -> before.put("x", 1.0))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
