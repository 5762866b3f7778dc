package org.xiaochong.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DeletionPlanTest {
  private static final DeletionPlan.RowState TWIN = new DeletionPlan.RowState(100, 11);
  private static final DeletionPlan.RowState KEPT_BY_EXACT = new DeletionPlan.RowState(200, 22);
  private static final DeletionPlan.RowState NEAR_SURVIVOR = new DeletionPlan.RowState(300, 33);

  @Test
  void dropApart_chainCollapsedOntoAMarkedRow_thatRemovalDropped_othersKeepTheirStates() {
    DeletionPlan plan = new DeletionPlan();
    plan.add(1, 2, DeletionPlan.Rule.of("exact"), 1.0, TWIN, KEPT_BY_EXACT); // 1 is 2's exact twin
    plan.add(
        2,
        3,
        DeletionPlan.Rule.of("near"),
        0.8,
        KEPT_BY_EXACT,
        NEAR_SURVIVOR); // the near pass removes 2 for 3
    plan.add(4, 3, DeletionPlan.Rule.of("near"), 0.7);
    plan.collapseChains(); // 1 -> 3, but 1 and 3 are marked apart
    ApartPairs apart = ApartPairs.of(3, 1);

    int dropped = plan.dropApart(apart);

    assertThat(dropped).isEqualTo(1);
    assertThat(plan.size()).isEqualTo(2);
    assertThat(plan.removedIdsSorted()).containsExactly(2, 4);
    assertThat(plan.keptId(0)).isEqualTo(3);
    assertThat(plan.removedState(0)).isEqualTo(KEPT_BY_EXACT);
    assertThat(plan.keptState(0)).isEqualTo(NEAR_SURVIVOR);
    assertThat(plan.rule(1)).isEqualTo(DeletionPlan.Rule.of("near"));
    assertThat(apart.honoured()).isEqualTo(1);
  }

  @Test
  void dropApart_groupMarks_dropsOnlyARemovalForARowOfTheSameGroup() {
    DeletionPlan plan = new DeletionPlan();
    plan.add(11, 10, DeletionPlan.Rule.of("near"), 0.9); // 10 and 11 are one restored group
    plan.add(12, 10, DeletionPlan.Rule.of("near"), 0.9);
    plan.add(13, 20, DeletionPlan.Rule.of("exact"), 1.0);
    ApartPairs apart = ApartPairs.of(new long[0], new long[] {10, 1, 11, 1, 13, 2});

    int dropped = plan.dropApart(apart);

    assertThat(dropped).isEqualTo(1);
    assertThat(plan.removedIdsSorted()).containsExactly(12, 13);
    assertThat(apart.honoured()).isEqualTo(2); // rows 10 and 11
  }

  @Test
  void keptAndRemoved_chainNotCollapsed_namesTheRow_collapsedNone() {
    DeletionPlan plan = new DeletionPlan();
    plan.add(1, 2, DeletionPlan.Rule.of("exact"), 1.0);
    plan.add(2, 3, DeletionPlan.Rule.of("near"), 0.8);
    assertThat(plan.keptAndRemoved()).isEqualTo(2);

    plan.collapseChains();

    assertThat(plan.keptAndRemoved()).isEqualTo(-1);
  }

  @Test
  void collapseChains_exactTwinOfANearRemovedRecord_pointsToTheSurvivorWithBothRowsStates() {
    DeletionPlan plan = new DeletionPlan();
    plan.add(1, 2, DeletionPlan.Rule.of("exact"), 1.0, TWIN, KEPT_BY_EXACT); // 1 is 2's exact twin
    plan.add(
        2,
        3,
        DeletionPlan.Rule.of("near"),
        0.8,
        KEPT_BY_EXACT,
        NEAR_SURVIVOR); // the near pass removes 2

    assertThat(plan.collapseChains()).isEqualTo(1);

    assertThat(plan.keptId(0)).isEqualTo(3);
    // Row 1 went because the near pass removed its twin: the rule says both, the score is the near
    // one's.
    assertThat(plan.rule(0)).isSameAs(DeletionPlan.Rule.of("exact+near"));
    assertThat(plan.score(0)).isEqualTo(0.8f);
    assertThat(plan.rules()).containsExactly("exact+near", "near");
    assertThat(plan.count(DeletionPlan.Rule.of("exact"))).isZero();
    assertThat(plan.removedState(0)).isEqualTo(TWIN);
    // The survivor's state as the near removal recorded it: the apply moves the row without
    // deciding
    // again while neither row 1 nor row 3 changed.
    assertThat(plan.keptState(0)).isEqualTo(NEAR_SURVIVOR);
    assertThat(plan.keptState(0).matches(300, 33)).isTrue();
    assertThat(plan.keptId(1)).isEqualTo(3);
    assertThat(plan.keptState(1)).isEqualTo(NEAR_SURVIVOR);
  }

  @Test
  void rule_then_joinsTheFirstMethodAndTheDecidingOne_onceAndWithinTheColumnWidth() {
    DeletionPlan.Rule exactNear = DeletionPlan.Rule.of("exact").then(DeletionPlan.Rule.of("near"));
    assertThat(exactNear.label).isEqualTo("exact+near");
    assertThat(exactNear.isCombined()).isTrue();
    assertThat(exactNear.methods()).containsExactly("exact", "near");
    // A later method removing the near survivor too: the row still went first as an exact copy.
    assertThat(exactNear.then(DeletionPlan.Rule.of("simhash")).label).isEqualTo("exact+simhash");
    assertThat(DeletionPlan.Rule.of("near").then(DeletionPlan.Rule.of("near")))
        .isSameAs(DeletionPlan.Rule.of("near"));
    assertThat(exactNear.then(DeletionPlan.Rule.of("near"))).isSameAs(exactNear);
    assertThatThrownBy(() -> DeletionPlan.Rule.of("exact+near+x"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DeletionPlan.Rule.of("abcdefghi+abcdefgh"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void collapseChains_aRemovalWhoseKeptRowTheSameMethodRemoved_keepsItsRuleAndScore() {
    DeletionPlan plan = new DeletionPlan();
    plan.add(1, 2, DeletionPlan.Rule.of("near"), 0.7, TWIN, KEPT_BY_EXACT);
    plan.add(2, 3, DeletionPlan.Rule.of("near"), 0.8, KEPT_BY_EXACT, NEAR_SURVIVOR);
    plan.collapseChains();
    assertThat(plan.rule(0)).isSameAs(DeletionPlan.Rule.of("near"));
    assertThat(plan.score(0)).isEqualTo(0.7f);
  }

  @Test
  void collapseChains_unknownSurvivorState_staysUnknown_andACycleIsRefused() {
    DeletionPlan plan = new DeletionPlan();
    plan.add(1, 2, DeletionPlan.Rule.of("exact"), 1.0, TWIN, KEPT_BY_EXACT);
    plan.add(
        2,
        3,
        DeletionPlan.Rule.of("near"),
        0.8,
        DeletionPlan.RowState.UNKNOWN,
        DeletionPlan.RowState.UNKNOWN);
    plan.collapseChains();
    assertThat(plan.keptState(0).matches(300, 33)).isFalse();

    DeletionPlan cycle = new DeletionPlan();
    cycle.add(1, 2, DeletionPlan.Rule.of("near"), 0.8, TWIN, KEPT_BY_EXACT);
    cycle.add(2, 1, DeletionPlan.Rule.of("near"), 0.8, KEPT_BY_EXACT, TWIN);
    assertThatThrownBy(cycle::collapseChains)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cycle");
  }
}
