package org.xiaochong.urls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.bloom.FilterShape;
import org.xiaochong.bloom.PrefilterFormatException;

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

  /**
   * Real URLs (urls/kasztp-urlset, 48,009 distinct scheme-less URLs, see its SOURCE.md): one pass
   * of markSeen. A "seen" answer for a canonical URL not met before is a false positive; with the
   * filter sized for the set (m/N = 20, k = 10) the expected number is sum over i of FPP(i), about
   * 1.
   */
  @Test
  void markSeen_kasztpUrlset_falsePositivesNearTheory() throws IOException {
    Optional<Path> data = UrlCanonicalizerTest.locate("urls/kasztp-urlset/urlset.csv");
    Assumptions.assumeTrue(data.isPresent(), "shared data folder absent: skipping");
    List<String> lines = Files.readAllLines(data.get(), StandardCharsets.UTF_8);
    UrlCanonicalizer canonicalizer = new UrlCanonicalizer(false);
    UrlSeenFilter filter = UrlSeenFilter.plain(lines.size(), 20, 10);
    Set<String> exact = new HashSet<>();
    int falsePositives = 0;
    int collapsed = 0;
    for (String line : lines.subList(1, lines.size())) { // header "domain,label", after a BOM
      String raw = line.substring(0, line.lastIndexOf(','));
      Optional<String> url = canonicalizer.canonicalize("http://" + raw);
      if (url.isEmpty()) {
        continue;
      }
      boolean isNew = filter.markSeen(url.get());
      boolean reallyNew = exact.add(url.get());
      assertThat(reallyNew || !isNew).as("false negative for %s", url.get()).isTrue();
      falsePositives += reallyNew && !isNew ? 1 : 0;
      collapsed += reallyNew ? 0 : 1;
    }
    System.out.printf(
        "kasztp urlset: %d canonical URLs, %d collapsed by canonicalization, %d false positives%n",
        exact.size(), collapsed, falsePositives);
    assertThat(exact.size()).isGreaterThan(47_000);
    assertThat(falsePositives).isLessThanOrEqualTo(10);
  }

  @Test
  void locate_missingData_emptySoTestsSkip() {
    assertThat(UrlCanonicalizerTest.locate("urls/no-such-folder/x.json")).isEmpty();
  }
}
