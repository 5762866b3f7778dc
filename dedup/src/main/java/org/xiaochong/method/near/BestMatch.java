package org.xiaochong.method.near;

import org.xiaochong.method.Excluded;
import org.xiaochong.method.MethodCheck.Match;
import org.xiaochong.method.near.fingerprint.NearConfig;

/**
 * The most similar near duplicate among the candidates {@link NearCheck} considers (ties: {@link
 * NearRule#isBetter}), never the incoming record itself nor one {@link Excluded#passedOver}, or
 * none when it is marked apart from the incoming record: as in the pass, a record whose closest
 * match a person rejected is new. One instance per incoming record.
 */
final class BestMatch {
  private final NearConfig config;
  private final Excluded excluded;
  private boolean found;
  private long id;
  private long[] rank;
  private double similarity;

  BestMatch(NearConfig config, Excluded excluded) {
    this.config = config;
    this.excluded = excluded;
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
    double s = NearRule.similarity(record, candidate, weight);
    if (!found || NearRule.isBetter(s, candidateRank, candidateId, similarity, rank, id)) {
      found = true;
      id = candidateId;
      rank = candidateRank;
      similarity = s;
    }
  }

  /** The best near duplicate, or null when none was found or it is marked apart. */
  Match match() {
    return found && !excluded.markedApart(id) ? new Match(id, rank, similarity) : null;
  }
}
