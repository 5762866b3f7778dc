package org.xiaochong.prefilter;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.lucene.index.DirectoryReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.index.FingerprintIndex;

class IndexKeyFilterTest {
  @TempDir Path dir;

  private static byte[] key(long i) {
    byte[] md5 = org.apache.commons.codec.digest.DigestUtils.md5(Long.toString(i));
    return md5;
  }

  @Test
  void mightHaveTwin_afterRebuild_neverDeniesAKeyHeldTwiceAndSkipsMostSingles() throws Exception {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    List<byte[]> twins = new ArrayList<>();
    try (FingerprintIndex index = FingerprintIndex.open(dir.resolve("index"), "digest", false)) {
      long id = 0;
      for (long keyId = 1; keyId <= 20_000; keyId++) {
        int copies = random.nextInt(5) == 0 ? 2 + random.nextInt(20) : 1; // up to 21: saturates 4-bit counters
        for (int c = 0; c < copies; c++) {
          index.add(++id, id, key(keyId));
        }
        if (copies > 1) {
          twins.add(key(keyId));
        }
      }
      index.commit();
      try (DirectoryReader reader = index.openReader()) {
        List<String> notes = new ArrayList<>();
        IndexKeyFilter filter = IndexKeyFilter.openOrRebuild(dir.resolve("pf"), index.commitGeneration(), reader, 20, 8, notes::add);
        assertThat(notes).singleElement().asString().contains("rebuilt from the index");
        int twinsSeenTwice = 0;
        for (byte[] k : twins) {
          // A key held by two or more records must never be denied a lookup.
          if (filter.mightHaveTwin(k)) {
            twinsSeenTwice++;
          }
        }
        assertThat(twinsSeenTwice).as("seed %s", seed).isEqualTo(twins.size());
        long singlesSkipped = 0;
        long singles = 0;
        java.util.Set<String> twinKeys = new java.util.HashSet<>();
        twins.forEach(t -> twinKeys.add(java.util.HexFormat.of().formatHex(t)));
        for (long keyId = 1; keyId <= 20_000; keyId++) {
          byte[] k = key(keyId);
          if (!twinKeys.contains(java.util.HexFormat.of().formatHex(k))) {
            singles++;
            if (!filter.mightHaveTwin(k)) {
              singlesSkipped++;
            }
          }
        }
        assertThat((double) singlesSkipped / singles).as("seed %s", seed).isGreaterThan(0.95);
      }
    }
  }

  @Test
  void openOrRebuild_savedSnapshot_isLoadedWithoutRebuild_andCorruptOneIsRebuiltWithANote() throws Exception {
    try (FingerprintIndex index = FingerprintIndex.open(dir.resolve("index"), "digest", false)) {
      for (long id = 1; id <= 1000; id++) {
        index.add(id, id, key(id % 600));
      }
      index.commit();
      long generation = index.commitGeneration();
      try (DirectoryReader reader = index.openReader()) {
        IndexKeyFilter built = IndexKeyFilter.openOrRebuild(dir.resolve("pf"), generation, reader, 20, 8, n -> {});
        built.save(dir.resolve("pf"), generation);

        List<String> notes = new ArrayList<>();
        IndexKeyFilter loaded = IndexKeyFilter.openOrRebuild(dir.resolve("pf"), generation, reader, 20, 8, notes::add);
        assertThat(notes).isEmpty();
        assertThat(loaded.mightHaveTwin(key(5))).isTrue(); // ids 5 and 605 share it

        Path file = dir.resolve("pf").resolve("exact-" + generation + ".cbf");
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 2] ^= 0x5A;
        Files.write(file, bytes);
        IndexKeyFilter rebuilt = IndexKeyFilter.openOrRebuild(dir.resolve("pf"), generation, reader, 20, 8, notes::add);
        assertThat(notes).singleElement().asString().startsWith("prefilter: exact keys rebuilt from the index (").contains("checksum");
        assertThat(rebuilt.mightHaveTwin(key(5))).isTrue();
      }
    }
  }

  @Test
  void removed_lastTwin_makesTheKeyAloneAgain() throws Exception {
    try (FingerprintIndex index = FingerprintIndex.open(dir.resolve("index"), "digest", false)) {
      index.add(1, 1, key(7));
      index.add(2, 2, key(7));
      index.commit();
      try (DirectoryReader reader = index.openReader()) {
        IndexKeyFilter filter = IndexKeyFilter.openOrRebuild(dir.resolve("pf"), index.commitGeneration(), reader, 20, 8, n -> {});
        assertThat(filter.mightHaveTwin(key(7))).isTrue();
        filter.removed(key(7));
        assertThat(filter.mightHaveTwin(key(7))).isFalse();
        assertThat(filter.skipped()).isEqualTo(1);
        assertThat(filter.lookups()).isEqualTo(2);
      }
    }
  }
}
