package org.xiaochong.eval;

import java.util.HashMap;
import java.util.Map;
import org.xiaochong.archive.DeletionPlan;

/**
 * The true clusters of a labelled data set (record id -> cluster key; an id without a label is a
 * cluster of its own) and the scores of a plan against them. A removal is correct when its kept
 * record is in the removed record's true cluster; precision = correct removals / removals; recall =
 * correct removals / Σ over true clusters (size − 1). Not thread-safe.
 */
public final class Truth {
  private final Map<Long, Long> clusterOf = new HashMap<>();
  private final Map<String, Long> keys = new HashMap<>();
  private long records;

  /** Registers a loaded record; {@code label} null or blank: a cluster of its own. */
  void add(long id, String label) {
    records++;
    if (label != null && !label.isBlank()) {
      Long cluster = keys.computeIfAbsent(label.strip(), k -> (long) keys.size() + 1);
      clusterOf.put(id, cluster);
    }
  }

  /** Registers pairs of ids as duplicates (union-find over the pairs; pair files). */
  static Truth fromPairs(Iterable<long[]> pairs, Iterable<Long> ids) {
    UnionFind uf = new UnionFind();
    for (long[] p : pairs) {
      uf.union(p[0], p[1]);
    }
    Truth truth = new Truth();
    for (long id : ids) {
      truth.add(id, uf.contains(id) ? "c" + uf.find(id) : null);
    }
    return truth;
  }

  public long records() {
    return records;
  }

  /** Σ over true clusters (size − 1): the removals a perfect run makes. */
  public long expectedRemovals() {
    Map<Long, Integer> sizes = new HashMap<>();
    clusterOf.values().forEach(c -> sizes.merge(c, 1, Integer::sum));
    return sizes.values().stream().mapToLong(s -> s - 1).sum();
  }

  /** The true clusters of two or more records: their record ids, per cluster. */
  public java.util.Collection<java.util.List<Long>> clusters() {
    Map<Long, java.util.List<Long>> members = new HashMap<>();
    clusterOf.forEach(
        (id, cluster) ->
            members.computeIfAbsent(cluster, c -> new java.util.ArrayList<>()).add(id));
    members.values().removeIf(m -> m.size() < 2);
    return members.values();
  }

  public boolean sameCluster(long a, long b) {
    Long ca = clusterOf.get(a);
    return ca != null && ca.equals(clusterOf.get(b));
  }

  public Score score(DeletionPlan plan) {
    long correct = 0;
    for (int i = 0; i < plan.size(); i++) {
      if (sameCluster(plan.removedId(i), plan.keptId(i))) {
        correct++;
      }
    }
    return new Score(plan.size(), correct, expectedRemovals());
  }

  /** Precision, recall and F1 of one run. */
  public record Score(long removals, long correct, long expected) {
    public double precision() {
      return removals == 0 ? 1.0 : (double) correct / removals;
    }

    public double recall() {
      return expected == 0 ? 1.0 : (double) correct / expected;
    }

    public double f1() {
      double p = precision();
      double r = recall();
      return p + r == 0 ? 0 : 2 * p * r / (p + r);
    }
  }

  /** Union-find over long ids (path halving). */
  public static final class UnionFind {
    private final Map<Long, Long> parent = new HashMap<>();

    public boolean contains(long id) {
      return parent.containsKey(id);
    }

    public long find(long id) {
      long x = id;
      parent.putIfAbsent(x, x);
      while (parent.get(x) != x) {
        long grand = parent.get(parent.get(x));
        parent.put(x, grand);
        x = grand;
      }
      return x;
    }

    public void union(long a, long b) {
      long ra = find(a);
      long rb = find(b);
      if (ra != rb) {
        parent.put(ra, rb);
      }
    }

    /** Union of every removal of the plan with its kept record. */
    public static UnionFind of(DeletionPlan plan) {
      UnionFind uf = new UnionFind();
      for (int i = 0; i < plan.size(); i++) {
        uf.union(plan.removedId(i), plan.keptId(i));
      }
      return uf;
    }

    public boolean same(long a, long b) {
      return find(a) == find(b);
    }
  }
}
