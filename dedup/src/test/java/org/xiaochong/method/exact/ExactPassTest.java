package org.xiaochong.method.exact;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.apache.commons.codec.digest.DigestUtils;
import org.apache.lucene.index.DirectoryReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.SampleGroup;
import org.xiaochong.pass.Window;
import org.xiaochong.prefilter.GroupPrefilter;

class ExactPassTest {
  @TempDir Path dir;

  /**
   * 30 groups of three (ids 3g+1..3g+3, the last the newest) split over two segments, written in
   * either order: the same samples, the groups with the ten smallest kept ids (not the first ten
   * found).
   */
  @Test
  void run_segmentsInEitherOrder_samplesAreTheGroupsOfTheSmallestKeptIds() throws Exception {
    List<SampleGroup> firstOrder = run(dir.resolve("a"), false);
    List<SampleGroup> otherOrder = run(dir.resolve("b"), true);

    assertThat(firstOrder)
        .extracting(SampleGroup::keptId)
        .containsExactly(3L, 6L, 9L, 12L, 15L, 18L, 21L, 24L, 27L, 30L);
    assertThat(otherOrder)
        .extracting(SampleGroup::keptId)
        .containsExactly(3L, 6L, 9L, 12L, 15L, 18L, 21L, 24L, 27L, 30L);
    assertThat(firstOrder.get(0).removedIds()).containsExactlyInAnyOrder(1L, 2L);
  }

  private static List<SampleGroup> run(Path path, boolean highGroupsFirst) throws Exception {
    try (FingerprintIndex index = FingerprintIndex.open(path, "test", true)) {
      for (int half : highGroupsFirst ? new int[] {1, 0} : new int[] {0, 1}) {
        for (int g = half * 15; g < half * 15 + 15; g++) {
          byte[] key = DigestUtils.md5("group " + g);
          for (int member = 1; member <= 3; member++) {
            long id = 3L * g + member;
            index.add(id, 1000L * member, key);
          }
        }
        index.commit(); // one segment per half
      }
      try (DirectoryReader reader = index.openReader()) {
        assertThat(reader.leaves()).hasSize(2);
        DeletionPlan plan = new DeletionPlan();
        ExactPass.Result result =
            new ExactPass(new IndexSnapshot(reader), GroupPrefilter.NONE)
                .run(Window.of(null, null), plan);
        assertThat(result.groups()).isEqualTo(30);
        assertThat(plan.removedIdsSorted()).hasSize(60);
        return result.samples();
      }
    }
  }

  /** Removals of a plan as "removed->kept", sorted. */
  private static List<String> removals(DeletionPlan plan) {
    List<String> removals = new java.util.ArrayList<>();
    for (int i = 0; i < plan.size(); i++) {
      removals.add(plan.removedId(i) + "->" + plan.keptId(i));
    }
    java.util.Collections.sort(removals);
    return removals;
  }

  private ExactPass.Result lastResult;

  /**
   * Runs the pass over one group of twins, ids 1..times.length with these times, with these marks.
   */
  private DeletionPlan twins(long[] times, ApartPairs apart) throws Exception {
    try (FingerprintIndex index =
        FingerprintIndex.open(dir.resolve("twins" + System.nanoTime()), "test", true)) {
      byte[] key = DigestUtils.md5("one post");
      for (int i = 0; i < times.length; i++) {
        index.add(i + 1, times[i], key);
      }
      index.commit();
      try (DirectoryReader reader = index.openReader()) {
        DeletionPlan plan = new DeletionPlan();
        lastResult =
            new ExactPass(new IndexSnapshot(reader), GroupPrefilter.NONE, apart)
                .run(Window.of(null, null), plan);
        return plan;
      }
    }
  }

  @Test
  void run_twinsMarkedApart_bothStayAndNoSample() throws Exception {
    ApartPairs apart = ApartPairs.of(2, 1);

    DeletionPlan plan = twins(new long[] {1000, 2000}, apart);

    assertThat(plan.size()).isZero();
    assertThat(apart.honoured()).isEqualTo(1);
    assertThat(lastResult.samples()).isEmpty();
    assertThat(lastResult.groups()).isEqualTo(1);
  }

  @Test
  void run_groupOfThreeOnlyNewestPairMarked_thirdRemovedForTheNewest() throws Exception {
    // 3 is the newest, then 2, then 1; only 3 and 2 are marked.
    DeletionPlan plan = twins(new long[] {1000, 2000, 3000}, ApartPairs.of(3, 2));

    assertThat(removals(plan)).containsExactly("1->3");
  }

  @Test
  void run_groupOfThreeOldestMarkedApartFromNewest_oldestStaysMiddleRemoved() throws Exception {
    DeletionPlan plan = twins(new long[] {1000, 2000, 3000}, ApartPairs.of(1, 3));

    // 1 is not removed for 2 either: 2 is removed for 3, so the archive would point 1 to 3.
    assertThat(removals(plan)).containsExactly("2->3");
  }

  @Test
  void run_groupOfThreeAllPairsMarked_allStay() throws Exception {
    DeletionPlan plan = twins(new long[] {1000, 2000, 3000}, ApartPairs.of(1, 2, 1, 3, 2, 3));

    assertThat(plan.size()).isZero();
  }

  @Test
  void run_marksOfOtherRecords_groupDecidedAsWithoutMarks() throws Exception {
    ApartPairs apart = ApartPairs.of(7, 8);

    DeletionPlan plan = twins(new long[] {3000, 2000, 1000, 2500}, apart);

    assertThat(removals(plan)).containsExactly("2->1", "3->1", "4->1");
    assertThat(apart.honoured()).isZero();
  }
}
