package org.xiaochong.posts;

import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The check of every removal of a plan against a {@link GroundTruth}: {@link GroundTruth#checkAll}.
 */
final class AllRemovalsCheck {
  private AllRemovalsCheck() {}

  static GroundTruth.NearCheck check(GroundTruth truth, GroundTruth.Removals plan) {
    long correct = 0;
    long wrong = 0;
    long nearCorrect = 0;
    long nearWrong = 0;
    long exactCorrect = 0;
    long hardNegativeMerges = 0;
    Map<PostGenerator.Kind, Long> byKind = new EnumMap<>(PostGenerator.Kind.class);
    truth.hardNegatives().keySet().forEach(kind -> byKind.put(kind, 0L));
    Set<Long> mergedNegatives = new HashSet<>();
    long nearWrongElsewhere = 0;
    for (int i = 0; i < plan.size(); i++) {
      long removed = plan.removedId(i);
      long kept = plan.keptId(i);
      boolean ok = truth.cluster(removed) == truth.cluster(kept);
      // exact+near (an exact twin of a record the near pass removed): its precision is the near
      // decision's, and it is one of its cluster's exact group removals.
      String rule = plan.rule(i);
      boolean near = "near".equals(rule) || rule.endsWith("+near");
      boolean exact = !"near".equals(rule);
      if (ok) {
        correct++;
        if (near) {
          nearCorrect++;
        }
        if (exact) {
          exactCorrect++;
        }
      } else {
        wrong++;
        if (near) {
          nearWrong++;
        }
        if (truth.isHardNegative(truth.cluster(removed))
            || truth.isHardNegative(truth.cluster(kept))) {
          hardNegativeMerges++;
        }
        PostGenerator.Kind kind =
            truth.hardNegativeKind(truth.cluster(removed), truth.cluster(kept));
        if (kind == null && near) {
          nearWrongElsewhere++;
        }
        if (kind != null) {
          long negative =
              truth.madeAgainst(truth.cluster(removed), truth.cluster(kept))
                  ? truth.cluster(removed)
                  : truth.cluster(kept);
          if (mergedNegatives.add(negative)) {
            byKind.merge(kind, 1L, Long::sum);
          }
        }
      }
    }
    long expectedExact = truth.expectedExactRemovals();
    return new GroundTruth.NearCheck(
        expectedExact + truth.expectedNearRemovals(),
        truth.expectedNearRemovals(),
        correct,
        wrong,
        exactCorrect,
        nearCorrect,
        nearWrong,
        hardNegativeMerges,
        byKind,
        truth.hardNegatives(),
        nearWrongElsewhere);
  }
}
