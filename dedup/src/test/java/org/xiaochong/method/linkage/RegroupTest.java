package org.xiaochong.method.linkage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The members a group's kept record did not take, grouped again among themselves ({@link
 * LinkageGroups#regroup}): records 0..n, the lower number preferred, each pair's probability given.
 */
class RegroupTest {
  private static final double THRESHOLD = 0.8;

  private final List<String> removals = new ArrayList<>();

  private LinkageGroups.Regrouping pairs(Map<String, Double> probabilities) {
    return new LinkageGroups.Regrouping() {
      @Override
      public boolean preferred(int a, int b) {
        return a < b;
      }

      @Override
      public double probability(int member, int kept) {
        return probabilities.getOrDefault(
            Math.min(member, kept) + "~" + Math.max(member, kept), 0.0);
      }

      @Override
      public void remove(int member, int kept, double probability) {
        removals.add(member + "->" + kept);
      }
    };
  }

  @Test
  void twoEntitiesLeftTogether_eachKeepsItsOwnCopy_noneStaysAlone() {
    // A chain reached two other entities: {1, 3} and {2, 4}; 1 is preferred over 2, 2 over 3.
    int[] left = {4, 3, 2, 1};

    int alone =
        LinkageGroups.regroup(
            left, 4, THRESHOLD, pairs(Map.of("1~3", 0.9, "2~4", 0.8, "1~2", 0.2)));

    assertThat(removals).containsExactly("3->1", "4->2");
    assertThat(alone).isZero();
  }

  @Test
  void memberLikeOnlyOneTakenBefore_staysAlone() {
    int[] left = {1, 2, 3};

    int alone = LinkageGroups.regroup(left, 3, THRESHOLD, pairs(Map.of("1~2", 0.99, "2~3", 0.99)));

    // 3 is like 2, but 2 was taken by 1 first and 3 is not like 1: 3 stays, on its own.
    assertThat(removals).containsExactly("2->1");
    assertThat(alone).isEqualTo(1);
  }

  @Test
  void atMostTheRoundsAllowed_theRestStays() {
    int n = LinkageGroups.REGROUP_ROUNDS + 3;
    int[] left = new int[n];
    for (int i = 0; i < n; i++) {
      left[i] = i;
    }

    int alone = LinkageGroups.regroup(left, n, THRESHOLD, pairs(Map.of()));

    assertThat(removals).isEmpty();
    assertThat(alone).isEqualTo(n - LinkageGroups.REGROUP_ROUNDS);
  }

  @Test
  void probabilityAtTheThreshold_isTaken_justBelow_isNot() {
    int[] left = {3, 2, 1};

    int alone =
        LinkageGroups.regroup(
            left, 3, THRESHOLD, pairs(Map.of("1~2", THRESHOLD, "1~3", Math.nextDown(THRESHOLD))));

    assertThat(removals).containsExactly("2->1");
    assertThat(alone).isEqualTo(1);
  }
}
