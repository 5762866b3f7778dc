package org.xiaochong.spark.run;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.xiaochong.archive.DeletionPlan;

class SparkRunPlanTest {

  @Test
  void aPlanThatRemovesAKeptRow_stopsTheJobBeforeItsApply_namingTheRow() {
    DeletionPlan plan = new DeletionPlan();
    plan.add(1, 2, DeletionPlan.Rule.of("exact"), 1.0);
    plan.add(2, 3, DeletionPlan.Rule.of("near"), 0.8); // 2 is kept for 1 and removed for 3

    assertThatThrownBy(() -> SparkRun.requireNoKeptRowRemoved(plan))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("removes row 2")
        .hasMessageContaining("stopped before the apply, nothing moved");
  }

  @Test
  void theSamePlanWithItsChainCollapsed_goesOn() {
    DeletionPlan plan = new DeletionPlan();
    plan.add(1, 2, DeletionPlan.Rule.of("exact"), 1.0);
    plan.add(2, 3, DeletionPlan.Rule.of("near"), 0.8);
    plan.collapseChains();

    assertThatCode(() -> SparkRun.requireNoKeptRowRemoved(plan)).doesNotThrowAnyException();
  }
}
