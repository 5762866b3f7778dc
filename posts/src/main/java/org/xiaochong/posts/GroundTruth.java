package org.xiaochong.posts;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The truth of generated data: per record id its cluster and kind, and per hard-negative cluster
 * its kind and the cluster it was made against. Records of a cluster whose kind is the original or
 * an exact variant form its exact group; an exact pass should remove all of that group but one, and
 * nothing else. Not thread-safe.
 */
public final class GroundTruth {
  private long[] clusters = new long[1024];
  private byte[] kinds = new byte[1024];
  private long maxId;
  private final java.util.Set<Long> hardNegativeClusters = new java.util.HashSet<>();

  /** Per hard-negative cluster, the cluster it was made against. */
  private final Map<Long, Long> negativeOf = new HashMap<>();

  /** Per hard-negative cluster, its kind. */
  private final Map<Long, PostGenerator.Kind> negativeKinds = new HashMap<>();

  /**
   * The removals of a dedup plan, as the checks read them: the accessors of {@code DeletionPlan},
   * with the rule as its label. This module does not depend on the pipeline, so the caller adapts
   * its plan.
   */
  public interface Removals {
    int size();

    long removedId(int i);

    long keptId(int i);

    /** The rule's label: {@code exact}, {@code near}, ... */
    String rule(int i);

    /** The removals {@code 0 .. size - 1} read through a run's accessors (a deletion plan's). */
    static Removals of(
        int size,
        java.util.function.IntToLongFunction removedId,
        java.util.function.IntToLongFunction keptId,
        java.util.function.IntFunction<String> rule) {
      return new Removals() {
        @Override
        public int size() {
          return size;
        }

        @Override
        public long removedId(int i) {
          return removedId.applyAsLong(i);
        }

        @Override
        public long keptId(int i) {
          return keptId.applyAsLong(i);
        }

        @Override
        public String rule(int i) {
          return rule.apply(i);
        }
      };
    }
  }

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
    if (post.kind().hardNegative()) {
      hardNegativeClusters.add(post.cluster());
      negativeOf.put(post.cluster(), post.negativeOf());
      negativeKinds.put(post.cluster(), post.kind());
    }
  }

  /** Hard-negative clusters per kind, in the kinds' order (kinds without one left out). */
  public Map<PostGenerator.Kind, Long> hardNegatives() {
    Map<PostGenerator.Kind, Long> counts = new java.util.EnumMap<>(PostGenerator.Kind.class);
    negativeKinds.values().forEach(kind -> counts.merge(kind, 1L, Long::sum));
    return counts;
  }

  /**
   * The kind of hard negative the two clusters are of each other (one made against the other), or
   * null when neither is.
   */
  public PostGenerator.Kind hardNegativeKind(long clusterA, long clusterB) {
    if (negativeOf.getOrDefault(clusterA, 0L) == clusterB) {
      return negativeKinds.get(clusterA);
    }
    if (negativeOf.getOrDefault(clusterB, 0L) == clusterA) {
      return negativeKinds.get(clusterB);
    }
    return null;
  }

  /** Whether {@code cluster} is a hard-negative cluster. */
  boolean isHardNegative(long cluster) {
    return hardNegativeClusters.contains(cluster);
  }

  /** Whether hard-negative cluster {@code cluster} was made against {@code model}. */
  boolean madeAgainst(long cluster, long model) {
    return negativeOf.containsKey(cluster) && negativeOf.get(cluster) == model;
  }

  public long cluster(long id) {
    return clusters[(int) id];
  }

  PostGenerator.Kind kind(long id) {
    return PostGenerator.Kind.values()[kinds[(int) id]];
  }

  /** In its cluster's exact group: the original (or hard-negative original) or an exact variant. */
  public boolean inExactGroup(long id) {
    PostGenerator.Kind kind = kind(id);
    return kind.exactDuplicate || !kind.nearDuplicate;
  }

  /**
   * How many records an exact pass over everything must remove: per cluster, exact group size - 1.
   */
  long expectedExactRemovals() {
    Map<Long, Integer> groupSizes = new HashMap<>();
    for (long id = 1; id <= maxId; id++) {
      if (clusters[(int) id] != 0 && inExactGroup(id)) {
        groupSizes.merge(clusters[(int) id], 1, Integer::sum);
      }
    }
    return groupSizes.values().stream().mapToLong(size -> size - 1).sum();
  }

  /** Checks each exact removal: removed and kept must be in the same cluster's exact group. */
  public ExactCheck checkExact(Removals plan) {
    long correct = 0;
    long wrong = 0;
    for (int i = 0; i < plan.size(); i++) {
      String rule = plan.rule(i);
      boolean repointed = rule.startsWith("exact+");
      if (!"exact".equals(rule) && !repointed) {
        continue;
      }
      long removed = plan.removedId(i);
      long kept = plan.keptId(i);
      // An exact twin of a record a later pass removed (rule exact+near,
      // DeletionPlan.collapseChains)
      // points to that pass's survivor, which may be a near variant.
      if (cluster(removed) == cluster(kept)
          && inExactGroup(removed)
          && (inExactGroup(kept) || repointed && kind(kept).nearDuplicate)) {
        correct++;
      } else {
        wrong++;
      }
    }
    return new ExactCheck(expectedExactRemovals(), correct, wrong);
  }

  /**
   * How many near variants the data holds: each one is a duplicate beyond its cluster's exact
   * group.
   */
  long expectedNearRemovals() {
    long n = 0;
    for (long id = 1; id <= maxId; id++) {
      if (clusters[(int) id] != 0 && kind(id).nearDuplicate) {
        n++;
      }
    }
    return n;
  }

  /**
   * Checks every removal of the plan (either rule). A removal is correct when its kept record is in
   * the removed record's true cluster; a cluster of n records should lose n - 1 of them (per true
   * cluster, the members beyond one that were removed), of which exact-group size - 1 by the exact
   * rule and the near variants by either rule. A wrong removal where either record belongs to a
   * hard-negative cluster is a hard-negative merge. Per kind, the hard negatives that a removal
   * joins with the cluster they were made against are counted (each once, whatever the number of
   * such removals of its posts).
   */
  public NearCheck checkAll(Removals plan) {
    return AllRemovalsCheck.check(this, plan);
  }

  /**
   * All removals against the truth.
   *
   * @param expected duplicates in the data: per cluster, its size - 1
   * @param expectedNear near variants in the data
   * @param correct removals whose kept record is in the removed record's cluster
   * @param wrong the other removals
   * @param exactCorrect correct removals by the exact rule (exact+near included: exact twins of a
   *     record the near pass removed)
   * @param nearCorrect correct removals by the near rule (exact+near included: the near decision)
   * @param nearWrong wrong removals by the near rule (exact+near included)
   * @param hardNegativeMerges wrong removals involving a hard-negative cluster
   * @param hardNegativeMergesByKind hard negatives that a wrong removal joined with the cluster
   *     they were made against, per kind (0 for each kind the data holds)
   * @param hardNegatives hard-negative clusters in the data, per kind
   * @param nearWrongElsewhere wrong removals by the near rule that do not join a hard negative with
   *     the cluster it was made against (two offers the generator did not make alike)
   */
  public record NearCheck(
      long expected,
      long expectedNear,
      long correct,
      long wrong,
      long exactCorrect,
      long nearCorrect,
      long nearWrong,
      long hardNegativeMerges,
      Map<PostGenerator.Kind, Long> hardNegativeMergesByKind,
      Map<PostGenerator.Kind, Long> hardNegatives,
      long nearWrongElsewhere) {
    /** Precision over all removals. */
    public double precision() {
      return correct + wrong == 0 ? 1.0 : (double) correct / (correct + wrong);
    }

    /** Precision of the near rule's removals. */
    public double nearPrecision() {
      return nearCorrect + nearWrong == 0 ? 1.0 : (double) nearCorrect / (nearCorrect + nearWrong);
    }

    /** Recall over all duplicates (exact and near). */
    public double recall() {
      return expected == 0 ? 1.0 : (double) correct / expected;
    }

    /**
     * Recall over the near duplicates: the correct removals beyond those of the exact rule, per
     * near variant. Meaningful after an exact pass (--method both); with --method near alone the
     * near rule also removes exact copies, so read {@link #recall()}.
     */
    public double nearRecall() {
      return expectedNear == 0 ? 1.0 : (double) (correct - exactCorrect) / expectedNear;
    }
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
