package org.xiaochong.tools;

import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.posts.GroundTruth;

/** A plan's removals as the generated posts' ground truth checks them. */
final class PlanRemovals {
  private PlanRemovals() {}

  static GroundTruth.Removals of(DeletionPlan plan) {
    return GroundTruth.Removals.of(
        plan.size(), plan::removedId, plan::keptId, i -> plan.rule(i).label);
  }
}
