package org.xiaochong.archive;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides a group of twins (records with one exact key) under the marks ({@link ApartPairs}): the
 * members are taken in preference order, the first is kept, and each other member is removed in
 * favour of the first kept member whose <em>cluster</em> (the kept member and the members removed
 * for it so far) holds no record it is marked apart from, or kept when every cluster holds one. So
 * no cluster ever holds two records marked apart: a row restored apart from a kept row stays apart
 * from that row's later twins too, since the twin and the kept row end in one cluster.
 *
 * <p>Cost: a member without marks is removed for the first kept member at once (a cluster can only
 * refuse a member with marks). A member of a group is kept at once when every cluster already holds
 * a row of that group, which is how a restored group of n twins is decided in O(n) rather than by
 * asking each of its n²/2 pairs. Otherwise the clusters are tried in order.
 */
public final class ApartClusters {
  private ApartClusters() {}

  /**
   * For each member ({@code ids} in preference order, most preferred first): the index of the
   * member it is removed in favour of, or -1 when it is kept (always so for the first).
   */
  public static int[] removedFor(long[] ids, ApartPairs apart) {
    int n = ids.length;
    int[] into = new int[n];
    into[0] = -1;
    List<Cluster> clusters = new ArrayList<>();
    Map<Long, Integer> clustersWith = new HashMap<>(); // group -> clusters holding a row of it
    clusters.add(new Cluster(0));
    clusters.get(0).join(0, ids, apart, clustersWith);
    for (int i = 1; i < n; i++) {
      long id = ids[i];
      Cluster found = null;
      if (!apart.isMarked(id)) {
        found = clusters.get(0);
      } else {
        long[] groups = apart.groupsOf(id);
        boolean everyClusterRefuses = false;
        for (long g : groups) {
          if (clustersWith.getOrDefault(g, 0) == clusters.size()) {
            everyClusterRefuses = true;
            break;
          }
        }
        if (!everyClusterRefuses) {
          for (Cluster c : clusters) {
            if (!c.refuses(id, groups, ids, apart)) {
              found = c;
              break;
            }
          }
        }
        if (found == null) {
          apart.recordHonoured(id);
          apart.keepsApart(id, ids[0]); // counts the pair or the first row, when they are marked
        }
      }
      if (found == null) {
        into[i] = -1;
        Cluster c = new Cluster(i);
        clusters.add(c);
        c.join(i, ids, apart, clustersWith);
      } else {
        into[i] = found.kept;
        found.join(i, ids, apart, clustersWith);
      }
    }
    return into;
  }

  /** A kept member and the marks of the members removed for it. */
  private static final class Cluster {
    final int kept;
    final Set<Long> groups = new HashSet<>();
    final List<Long> paired = new ArrayList<>(); // members that are one of a marked pair

    Cluster(int kept) {
      this.kept = kept;
    }

    boolean refuses(long id, long[] idGroups, long[] ids, ApartPairs apart) {
      for (long g : idGroups) {
        if (groups.contains(g)) {
          return true;
        }
      }
      for (long member : paired) {
        if (apart.containsPair(id, member)) {
          apart.keepsApart(id, member); // counts the pair
          return true;
        }
      }
      return false;
    }

    void join(int member, long[] ids, ApartPairs apart, Map<Long, Integer> clustersWith) {
      long id = ids[member];
      if (!apart.isMarked(id)) {
        return;
      }
      for (long g : apart.groupsOf(id)) {
        if (groups.add(g)) {
          clustersWith.merge(g, 1, Integer::sum);
        }
      }
      if (apart.hasPairs(id)) {
        paired.add(id);
      }
    }
  }
}
