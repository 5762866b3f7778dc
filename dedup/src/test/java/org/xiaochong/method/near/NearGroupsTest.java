package org.xiaochong.method.near;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.xiaochong.method.near.fingerprint.NearConfig;

class NearGroupsTest {

  private static List<Integer> members(NearGroups groups, int survivor) {
    List<Integer> out = new ArrayList<>();
    for (int m = groups.firstMember(survivor); m >= 0; m = groups.nextMember(m)) {
      out.add(m);
    }
    return out;
  }

  @Test
  void merge_movesTheGroupAndItsMembersToTheNewerSurvivor_membersKeepTheirScores() {
    NearGroups groups = new NearGroups(8);
    groups.remove(1, 0, 0.9); // group 0: {0, 1}
    groups.remove(4, 3, 0.8); // group 3: {3, 4, 5}
    groups.remove(5, 3, 0.7);

    groups.merge(3, 0, 0.55);

    assertThat(members(groups, 0)).containsExactly(1, 3, 4, 5);
    assertThat(members(groups, 3)).isEmpty();
    for (int doc : new int[] {1, 3, 4, 5}) {
      assertThat(groups.isRemoved(doc)).isTrue();
      assertThat(groups.survivorOf(doc)).isEqualTo(0);
    }
    assertThat(groups.survivorOf(0)).isZero();
    assertThat(groups.isRemoved(0)).isFalse();
    assertThat(groups.score(3)).isEqualTo(0.55f);
    assertThat(groups.score(4)).isEqualTo(0.8f);
    assertThat(groups.removed()).isEqualTo(4);

    groups.remove(6, 0, 0.6); // a later member is appended after the merged ones
    assertThat(members(groups, 0)).containsExactly(1, 3, 4, 5, 6);
  }

  @Test
  void anyApart_aMemberMarkedApartFromTheNewSurvivor_isTrue() {
    NearGroups groups = new NearGroups(8);
    groups.remove(1, 0, 0.9); // group 0: {0, 1}
    groups.remove(4, 3, 0.8); // group 3: {3, 4, 5}
    groups.remove(5, 3, 0.7);

    assertThat(groups.anyApart(3, 0, (a, b) -> a == 5 && b == 0))
        .isTrue(); // a member of the merged group
    assertThat(groups.anyApart(3, 0, (a, b) -> a == 3 && b == 0)).isTrue(); // its survivor
    // 1 and 4 are not a new decision: 1 keeps its survivor 0, and 4 would point to 0, not to 1.
    assertThat(groups.anyApart(3, 0, (a, b) -> a == 4 && b == 1 || a == 1 && b == 4)).isFalse();
  }

  @Test
  void averageLinkage_isTheMeanOverAllPairs_andNeedsOnePairThatPassesTheRule() {
    NearRule.Keys a = new NearRule.Stored(new long[] {1, 2, 3, 4, 5, 6}, new long[0], new long[0]);
    NearRule.Keys b =
        new NearRule.Stored(new long[] {1, 2, 3, 4, 5, 7}, new long[0], new long[0]); // 5/7 of a
    NearRule.Keys c =
        new NearRule.Stored(new long[] {1, 2, 3, 8, 9, 10}, new long[0], new long[0]); // 3/9 of a
    NearRule.Keys[] keys = {a, b, c};
    NearGroups groups = new NearGroups(3);
    groups.remove(1, 0, 5 / 7.0); // group 0: {a, b}
    NearConfig config = NearConfig.defaults();

    double linkage =
        groups.averageLinkage(
            new NearRule.Keys[] {c}, 0, d -> keys[d], config, NearRule.UNIT_WEIGHTS);

    double expected =
        (NearRule.similarity(c, a, NearRule.UNIT_WEIGHTS)
                + NearRule.similarity(c, b, NearRule.UNIT_WEIGHTS))
            / 2;
    assertThat(expected)
        .isLessThan(config.minSimilarity()); // no pair passes, so no link however high the mean
    assertThat(linkage).isEqualTo(-1);
    assertThat(
            groups.averageLinkage(
                new NearRule.Keys[] {b}, 0, d -> keys[d], config, NearRule.UNIT_WEIGHTS))
        .isCloseTo((1.0 + 5 / 7.0) / 2, org.assertj.core.data.Offset.offset(1e-9));
  }
}
