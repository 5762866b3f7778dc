package org.xiaochong.eval;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.xiaochong.archive.DeletionPlan;

class TruthTest {
  @Test
  void score_countsRemovalsWhoseKeptRecordIsInTheTrueCluster() {
    // clusters {1,2,3}, {4,5}, singletons 6, 7: a perfect run removes 2 + 1 = 3
    Truth truth =
        Truth.fromPairs(
            List.of(new long[] {1, 2}, new long[] {2, 3}, new long[] {4, 5}),
            List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L));
    DeletionPlan plan = new DeletionPlan();
    plan.add(2, 1, DeletionPlan.Rule.of("exact"), 1.0);
    plan.add(3, 1, DeletionPlan.Rule.of("near"), 0.8);
    plan.add(6, 7, DeletionPlan.Rule.of("near"), 0.7);

    Truth.Score score = truth.score(plan);

    assertThat(truth.expectedRemovals()).isEqualTo(3);
    assertThat(score.correct()).isEqualTo(2);
    assertThat(score.precision()).isEqualTo(2.0 / 3);
    assertThat(score.recall()).isEqualTo(2.0 / 3);
    assertThat(score.f1()).isEqualTo(2.0 / 3, org.assertj.core.data.Offset.offset(1e-12));
  }

  @Test
  void labels_groupByValue_blankIsASingleton() {
    Truth truth = new Truth();
    truth.add(1, "27");
    truth.add(2, "27");
    truth.add(3, "");
    truth.add(4, null);

    assertThat(truth.sameCluster(1, 2)).isTrue();
    assertThat(truth.sameCluster(3, 4)).isFalse();
    assertThat(truth.expectedRemovals()).isEqualTo(1);
  }
}
