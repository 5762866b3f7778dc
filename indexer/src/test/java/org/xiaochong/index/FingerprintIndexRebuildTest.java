package org.xiaochong.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.index.DirectoryReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FingerprintIndexRebuildTest {
  private static final String DIGEST = "test";

  private static long committedDocs(Path path) throws IOException {
    try (FingerprintIndex index = FingerprintIndex.openReadOnly(path, DIGEST);
        DirectoryReader reader = index.openReader()) {
      return reader.numDocs();
    }
  }

  private static void indexOf(Path path, int docs) {
    try (FingerprintIndex index = FingerprintIndex.open(path, DIGEST, false)) {
      for (int i = 0; i < docs; i++) {
        index.add(i, 0L, new byte[16]);
      }
      index.commit();
    }
  }

  @Test
  void rebuild_readersSeeTheReplacedIndexUntilTheRebuiltOneCommits(@TempDir Path dir)
      throws IOException {
    Path path = dir.resolve("index");
    indexOf(path, 3);
    try (FingerprintIndex rebuilt = FingerprintIndex.open(path, DIGEST, true)) {
      assertThat(rebuilt.rebuilding()).isTrue();
      rebuilt.add(7L, 0L, new byte[16]);
      try (DirectoryReader own = rebuilt.openReader()) {
        assertThat(own.numDocs()).as("the rebuild starts from empty").isEqualTo(1);
      }
      assertThat(committedDocs(path)).as("readers keep the index replaced").isEqualTo(3);
      rebuilt.commit();
      assertThat(rebuilt.rebuilding()).isFalse();
      assertThat(committedDocs(path)).as("the commit publishes the rebuilt index").isEqualTo(1);
    }
  }

  @Test
  void rebuild_closedBeforeItsCommit_leavesTheIndexAsItWas(@TempDir Path dir) throws IOException {
    Path path = dir.resolve("index");
    indexOf(path, 3);
    try (FingerprintIndex rebuilt = FingerprintIndex.open(path, DIGEST, true)) {
      rebuilt.add(7L, 0L, new byte[16]);
    }
    assertThat(committedDocs(path)).isEqualTo(3);
  }

  @Test
  void rebuild_ofNoIndex_commitsTheEmptyOneAtOnce(@TempDir Path dir) throws IOException {
    Path path = dir.resolve("index");
    try (FingerprintIndex created = FingerprintIndex.open(path, DIGEST, true)) {
      assertThat(created.rebuilding()).isFalse();
    }
    assertThat(FingerprintIndex.exists(path)).isTrue();
    assertThat(committedDocs(path)).isZero();
  }
}
