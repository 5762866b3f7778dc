package org.xiaochong.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.simhash.ContentSeen;
import org.xiaochong.tools.ToolCommandsTest.Run;

class SimilarityCommandTest {
  @TempDir Path dir;

  private static Run run(String... args) {
    return ToolCommandsTest.dedup(args);
  }

  @Test
  void similarity_sameText_likenessOneOnEveryTokenizer() {
    Run run = run("similarity", "供应红富士苹果，价格面议", "供应红富士苹果，价格面议");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out().lines().toList())
        .hasSize(3)
        .allMatch(line -> line.contains("likeness 1.0000  distance  0"));
    assertThat(run.out()).startsWith("words ").contains("\nshingles-4/3 ").contains("\nchunks-5 ");
  }

  @Test
  void similarity_seedExample_printsEachTokenizersLikeness() {
    Run run = run("similarity", "The cat sat on the mat.", "The cat sat on a mat.");
    long a = ContentSeen.fingerprint("The cat sat on the mat.");
    long b = ContentSeen.fingerprint("The cat sat on a mat.");
    assertThat(run.out())
        .contains(
            String.format(
                java.util.Locale.ROOT, "shingles-4/3 likeness %.4f", ContentSeen.likeness(a, b)));
    assertThat(ContentSeen.likeness(a, b)).isBetween(0.5, 1.0);
  }

  @Test
  void similarity_files_readsThem() throws IOException {
    Path a = Files.writeString(dir.resolve("a.txt"), "山东烟台栖霞红富士苹果大量上市");
    Path b = Files.writeString(dir.resolve("b.txt"), "山东烟台栖霞红富士苹果大量上市");
    assertThat(run("similarity", "--files", a.toString(), b.toString()).out())
        .contains("likeness 1.0000");
  }

  @Test
  void similarity_oneTextOrMissingFile_usageExit2() {
    Run one = run("similarity", "only one");
    assertThat(one.exitCode()).isEqualTo(2);
    assertThat(one.err()).isEqualTo("similarity: need two texts (or --files A B), got 1\n");
    Run missing =
        run("similarity", "--files", dir.resolve("x").toString(), dir.resolve("y").toString());
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err())
        .isEqualTo("similarity: file " + dir.resolve("x") + " does not exist\n");
  }
}
