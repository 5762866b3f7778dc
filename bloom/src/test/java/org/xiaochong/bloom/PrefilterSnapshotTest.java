package org.xiaochong.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrefilterSnapshotTest {

  @TempDir Path dir;

  /** 250 distinct keys put, one removed: 249 net insertions. */
  private static CountingBloomFilter sample() {
    CountingBloomFilter filter = new CountingBloomFilter(new FilterShape(5_000, 8, 4));
    for (int i = 0; i < 250; i++) {
      filter.put(TestKeys.md5("page-" + i));
    }
    filter.remove(TestKeys.md5("page-200"));
    return filter;
  }

  @Test
  void write_thenRead_roundTripsTheCounters() throws IOException {
    CountingBloomFilter original = sample();
    Path file = dir.resolve("prefilter.bin");
    PrefilterSnapshot.write(file, original);

    PrefilterSnapshot loaded = PrefilterSnapshot.read(file, original.shape());

    assertThat(loaded.filter().sameCounters(original)).isTrue();
    assertThat(loaded.filter().netInsertions()).isEqualTo(249);
    assertThat(loaded.filter().mightContain(TestKeys.md5("page-3"))).isTrue();
    assertThat(loaded.storedKeys()).isEmpty();
  }

  @Test
  void write_withStoredKeys_readsThemBackInOrder() throws IOException {
    List<PrefilterSnapshot.StoredKey> keys =
        List.of(
            new PrefilterSnapshot.StoredKey(1, 2, 3, 4),
            new PrefilterSnapshot.StoredKey(-5, 6, 1, 0));
    Path file = dir.resolve("prefilter.bin");
    PrefilterSnapshot.write(file, sample(), keys);

    PrefilterSnapshot loaded = PrefilterSnapshot.read(file);

    assertThat(loaded.storedKeys()).contains(keys);
    assertThat(loaded.describeHeader()).endsWith("count=249, store entries=2");
  }

  @Test
  void read_storedKeyWithoutReference_saysBadStoreEntry() throws IOException {
    Path file = dir.resolve("prefilter.bin");
    PrefilterSnapshot.write(file, sample(), List.of(new PrefilterSnapshot.StoredKey(1, 2, 0, 4)));

    assertThatThrownBy(() -> PrefilterSnapshot.read(file))
        .isInstanceOf(PrefilterFormatException.class)
        .hasMessageContaining("bad store entry 0: refCount (0) must be >= 1");
  }

  @Test
  void write_filterOnly_readsWithoutStore() throws IOException {
    CountingBloomFilter filter = new CountingBloomFilter(new FilterShape(1_001, 3, 2));
    filter.put(TestKeys.md5("x"));
    Path file = dir.resolve("f.bin");
    PrefilterSnapshot.write(file, filter);
    PrefilterSnapshot snapshot = PrefilterSnapshot.read(file);
    assertThat(snapshot.storedKeys()).isEmpty();
    assertThat(snapshot.filter().mightContain(TestKeys.md5("x"))).isTrue();
    assertThat(snapshot.filter().shape()).isEqualTo(filter.shape());
  }

  @Test
  void read_flippedByte_checksumMismatchNamesHeader() throws IOException {
    Path file = dir.resolve("prefilter.bin");
    PrefilterSnapshot.write(file, sample());
    byte[] bytes = Files.readAllBytes(file);
    bytes[100] ^= 0x10; // inside the counters
    Files.write(file, bytes);

    assertThatThrownBy(() -> PrefilterSnapshot.read(file))
        .isInstanceOf(PrefilterFormatException.class)
        .hasMessageStartingWith("prefilter file " + file + ": checksum mismatch")
        .hasMessageContaining("header version=1, m=5000, k=8, n=4, count=249, store entries=none");
  }

  @Test
  void read_truncated_saysTruncatedWithSizes() throws IOException {
    Path file = dir.resolve("prefilter.bin");
    PrefilterSnapshot.write(file, sample());
    long size = Files.size(file);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(size - 10);
    }
    assertThatThrownBy(() -> PrefilterSnapshot.read(file))
        .isInstanceOf(PrefilterFormatException.class)
        .hasMessageContaining(
            "truncated: file has " + (size - 10) + " bytes, header implies " + size)
        .hasMessageContaining("m=5000, k=8");
  }

  @Test
  void read_truncatedHeader_saysHowFarItGot() throws IOException {
    Path file = dir.resolve("prefilter.bin");
    PrefilterSnapshot.write(file, sample());
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, 20));
    assertThatThrownBy(() -> PrefilterSnapshot.read(file))
        .isInstanceOf(PrefilterFormatException.class)
        .hasMessage("prefilter file " + file + ": truncated header after 8 bytes");
  }

  @Test
  void read_otherFile_saysNotAPrefilterFile() throws IOException {
    Path file = dir.resolve("notes.txt");
    Files.writeString(file, "hello, this is not a filter at all");
    assertThatThrownBy(() -> PrefilterSnapshot.read(file))
        .isInstanceOf(PrefilterFormatException.class)
        .hasMessageContaining("not a prefilter file (magic 0x68656c6c");
  }

  @Test
  void read_otherShape_saysStale() throws IOException {
    Path file = dir.resolve("prefilter.bin");
    PrefilterSnapshot.write(file, sample());
    assertThatThrownBy(() -> PrefilterSnapshot.read(file, new FilterShape(5_000, 10, 4)))
        .isInstanceOf(PrefilterFormatException.class)
        .hasMessageContaining("stale: expected m=5000, k=10, n=4 (header version=1, m=5000, k=8");
  }

  @Test
  void read_futureVersion_saysUnsupported() throws IOException {
    Path file = dir.resolve("prefilter.bin");
    PrefilterSnapshot.write(file, sample());
    byte[] bytes = Files.readAllBytes(file);
    bytes[7] = 2;
    Files.write(file, bytes);
    assertThatThrownBy(() -> PrefilterSnapshot.read(file))
        .hasMessage(
            "prefilter file " + file + ": unsupported format version 2 (this build reads 1)");
  }
}
