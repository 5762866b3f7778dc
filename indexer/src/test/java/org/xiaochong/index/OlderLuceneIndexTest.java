package org.xiaochong.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.source.BadInputException;

/**
 * An index written by xiaochong on Lucene 9.12 ({@code lucene9-index.zip}: three records, digest
 * "lucene9-fixture", made by FingerprintIndex before the move to Lucene 10) is rebuilt once when
 * opened for writing, and refused in one line when opened read-only.
 */
class OlderLuceneIndexTest {
  private static final String DIGEST = "lucene9-fixture";

  private static Path unzipOldIndex(Path dir) throws IOException {
    Path path = dir.resolve("index");
    Files.createDirectories(path.resolve("near"));
    Files.writeString(path.resolve("near").resolve("kept.txt"), "a method's own folder");
    try (InputStream in = OlderLuceneIndexTest.class.getResourceAsStream("lucene9-index.zip");
        ZipInputStream zip = new ZipInputStream(in)) {
      for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
        Files.copy(zip, path.resolve(entry.getName()));
      }
    }
    return path;
  }

  @Test
  void open_indexOfLucene9_isDroppedAndStartsEmptyInThisLucene(@TempDir Path dir)
      throws IOException {
    Path path = unzipOldIndex(dir);

    try (FingerprintIndex index = FingerprintIndex.open(path, DIGEST, false)) {
      index.add(5L, 0L, new byte[16]);
      index.commit();
      try (DirectoryReader reader = index.openReader()) {
        assertThat(reader.numDocs()).as("only what the rebuild added").isEqualTo(1);
      }
    }
    try (FSDirectory directory = FSDirectory.open(path)) {
      assertThat(SegmentInfos.readLatestCommit(directory).getIndexCreatedVersionMajor())
          .isEqualTo(Version.LATEST.major);
    }
    assertThat(path.resolve("near").resolve("kept.txt")).exists();
  }

  @Test
  void openReadOnly_indexOfLucene9_isRefusedInOneLineSayingHowToRebuild(@TempDir Path dir)
      throws IOException {
    Path path = unzipOldIndex(dir);

    assertThatThrownBy(() -> FingerprintIndex.openReadOnly(path, DIGEST))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "index "
                + path
                + " was written by an older Lucene (xiaochong before its move to Lucene "
                + Version.LATEST.major
                + "): run `dedup index` once to rebuild it");
  }
}
