package org.xiaochong.tools;

import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.posts.GroundTruth;

/** A plan's removals as the generated posts' ground truth checks them. */
final class PlanRemovals implements GroundTruth.Removals {
  private final DeletionPlan plan;

  private PlanRemovals(DeletionPlan plan) {
    this.plan = plan;
  }

  static GroundTruth.Removals of(DeletionPlan plan) {
    return new PlanRemovals(plan);
  }

  @Override
  public int size() {
    return plan.size();
  }

  @Override
  public long removedId(int i) {
    return plan.removedId(i);
  }

  @Override
  public long keptId(int i) {
    return plan.keptId(i);
  }

  @Override
  public String rule(int i) {
    return plan.rule(i).label;
  }
}
