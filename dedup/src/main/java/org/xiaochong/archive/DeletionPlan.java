package org.xiaochong.archive;

import java.util.Arrays;

/**
 * The decisions of a run: which record is removed in favour of which kept record, by which rule and
 * with what score. Parallel primitive arrays (16-24 bytes per removal) rather than objects: a large
 * table can plan millions of removals. Not thread-safe.
 */
public final class DeletionPlan {
  /** The rule that found a duplicate; its name is stored in {@code dedup_rule}. */
  public enum Rule {
    EXACT("exact"),
    NEAR("near");

    public final String label;

    Rule(String label) {
      this.label = label;
    }

    /** The rule stored as {@code label} in {@code dedup_rule} or {@code dedup_plan.rule}. */
    public static Rule of(String label) {
      for (Rule rule : values()) {
        if (rule.label.equals(label)) {
          return rule;
        }
      }
      throw new IllegalArgumentException("unknown rule '" + label + "' in the plan");
    }
  }

  private long[] removedIds = new long[1024];
  private long[] keptIds = new long[1024];
  private byte[] rules = new byte[1024];
  private float[] scores = new float[1024];
  private int size;

  public void add(long removedId, long keptId, Rule rule, double score) {
    if (removedId == keptId) {
      throw new IllegalArgumentException("record " + removedId + " cannot be removed in favour of itself");
    }
    if (size == removedIds.length) {
      int capacity = size * 2;
      removedIds = Arrays.copyOf(removedIds, capacity);
      keptIds = Arrays.copyOf(keptIds, capacity);
      rules = Arrays.copyOf(rules, capacity);
      scores = Arrays.copyOf(scores, capacity);
    }
    removedIds[size] = removedId;
    keptIds[size] = keptId;
    rules[size] = (byte) rule.ordinal();
    scores[size] = (float) score;
    size++;
  }

  public int size() {
    return size;
  }

  public long removedId(int i) {
    return removedIds[i];
  }

  public long keptId(int i) {
    return keptIds[i];
  }

  public Rule rule(int i) {
    return Rule.values()[rules[i]];
  }

  public double score(int i) {
    return scores[i];
  }

  public long count(Rule rule) {
    long n = 0;
    for (int i = 0; i < size; i++) {
      if (rules[i] == rule.ordinal()) {
        n++;
      }
    }
    return n;
  }

  /**
   * Positions of the plan ordered by removed id. Writing the plan in this order makes the archive
   * inserts and source deletes walk both primary keys in order instead of jumping around.
   */
  public int[] orderByRemovedId() {
    Integer[] order = new Integer[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Long.compare(removedIds[a], removedIds[b]));
    int[] result = new int[size];
    for (int i = 0; i < size; i++) {
      result[i] = order[i];
    }
    return result;
  }

  /**
   * Points every removal whose kept record is itself planned for removal (an exact twin of a record
   * the near pass then removed) to the record that finally stays, so the archive never points to a
   * removed row and no chain is left. The rule and score of the removal stay. Returns how many
   * removals were re-pointed.
   *
   * @throws IllegalStateException if the plan has a cycle (a bug in a pass)
   */
  public int collapseChains() {
    int[] order = orderByRemovedId();
    long[] sortedRemoved = new long[size];
    for (int i = 0; i < size; i++) {
      sortedRemoved[i] = removedIds[order[i]];
    }
    int repointed = 0;
    for (int i = 0; i < size; i++) {
      long kept = keptIds[i];
      int steps = 0;
      int at;
      while ((at = Arrays.binarySearch(sortedRemoved, kept)) >= 0) {
        kept = keptIds[order[at]];
        if (++steps > size) {
          throw new IllegalStateException("the plan has a cycle through record " + removedIds[i]);
        }
      }
      if (kept != keptIds[i]) {
        keptIds[i] = kept;
        repointed++;
      }
    }
    return repointed;
  }

  /** The ids removed by one rule, sorted. */
  public long[] removedIdsSorted(Rule rule) {
    long[] ids = new long[size];
    int n = 0;
    for (int i = 0; i < size; i++) {
      if (rules[i] == rule.ordinal()) {
        ids[n++] = removedIds[i];
      }
    }
    ids = Arrays.copyOf(ids, n);
    Arrays.sort(ids);
    return ids;
  }

  /** The removed ids, sorted (for index deletes). */
  public long[] removedIdsSorted() {
    long[] ids = Arrays.copyOf(removedIds, size);
    Arrays.sort(ids);
    return ids;
  }
}
