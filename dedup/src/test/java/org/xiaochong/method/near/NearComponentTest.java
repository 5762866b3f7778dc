package org.xiaochong.method.near;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.Arrays;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.method.near.fingerprint.NearConfig;

/**
 * {@link NearComponent#decide}: the greedy step over given near lists, and the property a
 * distributed run relies on: the decisions over the union of two components are those over each
 * component alone, with its positions renumbered in the same order.
 */
class NearComponentTest {
  private static final NearConfig CONFIG = NearConfig.defaults();

  /** Records by position (newest first), ids 100 + position, near lists as given. */
  private static NearComponent.Records records(long[] ids, int[][] near, double[][] scores) {
    return new NearComponent.Records() {
      @Override
      public int size() {
        return ids.length;
      }

      @Override
      public long id(int pos) {
        return ids[pos];
      }

      @Override
      public long rank(int pos) {
        return -pos;
      }

      @Override
      public boolean inWindow(int pos) {
        return true;
      }

      @Override
      public boolean allShort(int pos) {
        return false;
      }

      @Override
      public int[] near(int pos) {
        return near[pos];
      }

      @Override
      public double[] scores(int pos) {
        return scores[pos];
      }

      @Override
      public void meets(int pos, IntConsumer sink) {}

      @Override
      public NearRule.Keys keys(int pos) {
        throw new AssertionError("no merge: no record has only short fields");
      }
    };
  }

  @Test
  void greedy_aRecordJoinsItsBestNearDuplicateStillKept_elseIsKept() throws IOException {
    // 0 kept; 1 -> 0; 2's best (1) is removed, so 2 -> 0 (its next); 3's only one (2) is removed.
    NearComponent.Result result =
        NearComponent.decide(
            records(
                new long[] {10, 11, 12, 13},
                new int[][] {null, {0}, {1, 0}, {2}},
                new double[][] {null, {0.9}, {0.95, 0.7}, {0.8}}),
            CONFIG,
            NearRule.UNIT_WEIGHTS,
            ApartPairs.NONE);
    assertThat(result.survivor()).containsExactly(-1, 0, 0, -1);
    assertThat(result.score()[2]).isEqualTo(0.7f);
    assertThat(result.removed()).isEqualTo(2);
  }

  @Test
  void greedy_aRecordMarkedApartFromItsBestIsKept() throws IOException {
    NearComponent.Result result =
        NearComponent.decide(
            records(
                new long[] {10, 11, 12},
                new int[][] {null, {0}, {0, 1}},
                new double[][] {null, {0.9}, {0.9, 0.8}}),
            CONFIG,
            NearRule.UNIT_WEIGHTS,
            ApartPairs.of(12, 10));
    assertThat(result.survivor()).containsExactly(-1, 0, -1);
  }

  @Test
  void union_ofTwoComponents_decidesAsEachAlone() throws IOException {
    // Component X at union positions 0, 2, 3, 5; component Y at 1, 4, 6.
    long[] ids = {1, 2, 3, 4, 5, 6, 7};
    int[][] near = {null, null, {0}, {2, 0}, {1}, {3, 2}, {4, 1}};
    double[][] scores = {null, null, {0.9}, {0.8, 0.7}, {0.6}, {0.9, 0.9}, {0.9, 0.5}};
    NearComponent.Result union =
        NearComponent.decide(
            records(ids, near, scores), CONFIG, NearRule.UNIT_WEIGHTS, ApartPairs.NONE);

    int[] x = {0, 2, 3, 5};
    int[] y = {1, 4, 6};
    int[] survivor = new int[ids.length];
    Arrays.fill(survivor, -2);
    for (int[] component : new int[][] {x, y}) {
      long[] subIds = new long[component.length];
      int[][] subNear = new int[component.length][];
      double[][] subScores = new double[component.length][];
      for (int i = 0; i < component.length; i++) {
        int pos = component[i];
        subIds[i] = ids[pos];
        subScores[i] = scores[pos];
        if (near[pos] != null) {
          subNear[i] = Arrays.stream(near[pos]).map(p -> indexOf(component, p)).toArray();
        }
      }
      NearComponent.Result alone =
          NearComponent.decide(
              records(subIds, subNear, subScores), CONFIG, NearRule.UNIT_WEIGHTS, ApartPairs.NONE);
      for (int i = 0; i < component.length; i++) {
        survivor[component[i]] = alone.isRemoved(i) ? component[alone.survivor()[i]] : -1;
      }
    }
    assertThat(union.removed()).isPositive();
    assertThat(survivor).containsExactly(union.survivor());
  }

  private static int indexOf(int[] positions, int pos) {
    for (int i = 0; i < positions.length; i++) {
      if (positions[i] == pos) {
        return i;
      }
    }
    throw new AssertionError(pos + " is not in the component");
  }
}
