package org.xiaochong.prefilter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrefilterSnapshotTest {

  @TempDir Path dir;

  private static ImpCbFilter sample() {
    ImpCbFilter filter =
        new ImpCbFilter(new FilterShape(5_000, 8, 4), new InMemoryFingerprintStore());
    for (int i = 0; i < 300; i++) {
      filter.insert(TestKeys.md5("page-" + (i % 250)), i);
    }
    filter.delete(TestKeys.md5("page-200"));
    return filter;
  }

  @Test
  void write_thenRead_roundTripsFilterAndStore() throws IOException {
    ImpCbFilter original = sample();
    Path file = dir.resolve("prefilter.bin");
    PrefilterSnapshot.write(file, original);

    ImpCbFilter loaded = PrefilterSnapshot.read(file, original.shape()).toImpCbFilter();

    assertThat(loaded.filter().words()).isEqualTo(original.filter().words());
    assertThat(loaded.filter().netInsertions()).isEqualTo(original.filter().netInsertions());
    assertThat(loaded.stats().storeSize()).isEqualTo(249);
    assertThat(loaded.lookup(TestKeys.md5("page-3"))).hasValue(3);
    assertThat(loaded.lookup(TestKeys.md5("page-200"))).isEmpty();
    assertThat(loaded.insert(TestKeys.md5("page-3"), 999).refCount()).isEqualTo(3); // 3 and 253
  }

  @Test
  void write_filterOnly_readsWithoutStore() throws IOException {
    CountingBloomFilter filter = new CountingBloomFilter(new FilterShape(1_001, 3, 2));
    filter.put(TestKeys.md5("x"));
    Path file = dir.resolve("f.bin");
    PrefilterSnapshot.write(file, filter);
    PrefilterSnapshot snapshot = PrefilterSnapshot.read(file);
    assertThat(snapshot.store()).isEmpty();
    assertThat(snapshot.filter().mightContain(TestKeys.md5("x"))).isTrue();
    assertThat(snapshot.filter().shape()).isEqualTo(filter.shape());
    assertThatThrownBy(snapshot::toImpCbFilter).isInstanceOf(IllegalStateException.class);
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
        .hasMessageContaining("header version=1, m=5000, k=8, n=4, count=249, store entries=249");
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
