package org.xiaochong.method.linkage;

/**
 * How the linkage pass decides a group of linked records, after its kept record took the members
 * close enough to it: the rule shared by the single machine's pass ({@link LinkagePass}) and the
 * Spark job, so that both decide alike. Stateless.
 *
 * <p>A member is removed in favour of a kept record only when its own match probability with that
 * record reaches the threshold ({@code linkage.threshold}), as a directly linked pair does. A chain
 * of close pairs (A~B, B~C, …) can walk from one entity to another, one author's two papers with
 * near-identical titles; the direct comparison stops it, and every removal's own score meets the
 * threshold the user set. (With a laxer direct test, probability 0.5, cora's precision was .860
 * against .929 now, and its recall .864 against .921: the members a strict test leaves are grouped
 * again among themselves, which keeps each entity's copies together.)
 */
public final class LinkageGroups {
  /**
   * Rounds of regrouping the members a group's kept record did not take: each round, the preferred
   * of those left is kept and takes those of them whose own match probability with it reaches the
   * threshold. A chain that walked from one entity to another leaves the second entity's records
   * behind together; without this they would all stay, duplicates of each other. Bounded so that a
   * group costs at most this many comparisons per member.
   */
  public static final int REGROUP_ROUNDS = 10;

  private LinkageGroups() {}

  /** What {@link #regroup} asks of the pass that calls it. */
  public interface Regrouping {
    /** Whether record {@code a} is kept over record {@code b} (the keep policy). */
    boolean preferred(int a, int b);

    /** The match probability of {@code member} with {@code kept}; 0 when they are marked apart. */
    double probability(int member, int kept);

    /** Plans the removal of {@code member} in favour of {@code kept}. */
    void remove(int member, int kept, double probability);
  }

  /**
   * Groups again the members {@code left[0, n)} that their group's kept record did not take: the
   * most preferred of them is kept and takes those whose own match probability with it is at least
   * {@code threshold}; the rest go on to the next round, at most {@value #REGROUP_ROUNDS}. Returns
   * how many stayed without being taken or kept ({@code left} is reordered).
   */
  public static int regroup(int[] left, int n, double threshold, Regrouping group) {
    for (int round = 0; n > 1 && round < REGROUP_ROUNDS; round++) {
      int kept = left[0];
      for (int i = 1; i < n; i++) {
        if (group.preferred(left[i], kept)) {
          kept = left[i];
        }
      }
      int still = 0;
      for (int i = 0; i < n; i++) {
        int member = left[i];
        if (member == kept) {
          continue;
        }
        double probability = group.probability(member, kept);
        if (probability >= threshold) {
          group.remove(member, kept, probability);
        } else {
          left[still++] = member;
        }
      }
      n = still;
    }
    return n;
  }
}
