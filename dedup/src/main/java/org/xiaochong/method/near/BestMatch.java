package org.xiaochong.method.near;

import java.util.ArrayList;
import java.util.List;
import org.xiaochong.method.Excluded;
import org.xiaochong.method.MethodCheck.Match;
import org.xiaochong.method.near.fingerprint.NearConfig;

/**
 * The near duplicate a record goes to among the candidates {@link NearCheck} considers: the most
 * similar (ties: {@link NearRule#isBetter}), never the incoming record itself nor one {@link
 * Excluded#passedOver}, or none when it is marked apart from the incoming record: as in the pass, a
 * record whose closest match a person rejected is new.
 *
 * <p>As in the pass, a record goes to a near duplicate that outranks it only when the run keeps
 * that one ({@link NextRunKeeps}): a twin the run removes for a newer record of its own is passed
 * over, and the next one is asked. One instance per incoming record.
 */
final class BestMatch {
  /** A near duplicate of the incoming record. */
  private record Twin(long id, long[] rank, double similarity, NearRule.Keys keys) {
    boolean isBetterThan(Twin other) {
      return NearRule.isBetter(similarity, rank, id, other.similarity, other.rank, other.id);
    }
  }

  private final NearConfig config;
  private final Excluded excluded;
  private final NextRunKeeps keeps;
  private final List<Twin> twins = new ArrayList<>(2);

  /**
   * @param keeps whether the run keeps a twin that outranks the record ({@link Excluded#outranks});
   *     null: every twin counts
   */
  BestMatch(NearConfig config, Excluded excluded, NextRunKeeps keeps) {
    this.config = config;
    this.excluded = excluded;
    this.keeps = keeps;
  }

  void consider(
      NearRule.Stored record,
      NearRule.Keys candidate,
      long candidateId,
      long[] candidateRank,
      NearRule.KeyWeights weight) {
    if (excluded.isSelf(candidateId)
        || excluded.passedOver(candidateId, candidateRank)
        || !NearRule.isNearDuplicate(record, candidate, config, weight)) {
      return;
    }
    twins.add(
        new Twin(
            candidateId, candidateRank, NearRule.similarity(record, candidate, weight), candidate));
  }

  /**
   * The best near duplicate the record goes to, or null when none was found or it is marked apart.
   * Takes the twins best first; one that outranks the record and that the run removes is passed
   * over.
   */
  Match match() {
    twins.sort((a, b) -> a.isBetterThan(b) ? -1 : b.isBetterThan(a) ? 1 : 0);
    for (Twin twin : twins) {
      if (keeps == null
          || !excluded.outranks(twin.id(), twin.rank())
          || keeps.keeps(twin.id(), twin.rank(), twin.keys())) {
        return excluded.markedApart(twin.id())
            ? null
            : new Match(twin.id(), twin.rank(), twin.similarity());
      }
    }
    return null;
  }
}
