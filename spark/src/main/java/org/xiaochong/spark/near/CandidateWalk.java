package org.xiaochong.spark.near;

import static org.xiaochong.spark.near.PassRows.TEL;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.xiaochong.method.near.NearCandidates;
import org.xiaochong.method.near.NearRule;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.spark.near.PassRows.Found;
import org.xiaochong.spark.near.PassRows.Hit;
import org.xiaochong.spark.near.PassRows.Member;

/**
 * What one record of the window finds, as the single machine's candidate index and step 2 find it:
 * the records it meets ({@link #meetings}) and its near duplicates among them ({@link #verify}).
 */
final class CandidateWalk {
  private CandidateWalk() {}

  /**
   * The records one record meets, as the single machine's candidate index hands them: its phone
   * keys' holders, then its keys rarest first until {@link NearCandidates#stopBefore} stops, over
   * the holders found so far ({@code newerOnly}: the newer ones, else all).
   */
  static long[] meetings(Iterable<Hit> hits, boolean newerOnly) {
    List<Hit> sorted = new ArrayList<>();
    hits.forEach(
        hit -> {
          if (hit.newer() || !newerOnly) {
            sorted.add(hit);
          }
        });
    sorted.sort(
        (a, b) ->
            a.rank() != b.rank()
                ? Integer.compare(a.rank(), b.rank())
                : Long.compare(a.other(), b.other()));
    Set<Long> out = new LinkedHashSet<>();
    int found = 0;
    for (int i = 0; i < sorted.size(); ) {
      Hit first = sorted.get(i);
      int j = i;
      while (j < sorted.size() && sorted.get(j).rank() == first.rank()) {
        j++;
      }
      if (first.kind() != TEL && NearCandidates.stopBefore(first.holders(), found)) {
        break;
      }
      for (int k = i; k < j; k++) {
        out.add(sorted.get(k).other());
      }
      if (first.kind() != TEL) {
        found += j - i;
      }
      i = j;
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  /**
   * The near duplicates of {@code record} among its newer candidates, best first (most similar,
   * then newest: {@code NearPass.compare}).
   */
  static Found verify(
      Member record,
      Iterable<Member> candidates,
      long[] meets,
      NearConfig config,
      ShippedFrequencies frequencies,
      NearStage.Counters counters) {
    NearRule.KeyWeights weight = frequencies.get().weights();
    NearRule.Stored keys = NearRecord.decode(record.near()).keys();
    List<Member> near = new ArrayList<>();
    List<Double> scores = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    long compared = 0;
    for (Member candidate : candidates) {
      if (!seen.add(candidate.id())) {
        continue;
      }
      compared++;
      NearRule.Stored other = NearRecord.decode(candidate.near()).keys();
      if (NearRule.isNearDuplicate(keys, other, config, weight)) {
        near.add(candidate);
        scores.add(NearRule.similarity(keys, other, weight));
      }
    }
    counters.compared().add(compared);
    Integer[] rank = new Integer[near.size()];
    for (int i = 0; i < rank.length; i++) {
      rank[i] = i;
    }
    Arrays.sort(
        rank,
        (a, b) ->
            !scores.get(a).equals(scores.get(b))
                ? Double.compare(scores.get(b), scores.get(a))
                : near.get(b).compareKeep(near.get(a)));
    long[] ids = new long[rank.length];
    double[] sims = new double[rank.length];
    for (int i = 0; i < rank.length; i++) {
      ids[i] = near.get(rank[i]).id();
      sims[i] = scores.get(rank[i]);
    }
    return new Found(record.id(), ids, sims, meets);
  }
}
