package org.xiaochong.method.near;

import java.util.HashMap;
import java.util.Map;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.method.Excluded;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.policy.KeepPolicy;

/**
 * Whether the next near pass keeps a record of the index, for a check that answers as the run
 * decides ({@link BestMatch}). The pass takes records newest first, and a record goes to the first
 * of its near duplicates among the records that outrank it that is still kept, unless it is marked
 * apart from that one ({@link NearComponent#decide}, step 3). So a record is kept when none of its
 * outranking near duplicates is kept: asked in turn, best first, down the chain of newer records.
 * The chain ends, as ranks only rise along it; past {@link #MAX_RECORDS} records asked for one
 * check a record counts as kept, the answer of a check that looks one hop only.
 *
 * <p>The candidates and the rule are the check's ({@link CheckCandidates#compareLikely}); the merge
 * of groups by average linkage (step 4) is not followed. One instance per checked record and
 * thread.
 */
final class NextRunKeeps {
  /** Records asked about for one check at most. */
  static final int MAX_RECORDS = 16;

  private final CheckCandidates candidates;
  private final CheckCandidates.Cursor cursor;
  private final NearConfig config;
  private final ApartPairs apart;
  private final Map<Long, Boolean> known = new HashMap<>();

  NextRunKeeps(
      CheckCandidates candidates,
      CheckCandidates.Cursor cursor,
      NearConfig config,
      ApartPairs apart) {
    this.candidates = candidates;
    this.cursor = cursor;
    this.config = config;
    this.apart = apart;
  }

  /** Whether the next run keeps the record of that id, keep rank and near keys. */
  boolean keeps(long id, long[] rank, NearRule.Keys keys) {
    Boolean answer = known.get(id);
    if (answer != null) {
      return answer;
    }
    if (known.size() >= MAX_RECORDS) {
      return true;
    }
    known.put(id, true);
    Excluded excluded =
        Excluded.of(id, other -> apart.contains(id, other))
            .onlyOutranking(
                (otherId, otherRank) -> !KeepPolicy.isPreferred(rank, id, otherRank, otherId));
    BestMatch goesTo = new BestMatch(config, excluded, this);
    candidates.compareLikely(
        NearRule.Stored.copyOf(keys), true, excluded, goesTo::consider, cursor);
    boolean kept = goesTo.match() == null;
    known.put(id, kept);
    return kept;
  }
}
