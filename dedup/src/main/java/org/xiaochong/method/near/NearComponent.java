package org.xiaochong.method.near;

import java.io.IOException;
import java.util.function.IntConsumer;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.method.near.fingerprint.NearConfig;

/**
 * The sequential decisions of the near pass ({@link NearPass}, step 3 and the average-linkage merge
 * of {@link NearGroups}) over records given by position in the pass's newest-first order. The
 * single machine calls it once over every record of the pass; a distributed job calls it once per
 * connected component of the graph of verified pairs and merge meetings: a record's fate depends
 * only on the records of its component, and the positions of a component keep their relative order,
 * so both get the same decisions.
 */
public final class NearComponent {
  private NearComponent() {}

  /** The records of one call, by position 0 .. size-1, the most preferred (newest) first. */
  public interface Records {
    int size();

    long id(int pos);

    /** The keep rank ({@link org.xiaochong.policy.KeepPolicy}). */
    long rank(int pos);

    /** Whether the record is examined (in the window). */
    boolean inWindow(int pos);

    /** {@link PassDocuments#allFieldsShort}: the record may join a group by average linkage. */
    boolean allShort(int pos);

    /** Positions of its near duplicates among the newer records, best first; null when none. */
    int[] near(int pos);

    /** Their similarities, in the order of {@link #near}. */
    double[] scores(int pos);

    /**
     * Hands {@code sink} the position of every record the record at {@code pos} meets, newer or
     * older ({@link NearCandidateIndex#forEach} with newerOnly false); a position may come twice.
     */
    void meets(int pos, IntConsumer sink) throws IOException;

    /** Every key of the record. */
    NearRule.Keys keys(int pos);
  }

  /**
   * The decisions: per position, the survivor it points to (−1 when kept) and its score.
   *
   * @param pairsCompared pairs of records the average linkage compared
   */
  public record Result(int[] survivor, float[] score, int removed, long pairsCompared) {
    public boolean isRemoved(int pos) {
      return survivor[pos] >= 0;
    }
  }

  /**
   * Step 3, newest first: a record of the window goes to the first of its near duplicates that is
   * still kept, unless it is marked apart from it, else it is kept. Then each kept record of the
   * window whose fields are all short joins the newer group it is most alike on average ({@link
   * NearGroups#averageLinkage}) when that average reaches near.min-similarity.
   */
  public static Result decide(
      Records records, NearConfig config, NearRule.KeyWeights weight, ApartPairs apart)
      throws IOException {
    int n = records.size();
    boolean[] kept = new boolean[n];
    NearGroups groups = new NearGroups(Math.max(1, n));
    for (int pos = 0; pos < n; pos++) {
      int[] near = records.near(pos);
      int best = -1;
      if (near != null) {
        for (int i = 0; i < near.length && best < 0; i++) {
          if (kept[near[i]]) {
            best = i;
          }
        }
      }
      if (best >= 0 && !apart.keepsApart(records.id(pos), records.id(near[best]))) {
        groups.remove(pos, near[best], records.scores(pos)[best]);
      } else {
        kept[pos] = true;
      }
    }
    mergeGroups(records, groups, config, weight, apart);
    int[] survivor = new int[n];
    float[] score = new float[n];
    for (int pos = 0; pos < n; pos++) {
      survivor[pos] = groups.isRemoved(pos) ? groups.survivorOf(pos) : -1;
      score[pos] = (float) groups.score(pos);
    }
    return new Result(survivor, score, groups.removed(), groups.pairsCompared());
  }

  private static void mergeGroups(
      Records records,
      NearGroups groups,
      NearConfig config,
      NearRule.KeyWeights weight,
      ApartPairs apart)
      throws IOException {
    int n = records.size();
    int[] roots = new int[64];
    boolean[] seen = new boolean[Math.max(1, n)];
    for (int pos = 0; pos < n; pos++) {
      if (!records.inWindow(pos) || !records.allShort(pos) || groups.isRemoved(pos)) {
        continue;
      }
      int doc = pos;
      int[] found = {0};
      int[][] rootsHolder = {roots};
      records.meets(
          pos,
          other -> {
            int root = groups.survivorOf(other);
            if (root != doc && root < doc && !seen[root]) {
              seen[root] = true;
              if (found[0] == rootsHolder[0].length) {
                rootsHolder[0] = java.util.Arrays.copyOf(rootsHolder[0], found[0] * 2);
              }
              rootsHolder[0][found[0]++] = root;
            }
          });
      roots = rootsHolder[0];
      int size = found[0];
      NearRule.Keys[] group = size == 0 ? null : groups.records(doc, records::keys);
      int best = -1;
      double bestLinkage = -1;
      for (int c = 0; c < size; c++) {
        int root = roots[c];
        if (group.length == 1 && groups.firstMember(root) < 0) {
          continue; // two records alone: the greedy step compared them and found no near duplicate
        }
        if (groups.anyApart(doc, root, (a, b) -> apart.keepsApart(records.id(a), records.id(b)))) {
          continue; // the merge would remove a record in favour of one it is marked apart from
        }
        double linkage = groups.averageLinkage(group, root, records::keys, config, weight);
        if (linkage >= config.minSimilarity()
            && (best < 0
                || NearRule.isBetter(
                    linkage,
                    records.rank(root),
                    records.id(root),
                    bestLinkage,
                    records.rank(best),
                    records.id(best)))) {
          best = root;
          bestLinkage = linkage;
        }
      }
      for (int c = 0; c < size; c++) {
        seen[roots[c]] = false;
      }
      if (best >= 0) {
        groups.merge(doc, best, bestLinkage);
      }
    }
  }
}
