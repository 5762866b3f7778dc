package org.xiaochong.method.near;

import java.util.function.IntFunction;
import org.xiaochong.method.near.fingerprint.NearConfig;

/**
 * The groups of one near pass ({@link NearPass}): for each removed record the record it points to
 * (its group's survivor, the newest record of the group) and its score, and for each survivor its
 * members.
 *
 * <p>{@link #averageLinkage} and {@link #merge} let the pass join two groups whose records are
 * alike on average although no record of one is a near duplicate of the other group's survivor: two
 * variants of one original, each with its own typos, are each close to the original and less close
 * to each other; when the newer variant survives, the greedy pass removes the original in its
 * favour and keeps the other variant apart. That is average linkage (UPGMA), the rule dedupe's
 * hierarchical clustering applies to its pair scores: single linkage (any near duplicate anywhere
 * in the group) chains different records together through one shared neighbour.
 *
 * <p>Not thread-safe: one instance per pass.
 */
final class NearGroups {
  /**
   * Records of each group averaged over at most ({@link #averageLinkage}), so a huge group costs a
   * bounded time.
   */
  static final int MAX_AVERAGED = 16;

  private final int[]
      survivor; // doc + 1 of the survivor a removed record points to; 0 when not removed
  private final float[] score;
  private final int[] firstMember; // per survivor: doc + 1 of its first member; 0 when none
  private final int[] lastMember; // per survivor: doc + 1 of its last member
  private final int[]
      nextMember; // per member: doc + 1 of the next member of its group; 0 at the end
  private int removed;
  private long pairsCompared;

  NearGroups(int maxDoc) {
    survivor = new int[maxDoc];
    score = new float[maxDoc];
    firstMember = new int[maxDoc];
    lastMember = new int[maxDoc];
    nextMember = new int[maxDoc];
  }

  /**
   * Removes {@code doc} (kept until now, without members) in favour of the survivor {@code into}.
   */
  void remove(int doc, int into, double similarity) {
    survivor[doc] = into + 1;
    score[doc] = (float) similarity;
    append(into, doc);
    removed++;
  }

  /**
   * Joins the group of the survivor {@code doc} to the group of the survivor {@code into} (newer):
   * {@code doc} and its members now point to {@code into}; {@code doc}'s score is the linkage, its
   * members keep theirs.
   */
  void merge(int doc, int into, double linkage) {
    for (int m = firstMember(doc); m >= 0; m = nextMember(m)) {
      survivor[m] = into + 1;
    }
    int first = firstMember[doc];
    int last = lastMember[doc];
    firstMember[doc] = 0;
    lastMember[doc] = 0;
    remove(doc, into, linkage);
    if (first != 0) { // doc's members follow doc in into's list
      nextMember[doc] = first;
      lastMember[into] = last;
    }
  }

  private void append(int into, int doc) {
    nextMember[doc] = 0;
    if (firstMember[into] == 0) {
      firstMember[into] = doc + 1;
    } else {
      nextMember[lastMember[into] - 1] = doc + 1;
    }
    lastMember[into] = doc + 1;
  }

  boolean isRemoved(int doc) {
    return survivor[doc] != 0;
  }

  /** The survivor of {@code doc}'s group: {@code doc} itself when it is not removed. */
  int survivorOf(int doc) {
    return survivor[doc] == 0 ? doc : survivor[doc] - 1;
  }

  double score(int doc) {
    return score[doc];
  }

  /** Records removed so far. */
  int removed() {
    return removed;
  }

  int firstMember(int survivorDoc) {
    return firstMember[survivorDoc] - 1;
  }

  int nextMember(int member) {
    return nextMember[member] - 1;
  }

  /**
   * The average similarity over the pairs of a record of {@code groupA} ({@link #records} of one
   * group) and a record of the group of the survivor {@code b} (its {@link #records}), or −1 when
   * no such pair passes the whole near rule ({@link NearRule#isNearDuplicate}): the vetoes must
   * hold for at least one pair of records, not only on average.
   */
  double averageLinkage(
      NearRule.Keys[] groupA,
      int b,
      IntFunction<NearRule.Keys> keysOf,
      NearConfig config,
      NearRule.KeyWeights weight) {
    NearRule.Keys[] groupB = records(b, keysOf);
    int pairs = groupA.length * groupB.length;
    double sum = 0;
    int left = pairs;
    boolean linked = false;
    for (NearRule.Keys x : groupA) {
      for (NearRule.Keys y : groupB) {
        double similarity = NearRule.similarity(x, y, weight);
        pairsCompared++;
        sum += similarity;
        left--;
        linked =
            linked
                || (similarity >= config.minSimilarity()
                    && NearRule.isNearDuplicate(x, y, config, weight));
        if (sum + left < config.minSimilarity() * pairs) {
          return -1; // even similarity 1 for every pair left would not lift the average
        }
      }
    }
    return linked ? sum / pairs : -1;
  }

  /** Two documents a person marked as not duplicates. */
  @FunctionalInterface
  interface ApartDocs {
    boolean apart(int docA, int docB);
  }

  /**
   * Whether {@link #merge}({@code doc}, {@code into}) would remove a record in favour of one it is
   * marked apart from: {@code doc} or one of its members marked apart from {@code into}. The
   * members of {@code into}'s group keep their survivor, so only these pairs are new decisions.
   */
  boolean anyApart(int doc, int into, ApartDocs marks) {
    if (marks.apart(doc, into)) {
      return true;
    }
    for (int m = firstMember(doc); m >= 0; m = nextMember(m)) {
      if (marks.apart(m, into)) {
        return true;
      }
    }
    return false;
  }

  /** Pairs of records {@link #averageLinkage} compared so far. */
  long pairsCompared() {
    return pairsCompared;
  }

  /**
   * The keys of a group's survivor and of its first members, at most {@link #MAX_AVERAGED} records.
   */
  NearRule.Keys[] records(int survivorDoc, IntFunction<NearRule.Keys> keysOf) {
    NearRule.Keys[] records = new NearRule.Keys[MAX_AVERAGED];
    int n = 0;
    records[n++] = keysOf.apply(survivorDoc);
    for (int m = firstMember(survivorDoc); m >= 0 && n < MAX_AVERAGED; m = nextMember(m)) {
      records[n++] = keysOf.apply(m);
    }
    return java.util.Arrays.copyOf(records, n);
  }
}
