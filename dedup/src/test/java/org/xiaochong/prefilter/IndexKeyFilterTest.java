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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.method.near.NearKeyFilter;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.method.near.fingerprint.TopTermsMd5;
import org.xiaochong.method.near.index.NearSchema;

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
        int copies =
            random.nextInt(5) == 0
                ? 2 + random.nextInt(20)
                : 1; // up to 21: saturates 4-bit counters
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
        RecordKeyFilter filter =
            RecordKeyFilter.KIND.openOrRebuild(
                dir.resolve("pf"), index.commitGeneration(), reader, 20, 8, notes::add);
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
  void openOrRebuild_savedSnapshot_isLoadedWithoutRebuild_andCorruptOneIsRebuiltWithANote()
      throws Exception {
    try (FingerprintIndex index = FingerprintIndex.open(dir.resolve("index"), "digest", false)) {
      for (long id = 1; id <= 1000; id++) {
        index.add(id, id, key(id % 600));
      }
      index.commit();
      long generation = index.commitGeneration();
      try (DirectoryReader reader = index.openReader()) {
        RecordKeyFilter built =
            RecordKeyFilter.KIND.openOrRebuild(
                dir.resolve("pf"), generation, reader, 20, 8, n -> {});
        built.save(dir.resolve("pf"), generation);

        List<String> notes = new ArrayList<>();
        RecordKeyFilter loaded =
            RecordKeyFilter.KIND.openOrRebuild(
                dir.resolve("pf"), generation, reader, 20, 8, notes::add);
        assertThat(notes).isEmpty();
        assertThat(loaded.mightHaveTwin(key(5))).isTrue(); // ids 5 and 605 share it

        Path file = dir.resolve("pf").resolve("exact-" + generation + ".cbf");
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 2] ^= 0x5A;
        Files.write(file, bytes);
        RecordKeyFilter rebuilt =
            RecordKeyFilter.KIND.openOrRebuild(
                dir.resolve("pf"), generation, reader, 20, 8, notes::add);
        assertThat(notes)
            .singleElement()
            .asString()
            .startsWith("prefilter: exact keys rebuilt from the index (")
            .contains("checksum");
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
        RecordKeyFilter filter =
            RecordKeyFilter.KIND.openOrRebuild(
                dir.resolve("pf"), index.commitGeneration(), reader, 20, 8, n -> {});
        assertThat(filter.mightHaveTwin(key(7))).isTrue();
        filter.removed(key(7));
        assertThat(filter.mightHaveTwin(key(7))).isFalse();
        assertThat(filter.skipped()).isEqualTo(1);
        assertThat(filter.lookups()).isEqualTo(2);
      }
    }
  }

  /**
   * A near index document with synthetic text: shared words by product and grade, its own number
   * and phone.
   */
  private static org.apache.lucene.document.Document nearDoc(TopTermsMd5 fingerprinter, long id) {
    String text =
        "供应"
            + PRODUCTS[(int) (id % PRODUCTS.length)]
            + "，等级"
            + (id % 7)
            + "，库存"
            + (id * 37)
            + "斤，电话"
            + (13800000000L + id * 7919);
    return NearSchema.document(id, id, fingerprinter.fingerprint(text), 3, new long[0]);
  }

  private static final String[] PRODUCTS = {"红富士苹果", "黄花梨", "西红柿", "土豆", "大白菜", "猕猴桃"};

  @Test
  void nearKind_rebuild_holdsEveryLiveKeyOnce_andRulesOutMostAbsentKeys() throws Exception {
    try (TopTermsMd5 fingerprinter = new TopTermsMd5(NearConfig.defaults());
        FingerprintIndex index = FingerprintIndex.open(dir.resolve("near"), "digest", false)) {
      java.util.Set<Long> liveKeys = new java.util.HashSet<>();
      for (long id = 1; id <= 300; id++) {
        index.addDocument(nearDoc(fingerprinter, id));
      }
      index.commit();
      index.deleteIds(new long[] {1, 2, 3}, 0, 3);
      index.commit();
      for (long id = 4; id <= 300; id++) {
        for (long key :
            fingerprinter
                .fingerprint(
                    "供应"
                        + PRODUCTS[(int) (id % PRODUCTS.length)]
                        + "，等级"
                        + (id % 7)
                        + "，库存"
                        + (id * 37)
                        + "斤，电话"
                        + (13800000000L + id * 7919))
                .sortedKeys()) {
          liveKeys.add(key);
        }
      }
      try (DirectoryReader reader = index.openReader()) {
        NearKeyFilter filter = NearKeyFilter.KIND.rebuild(reader, 20, 8);

        assertThat(filter.keys()).as("one entry per distinct live key").isEqualTo(liveKeys.size());
        for (long key : liveKeys) {
          assertThat(filter.mightContain(key)).isTrue();
        }
        Random random = new Random(42);
        int absentSkipped = 0;
        for (int i = 0; i < 10_000; i++) {
          if (!filter.mightContain(random.nextLong())) {
            absentSkipped++;
          }
        }
        assertThat(absentSkipped).isGreaterThan(9_900);
        assertThat(filter.skipped()).isEqualTo(absentSkipped);
      }
    }
  }

  /** The two filters, for the tests both must pass. */
  enum Kind {
    EXACT(RecordKeyFilter.KIND),
    NEAR(NearKeyFilter.KIND);

    private final IndexKeyFilter.Kind<?> filters;

    Kind(IndexKeyFilter.Kind<?> filters) {
      this.filters = filters;
    }

    IndexKeyFilter rebuild(DirectoryReader reader) {
      return filters.rebuild(reader, 20, 8);
    }

    IndexKeyFilter openOrRebuild(
        Path dir,
        long generation,
        DirectoryReader reader,
        int countersPerKey,
        int hashes,
        java.util.function.Consumer<String> notes) {
      return filters.openOrRebuild(dir, generation, reader, countersPerKey, hashes, notes);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void follow_deletesAndAdds_equalsARebuildCounterForCounter_andIsSavedAndLoadedForTheNewGeneration(
      Kind kind) throws Exception {
    try (TopTermsMd5 fingerprinter = new TopTermsMd5(NearConfig.defaults());
        FingerprintIndex index = FingerprintIndex.open(dir.resolve("index"), "digest", false)) {
      for (long id = 1; id <= 400; id++) {
        if (kind == Kind.NEAR) {
          index.addDocument(nearDoc(fingerprinter, id));
        } else {
          index.add(id, id, key(id % 150)); // groups of 2-3 twins
        }
      }
      index.commit();
      IndexKeyFilter filter;
      try (DirectoryReader reader = index.openReader()) {
        filter = kind.rebuild(reader);
      }
      try (DirectoryReader before = index.openReader()) {
        long[] gone = new long[60];
        for (int i = 0; i < gone.length; i++) {
          gone[i] = 5 * i + 1; // 1, 6, 11, ...: some keys lose their last holder, some keep one
        }
        index.deleteIds(gone, 0, gone.length);
        for (long id = 1001; id <= 1040; id++) {
          if (kind == Kind.NEAR) {
            index.addDocument(nearDoc(fingerprinter, id));
          } else {
            index.add(id, id, key(id % 170)); // new keys and new twins of old ones
          }
        }
        index.commit();
        try (DirectoryReader after = index.openReader()) {
          filter.follow(before, after);

          assertThat(filter.sameCounters(filter.rebuiltFrom(after))).isTrue();
          assertThat(filter.sameCounters(kind.rebuild(before))).isFalse();

          filter.save(dir.resolve("pf"), index.commitGeneration());
          assertThat(
                  dir.resolve("pf")
                      .resolve(
                          kind.name().toLowerCase(java.util.Locale.ROOT)
                              + "-"
                              + index.commitGeneration()
                              + ".cbf"))
              .exists();
          List<String> notes = new ArrayList<>();
          IndexKeyFilter loaded =
              kind.openOrRebuild(
                  dir.resolve("pf"), index.commitGeneration(), after, 20, 8, notes::add);
          assertThat(notes).isEmpty();
          assertThat(loaded.sameCounters(filter)).isTrue();
        }
      }
    }
  }

  /**
   * A first build's filter, made from the keys as segments are added, is the filter a rebuild would
   * make.
   */
  @Test
  void exactKeyCollector_keysOfTheSegmentsAdded_sameCountersAsARebuild() throws Exception {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    RecordKeyFilter.Collector collector = new RecordKeyFilter.Collector();
    try (FingerprintIndex index = FingerprintIndex.open(dir.resolve("index"), "digest", false)) {
      byte[][] chunks = {
        new byte[16 * 3000], new byte[16 * 4000]
      }; // two "segments", as two threads would add
      int[] counts = new int[2];
      long id = 0;
      for (long keyId = 1; keyId <= 5000; keyId++) {
        int copies = random.nextInt(4) == 0 ? 2 + random.nextInt(3) : 1;
        for (int c = 0; c < copies; c++) {
          int chunk = random.nextInt(2);
          if (counts[chunk] == chunks[chunk].length / 16) {
            chunk = 1 - chunk;
          }
          if (counts[chunk] == chunks[chunk].length / 16) {
            break; // both full
          }
          index.add(++id, id, key(keyId));
          System.arraycopy(key(keyId), 0, chunks[chunk], 16 * counts[chunk]++, 16);
        }
      }
      index.commit();
      collector.added(chunks[0], counts[0]);
      collector.added(chunks[1], counts[1]);
      try (DirectoryReader reader = index.openReader()) {
        RecordKeyFilter collected = collector.filter(20, 8);
        assertThat(collected.keys()).as("seed %s", seed).isEqualTo(reader.numDocs());
        assertThat(collected.sameCounters(RecordKeyFilter.KIND.rebuild(reader, 20, 8)))
            .as("seed %s", seed)
            .isTrue();
      }
    }
  }
}
