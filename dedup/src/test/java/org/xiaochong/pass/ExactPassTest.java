package org.xiaochong.pass;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.apache.commons.codec.digest.DigestUtils;
import org.apache.lucene.index.DirectoryReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.prefilter.GroupPrefilter;

class ExactPassTest {
  @TempDir Path dir;

  /**
   * 30 groups of three (ids 3g+1..3g+3, the last the newest) split over two segments, written in either
   * order: the same samples, the groups with the ten smallest kept ids (not the first ten found).
   */
  @Test
  void run_segmentsInEitherOrder_samplesAreTheGroupsOfTheSmallestKeptIds() throws Exception {
    List<ExactPass.Group> firstOrder = run(dir.resolve("a"), false);
    List<ExactPass.Group> otherOrder = run(dir.resolve("b"), true);

    assertThat(firstOrder).extracting(ExactPass.Group::keptId).containsExactly(3L, 6L, 9L, 12L, 15L, 18L, 21L, 24L, 27L, 30L);
    assertThat(otherOrder).extracting(ExactPass.Group::keptId).containsExactly(3L, 6L, 9L, 12L, 15L, 18L, 21L, 24L, 27L, 30L);
    assertThat(firstOrder.get(0).removedIds()).containsExactlyInAnyOrder(1L, 2L);
  }

  private static List<ExactPass.Group> run(Path path, boolean highGroupsFirst) throws Exception {
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
        ExactPass.Result result = new ExactPass(new IndexSnapshot(reader), GroupPrefilter.NONE).run(Window.of(null, null), plan);
        assertThat(result.groups()).isEqualTo(30);
        assertThat(plan.removedIdsSorted()).hasSize(60);
        return result.samples();
      }
    }
  }
}
