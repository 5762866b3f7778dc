package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.xiaochong.posts.PostLoader;

/**
 * `dedup run` end to end through DedupCommand.commandLine(out, err), against the embedded server.
 */
@Tag("db")
class CliIT extends DbTestSupport {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private Path config;
  private long loaded;

  @BeforeEach
  void loadPosts() {
    loaded = PostLoader.reload(database(), 11L, 3_000, null, n -> {}, p -> {});
    config = writeConfig(dir, "supply_demand", dir.resolve("index"), Map.of());
  }

  @Test
  void run_withoutApply_printsDryRunAndChangesNothing() {
    CliRun run = cli("run", "--config", config.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("dry run").contains("to remove");
    assertThat(run.err()).isEmpty();
    assertThat(count("supply_demand")).isEqualTo(loaded);
  }

  @Test
  void run_applyWithReport_writesSummaryAndOneDecisionPerRemoval() throws IOException {
    Path report = dir.resolve("report");

    CliRun run =
        cli("run", "--config", config.toString(), "--apply", "--report", report.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("(applied)").contains("report: ");
    JsonNode summary = JSON.readTree(report.resolve("summary.json").toFile());
    for (String key : List.of("run_id", "records_read", "exact", "near", "seconds")) {
      assertThat(summary.has(key)).as("summary.json has %s", key).isTrue();
    }
    long runId = summary.get("run_id").asLong();
    long removed = summary.at("/exact/removed").asLong(-1);
    assertThat(runId).isPositive();
    assertThat(summary.get("records_read").asLong()).isEqualTo(loaded);
    assertThat(removed).isPositive();
    assertThat(summary.at("/near/removed").isNumber()).isTrue();
    assertThat(summary.at("/near/removed").asLong()).isZero();
    assertThat(summary.at("/seconds/total").isNumber()).isTrue();
    assertThat(summary.at("/seconds/index").isNumber()).isTrue();
    assertThat(count("supply_demand")).isEqualTo(loaded - removed);

    List<String> lines =
        Files.readAllLines(report.resolve("decisions.jsonl"), StandardCharsets.UTF_8);
    assertThat(lines).hasSize((int) removed);
    long previousId = Long.MIN_VALUE;
    for (String line : lines) {
      JsonNode decision = JSON.readTree(line);
      assertThat(decision.get("removed_id").asLong())
          .as("in removed-id order")
          .isGreaterThan(previousId);
      previousId = decision.get("removed_id").asLong();
      assertThat(decision.get("removed_id").isIntegralNumber()).isTrue();
      assertThat(decision.get("kept_id").isIntegralNumber()).isTrue();
      assertThat(decision.get("rule").asText()).isEqualTo("exact");
      assertThat(decision.get("score").asDouble()).isEqualTo(1.0);
    }
    long archived =
        withHandle(
            h ->
                h.createQuery("SELECT COUNT(*) FROM supply_demand_removed WHERE dedup_run_id = ?")
                    .bind(0, runId)
                    .mapTo(Long.class)
                    .one());
    assertThat(archived).isEqualTo(removed);
  }

  @Test
  void run_methodNearDryRun_printsTheNearPassAndRemovesNothing() {
    CliRun run = cli("run", "--config", config.toString(), "--method", "near");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("near: ").contains("examined");
    assertThat(count("supply_demand")).isEqualTo(loaded);
  }

  @Test
  void run_unknownMethod_exitCode2AndNothingRemoved() {
    CliRun run = cli("run", "--config", config.toString(), "--method", "fuzzy", "--apply");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.errLines()).singleElement().asString().contains("--method");
    assertThat(count("supply_demand")).isEqualTo(loaded);
  }

  @ParameterizedTest
  @ValueSource(strings = {"run", "restore", "index", "stats", "init-db"})
  void help_eachCommand_listsExitCodes(String command) {
    CliRun run = cli(command, "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out().replaceAll("\\s+", " "))
        .contains("Exit codes: 0 success 1 unexpected error")
        .contains("2 usage or configuration error");
  }

  @Test
  void help_topLevel_listsExitCodes() {
    CliRun run = cli("--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out().replaceAll("\\s+", " "))
        .contains("Exit codes:")
        .contains("2 usage or configuration error");
  }
}
