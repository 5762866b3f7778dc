package org.xiaochong.demo;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.xiaochong.archive.DeletionPlan;

/**
 * The truth of generated data: per record id its cluster and kind. Records of a cluster whose kind
 * is the original or an exact variant form its exact group; an exact pass should remove all of that
 * group but one, and nothing else. Not thread-safe.
 */
public final class GroundTruth {
  private long[] clusters = new long[1024];
  private byte[] kinds = new byte[1024];
  private long maxId;

  public void add(PostGenerator.Post post) {
    int id = Math.toIntExact(post.id());
    if (id >= clusters.length) {
      int capacity = Math.max(id + 1, clusters.length * 2);
      clusters = Arrays.copyOf(clusters, capacity);
      kinds = Arrays.copyOf(kinds, capacity);
    }
    clusters[id] = post.cluster();
    kinds[id] = (byte) post.kind().ordinal();
    maxId = Math.max(maxId, id);
  }

  public long cluster(long id) {
    return clusters[(int) id];
  }

  public PostGenerator.Kind kind(long id) {
    return PostGenerator.Kind.values()[kinds[(int) id]];
  }

  /** In its cluster's exact group: the original (or hard-negative original) or an exact variant. */
  public boolean inExactGroup(long id) {
    PostGenerator.Kind kind = kind(id);
    return kind.exactDuplicate || !kind.nearDuplicate;
  }

  /** How many records an exact pass over everything must remove: per cluster, exact group size - 1. */
  public long expectedExactRemovals() {
    Map<Long, Integer> groupSizes = new HashMap<>();
    for (long id = 1; id <= maxId; id++) {
      if (clusters[(int) id] != 0 && inExactGroup(id)) {
        groupSizes.merge(clusters[(int) id], 1, Integer::sum);
      }
    }
    return groupSizes.values().stream().mapToLong(size -> size - 1).sum();
  }

  /** Checks each exact removal: removed and kept must be in the same cluster's exact group. */
  public ExactCheck checkExact(DeletionPlan plan) {
    long correct = 0;
    long wrong = 0;
    for (int i = 0; i < plan.size(); i++) {
      if (plan.rule(i) != DeletionPlan.Rule.EXACT) {
        continue;
      }
      long removed = plan.removedId(i);
      long kept = plan.keptId(i);
      if (cluster(removed) == cluster(kept) && inExactGroup(removed) && inExactGroup(kept)) {
        correct++;
      } else {
        wrong++;
      }
    }
    return new ExactCheck(expectedExactRemovals(), correct, wrong);
  }

  /** Exact pass against the truth. */
  public record ExactCheck(long expected, long correct, long wrong) {
    public double precision() {
      return correct + wrong == 0 ? 1.0 : (double) correct / (correct + wrong);
    }

    public double recall() {
      return expected == 0 ? 1.0 : (double) correct / expected;
    }
  }
}
