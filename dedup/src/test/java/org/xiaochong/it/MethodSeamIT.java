package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.method.NeighbourPairsMethod;
import org.xiaochong.posts.PostLoader;

/**
 * The seam: a method the code base does not know ({@link NeighbourPairsMethod}, registered as a
 * service by the test class path) runs through {@code run}, dry and applied, and its removals show
 * in the archive, the run log, {@code summary.json}, {@code decisions.jsonl} and {@code
 * report.html}.
 */
@Tag("db")
class MethodSeamIT extends DbTestSupport {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PAIRS = NeighbourPairsMethod.NAME;

  @TempDir Path dir;
  private Path config;
  private long loaded;

  @BeforeEach
  void loadPosts() {
    loaded = PostLoader.reload(database(), 13L, 1_000, null, n -> {}, p -> {});
    config = writeConfig(dir, "supply_demand", dir.resolve("index"), Map.of());
  }

  /** Pairs (10k+1, 10k+2) with both rows in the table. */
  private static long pairsInTable() {
    return withHandle(
        h ->
            h.createQuery(
                    "SELECT COUNT(*) FROM supply_demand a JOIN supply_demand b ON b.id = a.id + 1"
                        + " WHERE a.id % 10 = 1")
                .mapTo(Long.class)
                .one());
  }

  private static long decisions(Path report, String rule) throws IOException {
    long n = 0;
    for (String line :
        Files.readAllLines(report.resolve("decisions.jsonl"), StandardCharsets.UTF_8)) {
      n += JSON.readTree(line).get("rule").asText().equals(rule) ? 1 : 0;
    }
    return n;
  }

  private static void assertReportShows(Path report, String key, long value) throws IOException {
    String html = Files.readString(report.resolve("report.html"), StandardCharsets.UTF_8);
    assertThat(html).contains("data-key=\"" + key + "\">" + value + "</td>");
    // removed per rule: the method's bar, its count in the bar's title
    assertThat(html)
        .contains(
            "<title>" + PAIRS + ": " + String.format(Locale.ROOT, "%,d rows", value) + "</title>");
  }

  @Test
  void run_newMethodDryRun_plansItsPairsInEveryOutput() throws IOException {
    Path report = dir.resolve("dry");
    long expected = pairsInTable();

    CliRun run =
        cli("run", "--config", config.toString(), "--method", PAIRS, "--report", report.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(expected).isPositive();
    assertThat(run.out()).contains("pairs: " + expected + " pairs, " + expected + " to remove");
    JsonNode summary = JSON.readTree(report.resolve("summary.json").toFile());
    assertThat(summary.get("method").asText()).isEqualTo(PAIRS);
    assertThat(summary.at("/pairs/removed").asLong()).isEqualTo(expected);
    assertThat(summary.at("/removed_by_method/pairs").asLong()).isEqualTo(expected);
    assertThat(summary.at("/exact/removed").asLong()).isZero();
    assertThat(decisions(report, PAIRS)).isEqualTo(expected);
    assertReportShows(report, "pairs.removed", expected);
    assertThat(count("supply_demand")).isEqualTo(loaded);
  }

  @Test
  void run_exactAfterAnotherMethod_leavesItsRemovalsOutAndNoChains() throws IOException {
    Path report = dir.resolve("order");

    CliRun run =
        cli(
            "run",
            "--config",
            config.toString(),
            "--method",
            PAIRS + ",exact",
            "--report",
            report.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().indexOf("pairs: ")).isLessThan(run.out().indexOf("exact: "));
    java.util.Set<Long> removed = new java.util.HashSet<>();
    java.util.Set<Long> kept = new java.util.HashSet<>();
    for (String line :
        Files.readAllLines(report.resolve("decisions.jsonl"), StandardCharsets.UTF_8)) {
      JsonNode decision = JSON.readTree(line);
      assertThat(removed.add(decision.get("removed_id").asLong()))
          .as("removed once: %s", line)
          .isTrue();
      kept.add(decision.get("kept_id").asLong());
    }
    assertThat(kept).doesNotContainAnyElementsOf(removed);
    // A pair whose kept row the exact pass then removed points to the exact survivor, labelled with
    // both
    // methods (pairs+exact): the row went because of the pair and of the exact twin.
    long repointed = decisions(report, PAIRS + "+exact");
    assertThat(repointed).isPositive();
    assertThat(decisions(report, PAIRS) + repointed).isEqualTo(pairsInTable());
    assertThat(decisions(report, "exact")).isPositive();
    JsonNode summary = JSON.readTree(report.resolve("summary.json").toFile());
    assertThat(summary.at("/removed_by_method/" + PAIRS + "+exact").asLong()).isEqualTo(repointed);
  }

  @Test
  void run_newMethodAfterExactApplied_archivesLogsAndReportsItsRemovals() throws IOException {
    Path report = dir.resolve("applied");

    CliRun run =
        cli(
            "run",
            "--config",
            config.toString(),
            "--method",
            "exact," + PAIRS,
            "--apply",
            "--report",
            report.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode summary = JSON.readTree(report.resolve("summary.json").toFile());
    long runId = summary.get("run_id").asLong();
    long pairs = summary.at("/removed_by_method/pairs").asLong();
    long exact = summary.at("/removed_by_method/exact").asLong();
    assertThat(pairs).isPositive();
    assertThat(exact).isPositive();
    assertThat(summary.at("/pairs/removed").asLong()).isEqualTo(pairs);
    assertThat(decisions(report, PAIRS)).isEqualTo(pairs);
    assertReportShows(report, "pairs.removed", pairs);
    Map<String, Long> archived =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT dedup_rule, COUNT(*) FROM supply_demand_removed"
                            + " WHERE dedup_run_id = ? GROUP BY dedup_rule")
                    .bind(0, runId)
                    .reduceRows(
                        new java.util.TreeMap<String, Long>(),
                        (map, row) -> {
                          map.put(row.getColumn(1, String.class), row.getColumn(2, Long.class));
                          return map;
                        }));
    assertThat(archived).isEqualTo(Map.of("exact", exact, PAIRS, pairs));
    Map<String, Long> logged =
        withHandle(
            h ->
                h.createQuery("SELECT method, removed FROM dedup_run_removed WHERE run_id = ?")
                    .bind(0, runId)
                    .reduceRows(
                        new java.util.TreeMap<String, Long>(),
                        (map, row) -> {
                          map.put(row.getColumn(1, String.class), row.getColumn(2, Long.class));
                          return map;
                        }));
    assertThat(logged).isEqualTo(Map.of("exact", exact, PAIRS, pairs));
    String method =
        withHandle(
            h ->
                h.createQuery("SELECT method FROM dedup_run WHERE id = ?")
                    .bind(0, runId)
                    .mapTo(String.class)
                    .one());
    assertThat(method).isEqualTo("exact," + PAIRS);
    assertThat(count("supply_demand")).isEqualTo(loaded - exact - pairs);

    CliRun stats = cli("stats", "--config", config.toString());
    assertThat(stats.exitCode()).as(stats.err()).isZero();
    assertThat(stats.out()).contains(String.format("exact %,d, %s %,d", exact, PAIRS, pairs));

    CliRun restore = cli("restore", "--config", config.toString(), "--run", String.valueOf(runId));
    assertThat(restore.exitCode()).as(restore.err()).isZero();
    assertThat(count("supply_demand")).isEqualTo(loaded);
    assertThat(restore.out()).contains(String.format("restored %,d rows", exact + pairs));
  }
}
