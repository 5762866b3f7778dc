package org.xiaochong.urls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.prefilter.FilterShape;
import org.xiaochong.prefilter.PrefilterFormatException;

class UrlSeenFilterTest {

  @TempDir Path dir;

  @Test
  void plain_defaults_seedShapeAndMemory() {
    UrlSeenFilter filter = UrlSeenFilter.plain(1_000_000, 20, 10);
    assertThat(filter.shape()).isEqualTo(new FilterShape(20_000_000, 10, 1));
    assertThat(filter.memoryBytes()).isEqualTo(2_500_000);
    assertThat(filter.shape().expectedFpp(1_000_000)).isBetween(8.8e-5, 9.0e-5);
  }

  @Test
  void markSeen_twice_newThenSeen() {
    UrlSeenFilter filter = UrlSeenFilter.plain(1000, 20, 10);
    assertThat(filter.mightHaveSeen("http://a.example/")).isFalse();
    assertThat(filter.markSeen("http://a.example/")).isTrue();
    assertThat(filter.markSeen("http://a.example/")).isFalse();
    assertThat(filter.mightHaveSeen("http://a.example/")).isTrue();
  }

  @Test
  void forget_plainFilter_unsupported() {
    UrlSeenFilter filter = UrlSeenFilter.plain(1000, 20, 10);
    filter.markSeen("http://a.example/");
    assertThatThrownBy(() -> filter.forget("http://a.example/"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void forget_countingFilter_urlUnseenAgainOthersKept() {
    UrlSeenFilter filter = UrlSeenFilter.counting(1000, 20, 10);
    for (int i = 0; i < 500; i++) {
      filter.markSeen("http://site.example/page/" + i);
    }
    assertThat(filter.forget("http://site.example/page/7")).isTrue();
    assertThat(filter.mightHaveSeen("http://site.example/page/7")).isFalse();
    assertThat(filter.forget("http://site.example/page/7")).isFalse();
    for (int i = 0; i < 500; i++) {
      if (i != 7) {
        assertThat(filter.mightHaveSeen("http://site.example/page/" + i)).as("page %s", i).isTrue();
      }
    }
  }

  @Test
  void forget_urlMarkedTwice_oneForgetSuffices() {
    UrlSeenFilter filter = UrlSeenFilter.counting(1000, 20, 10);
    filter.markSeen("http://a.example/");
    filter.markSeen("http://a.example/");
    assertThat(filter.netInsertions()).isEqualTo(1);
    assertThat(filter.forget("http://a.example/")).isTrue();
    assertThat(filter.mightHaveSeen("http://a.example/")).isFalse();
  }

  @Test
  void save_thenLoad_sameAnswers() throws IOException {
    UrlSeenFilter filter = UrlSeenFilter.counting(1000, 20, 10);
    filter.markSeen("http://a.example/");
    Path file = dir.resolve("seen.bin");
    filter.save(file);
    UrlSeenFilter loaded = UrlSeenFilter.load(file);
    assertThat(loaded.isCounting()).isTrue();
    assertThat(loaded.shape()).isEqualTo(filter.shape());
    assertThat(loaded.mightHaveSeen("http://a.example/")).isTrue();
    assertThat(loaded.mightHaveSeen("http://b.example/")).isFalse();
  }

  @Test
  void load_corruptFile_clearException() throws IOException {
    UrlSeenFilter filter = UrlSeenFilter.plain(1000, 20, 10);
    filter.markSeen("http://a.example/");
    Path file = dir.resolve("seen.bin");
    filter.save(file);
    byte[] bytes = Files.readAllBytes(file);
    bytes[60] ^= 1;
    Files.write(file, bytes);
    assertThatThrownBy(() -> UrlSeenFilter.load(file))
        .isInstanceOf(PrefilterFormatException.class)
        .hasMessageContaining("checksum mismatch")
        .hasMessageContaining("m=20000, k=10, n=1");
  }
}
