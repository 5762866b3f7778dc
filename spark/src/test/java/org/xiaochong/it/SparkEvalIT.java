package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.xiaochong.eval.EvalDatasets;

/**
 * {@code dedup-spark run} against {@code dedup run --full} on eval's labelled real data sets
 * (loaded as {@code dedup eval} loads them, with its fields): the same decisions, byte for byte,
 * for exact, simhash, exact,near, linkage and exact,linkage (linkage from the weights the single
 * machine froze with its index). Skipped when the labelled data (../shared/data or
 * /work/shared/data) is absent.
 */
@Tag("db")
class SparkEvalIT extends DbTestSupport {
  @TempDir Path dir;

  @BeforeAll
  static void startSpark() {
    SparkTestSession.get();
  }

  private static Path shared() {
    Path near = Path.of("../shared/data");
    return Files.isDirectory(near) ? near : Path.of("/work/shared/data");
  }

  /**
   * The sets compared: febrl1 and cora (a few seconds each), or those of the system property {@code
   * spark.eval.datasets} (comma-separated eval names, e.g. restaurants,febrl2,childcare).
   */
  static java.util.stream.Stream<String> datasets() {
    return java.util.Arrays.stream(
        System.getProperty("spark.eval.datasets", "febrl1,cora").split(","));
  }

  @ParameterizedTest
  @MethodSource("datasets")
  void labelledSet_everyMethod_decidesAsTheSingleMachine(String name) throws IOException {
    Path shared = shared();
    assumeTrue(Files.isDirectory(shared), "no labelled data at " + shared.toAbsolutePath());
    EvalDatasets.Loaded loaded = new EvalDatasets(1L, 0, 0.6, 0).load(database(), name, shared);
    try {
      Path config =
          writeConfig(
              dir,
              loaded.table(),
              dir.resolve("index-" + name),
              Map.of(
                  "fields.exact",
                  String.join(",", loaded.exact()),
                  "fields.near",
                  String.join(",", loaded.near())));
      for (String method :
          new String[] {"exact", "simhash", "exact,near", "linkage", "exact,linkage"}) {
        String single = singleDry(config, method);
        String job = sparkDry(config, method);
        if (!method.equals("exact")) {
          assertThat(single.lines().count())
              .as(name + " " + method + " finds duplicates")
              .isPositive();
        }
        assertThat(job).as(name + " " + method).isEqualTo(single);
      }
    } finally {
      EvalDatasets.drop(database(), loaded.table());
    }
  }

  private String singleDry(Path config, String method) throws IOException {
    return SparkRuns.decisions(SparkRuns.single(dir, config, method));
  }

  private String sparkDry(Path config, String method) throws IOException {
    return SparkRuns.decisions(SparkRuns.job(dir, config, method));
  }
}
