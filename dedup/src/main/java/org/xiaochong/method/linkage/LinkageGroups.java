package org.xiaochong.method.linkage;

/**
 * How the linkage pass decides a group of linked records, after its kept record took the members
 * close enough to it: the rule shared by the single machine's pass ({@link LinkagePass}) and the
 * Spark job, so that both decide alike. Stateless.
 */
public final class LinkageGroups {
  /**
   * The match probability a group member needs with the group's kept record itself to be removed in
   * its favour: a member joined through a chain of links is removed only when its own comparison
   * with the kept record does not say they differ (weight >= 0). A chain of close pairs (A~B, B~C,
   * …) can walk from one entity to another; the direct comparison stops it.
   */
  public static final double MIN_DIRECT_PROBABILITY = 0.5;

  /**
   * Rounds of regrouping the members a group's kept record did not take: each round, the preferred
   * of those left is kept and takes those of them whose own comparison with it does not say they
   * differ. A chain that walked from one entity to another leaves the second entity's records
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
   * {@value #MIN_DIRECT_PROBABILITY}; the rest go on to the next round, at most {@value
   * #REGROUP_ROUNDS}. Returns how many stayed without being taken or kept ({@code left} is
   * reordered).
   */
  public static int regroup(int[] left, int n, Regrouping group) {
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
        if (probability >= MIN_DIRECT_PROBABILITY) {
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
