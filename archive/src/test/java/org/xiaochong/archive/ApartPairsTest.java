package org.xiaochong.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApartPairsTest {
  @Test
  void contains_eitherOrder_andRepeatsKeptOnce() {
    ApartPairs pairs = ApartPairs.of(5, 2, 2, 5, 9, 1);

    assertThat(pairs.size()).isEqualTo(2);
    assertThat(pairs.contains(2, 5)).isTrue();
    assertThat(pairs.contains(5, 2)).isTrue();
    assertThat(pairs.contains(1, 9)).isTrue();
    assertThat(pairs.contains(1, 5)).isFalse();
    assertThat(pairs.smaller(0)).isEqualTo(1);
    assertThat(pairs.larger(0)).isEqualTo(9);
  }

  @Test
  void keepsApart_countsEachPairHonouredOnce_containsCountsNothing() {
    ApartPairs pairs = ApartPairs.of(1, 2, 3, 4);

    assertThat(pairs.contains(1, 2)).isTrue();
    assertThat(pairs.honoured()).isZero();
    assertThat(pairs.keepsApart(2, 1)).isTrue();
    assertThat(pairs.keepsApart(1, 2)).isTrue();
    assertThat(pairs.keepsApart(1, 3)).isFalse();

    assertThat(pairs.honoured()).isEqualTo(1);
  }

  @Test
  void of_oddCountOrSameId_refused() {
    assertThatThrownBy(() -> ApartPairs.of(1, 2, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("3");
    assertThatThrownBy(() -> ApartPairs.of(7, 7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("7");
  }

  /** Against a HashSet of the same random pairs (seed logged in the message). */
  @Test
  void contains_randomPairs_agreesWithAHashSet() {
    long seed = new SplittableRandom().nextLong();
    SplittableRandom random = new SplittableRandom(seed);
    long[] ids = new long[2_000];
    Set<String> reference = new HashSet<>();
    for (int i = 0; i < ids.length; i += 2) {
      long a = random.nextLong(-50, 50);
      long b = random.nextLong(-50, 50);
      if (a == b) {
        b = a + 1;
      }
      ids[i] = a;
      ids[i + 1] = b;
      reference.add(Math.min(a, b) + ":" + Math.max(a, b));
    }
    ApartPairs pairs = ApartPairs.of(ids);

    assertThat(pairs.size()).as("seed %d", seed).isEqualTo(reference.size());
    for (long a = -51; a <= 51; a++) {
      for (long b = -51; b <= 51; b++) {
        assertThat(pairs.contains(a, b))
            .as("seed %d, %d %d", seed, a, b)
            .isEqualTo(reference.contains(Math.min(a, b) + ":" + Math.max(a, b)));
      }
    }
  }

  @Test
  void saveAndLoad_samePairs_missingFileIsNone(@TempDir Path dir) {
    Path file = dir.resolve(ApartPairs.FILE);
    assertThat(ApartPairs.load(file).isEmpty()).isTrue();

    ApartPairs.of(9, 1, Long.MAX_VALUE, Long.MIN_VALUE, 3, 4).save(file);
    ApartPairs loaded = ApartPairs.load(file);

    assertThat(loaded.size()).isEqualTo(3);
    assertThat(loaded.contains(Long.MIN_VALUE, Long.MAX_VALUE)).isTrue();
    assertThat(loaded.contains(1, 9)).isTrue();
    assertThat(loaded.contains(4, 3)).isTrue();
  }

  @Test
  void load_truncatedFile_namesTheHeaderItRead(@TempDir Path dir) throws Exception {
    Path file = dir.resolve(ApartPairs.FILE);
    ApartPairs.of(1, 2, 3, 4).save(file);
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 8));

    assertThatThrownBy(() -> ApartPairs.load(file))
        .hasMessageContaining(file.toString())
        .hasRootCauseMessage(
            "not a marks file of version 2: magic 58434150, version 2, 2 pairs and 0 group rows"
                + " in 40 bytes");
  }

  @Test
  void contains_groupRows_apartFromEachOtherNotFromOutsiders() {
    // group 7: rows 1, 2, 3; group 8: rows 3, 4; pair 5-6
    ApartPairs marks = ApartPairs.of(new long[] {5, 6}, new long[] {1, 7, 2, 7, 3, 7, 3, 8, 4, 8});

    assertThat(marks.contains(1, 2)).isTrue();
    assertThat(marks.contains(3, 1)).isTrue();
    assertThat(marks.contains(3, 4)).isTrue();
    assertThat(marks.contains(1, 4)).isFalse(); // 3 is in both groups, they are not one
    assertThat(marks.contains(1, 1)).isFalse();
    assertThat(marks.contains(6, 5)).isTrue();
    assertThat(marks.groupsOf(3)).containsExactly(7, 8);
    assertThat(marks.isMarked(4)).isTrue();
    assertThat(marks.isMarked(9)).isFalse();
    assertThat(marks.size()).isEqualTo(6); // a pair and five group rows
  }

  @Test
  void keepsApart_groupRows_countsEachRowOnce() {
    ApartPairs marks = ApartPairs.of(new long[0], new long[] {1, 7, 2, 7, 3, 7});

    assertThat(marks.keepsApart(1, 2)).isTrue();
    assertThat(marks.keepsApart(2, 1)).isTrue();
    assertThat(marks.keepsApart(1, 9)).isFalse();
    assertThat(marks.honoured()).isEqualTo(2);

    ApartPairs driver = ApartPairs.of(new long[0], new long[] {1, 7, 2, 7, 3, 7});
    marks.honouredPairs().forEach(driver::recordHonoured);
    assertThat(driver.honoured()).isEqualTo(2);
  }

  @Test
  void toArrayAndSaveLoad_pairsAndGroups_sameMarks(@TempDir Path dir) {
    ApartPairs marks = ApartPairs.of(new long[] {9, 1}, new long[] {4, 2, 5, 2, Long.MIN_VALUE, 2});
    Path file = dir.resolve(ApartPairs.FILE);
    marks.save(file);

    for (ApartPairs copy :
        new ApartPairs[] {ApartPairs.fromArray(marks.toArray()), ApartPairs.load(file)}) {
      assertThat(copy.pairs()).isEqualTo(1);
      assertThat(copy.groupRows()).isEqualTo(3);
      assertThat(copy.contains(1, 9)).isTrue();
      assertThat(copy.contains(5, Long.MIN_VALUE)).isTrue();
      assertThat(copy.contains(4, 9)).isFalse();
    }
  }

  @Test
  void load_fileOfVersion1_readsItsPairs(@TempDir Path dir) throws Exception {
    Path file = dir.resolve(ApartPairs.FILE);
    try (java.io.DataOutputStream out = new java.io.DataOutputStream(Files.newOutputStream(file))) {
      out.writeInt(0x58434150);
      out.writeInt(1);
      out.writeInt(1);
      out.writeLong(3);
      out.writeLong(8);
    }

    ApartPairs loaded = ApartPairs.load(file);

    assertThat(loaded.pairs()).isEqualTo(1);
    assertThat(loaded.contains(8, 3)).isTrue();
  }
}
