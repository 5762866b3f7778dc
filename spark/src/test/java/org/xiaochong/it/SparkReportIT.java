package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.posts.PostGenerator;
import org.xiaochong.posts.PostLoader;

/**
 * The job's report against the single machine's ({@code summary.json}), and its components: those
 * over {@code --driver-component-size} decided on the driver give the same decisions.
 */
@Tag("db")
class SparkReportIT extends DbTestSupport {
  private static final String TABLE = "supply_demand";

  @TempDir Path dir;

  @BeforeAll
  static void startSpark() {
    SparkTestSession.get();
  }

  @Test
  void exactThenNear_componentsOnTheDriver_sameDecisionsAndTheSingleMachinesCounts()
      throws IOException {
    PostLoader.reload(
        database(), 20261127L, 3_000, PostGenerator.Vocabulary.REALISTIC, null, n -> {}, p -> {});
    // Texts over near.max-chars are cut (and fingerprinted on their start): the report counts them.
    Path config = writeConfig(dir, TABLE, dir.resolve("index"), Map.of("near.max-chars", "40"));
    Path single = SparkRuns.single(dir, config, "exact,near");
    Path job = dir.resolve("job");
    CliRun run =
        SparkRuns.spark(
            "run",
            "--config",
            config.toString(),
            "--master",
            "local[2]",
            "--method",
            "exact,near",
            "--driver-component-size",
            "3",
            "--report",
            job.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();

    assertThat(Files.readString(job.resolve("decisions.jsonl")))
        .isEqualTo(Files.readString(single.resolve("decisions.jsonl")));
    ObjectMapper json = new ObjectMapper();
    JsonNode s = json.readTree(single.resolve("summary.json").toFile());
    JsonNode j = json.readTree(job.resolve("summary.json").toFile());
    assertThat(j.get("exact").get("groups")).isEqualTo(s.get("exact").get("groups"));
    JsonNode sn = s.get("near");
    JsonNode jn = j.get("near");
    assertThat(sn.get("truncated").asLong()).as("long texts were cut").isPositive();
    assertThat(sn.get("repointed").asLong()).isPositive();
    for (String field :
        List.of(
            "removed",
            "examined",
            "skipped_exact",
            "candidates",
            "empty",
            "truncated",
            "repointed",
            "index_added",
            "min_similarity")) {
      assertThat(jn.get(field)).as(field).isEqualTo(sn.get(field));
    }
    assertThat(jn.get("lookups").asLong()).isPositive();
    assertThat(jn.get("key_family_seconds").get("fingerprint").asDouble()).isPositive();
    JsonNode components = jn.get("components");
    assertThat(components.get("on_driver").asLong()).as("components over 3 records").isPositive();
    assertThat(components.get("largest").asLong()).isGreaterThan(3);
    assertThat(run.out()).contains("decided on the driver");
  }

  @Test
  void simhash_componentsOnTheDriver_sameDecisions() throws IOException {
    PostLoader.reload(
        database(), 20261128L, 2_000, PostGenerator.Vocabulary.REALISTIC, null, n -> {}, p -> {});
    Path config = writeConfig(dir, TABLE, dir.resolve("index"), Map.of());
    Path single = SparkRuns.single(dir, config, "simhash");
    Path job = SparkRuns.job(dir, config, "simhash", "--driver-component-size", "2");
    assertThat(Files.readString(job.resolve("decisions.jsonl")))
        .isEqualTo(Files.readString(single.resolve("decisions.jsonl")));
    JsonNode components =
        new ObjectMapper()
            .readTree(job.resolve("summary.json").toFile())
            .get("simhash")
            .get("components");
    assertThat(components.get("on_driver").asLong()).isPositive();
  }
}
