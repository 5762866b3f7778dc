package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.xiaochong.archive.PairCheck;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.fingerprint.ExactKey;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.FingerprintMethods;
import org.xiaochong.method.MethodContext;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * The contract every registered method keeps, built-in or found on the class path (the tests'
 * {@code pairs} and {@code minhash} included), run through the command line on 1,000 generated
 * posts: a dry run plans removals under the method's rule and shows them in {@code summary.json},
 * {@code decisions.jsonl} and {@code report.html}; the apply's re-check agrees with the pass on
 * rows that did not change; {@code --apply} archives exactly the planned rows; {@code check} (for a
 * method with an online form) finds the kept record of what the run removed; {@code restore} puts
 * every row back, and the next applied run removes none of them again.
 */
@Tag("db")
class MethodContractIT extends DbTestSupport {
  private static final ObjectMapper JSON = new ObjectMapper();

  static Stream<String> methods() {
    return FingerprintMethods.known().stream().map(FingerprintMethod::name);
  }

  @ParameterizedTest
  @MethodSource("methods")
  void everyMethod_runReCheckApplyCheckReportAndRestore(String method, @TempDir Path dir)
      throws IOException {
    long loaded = PostLoader.reload(database(), 17L, 1_000, null, n -> {}, p -> {});
    Path config = writeConfig(dir, "supply_demand", dir.resolve("index"), Map.of());

    // A dry run plans the method's removals and every output shows them.
    Path dry = dir.resolve("dry");
    CliRun run =
        cli("run", "--config", config.toString(), "--method", method, "--report", dry.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    List<JsonNode> planned = decisions(dry);
    assertThat(planned)
        .as("removals planned by %s", method)
        .isNotEmpty()
        .allSatisfy(d -> assertThat(d.get("rule").asText()).isEqualTo(method));
    JsonNode summary = JSON.readTree(dry.resolve("summary.json").toFile());
    assertThat(summary.at("/" + method + "/removed").asLong()).isEqualTo(planned.size());
    assertThat(summary.at("/removed_by_method/" + method).asLong()).isEqualTo(planned.size());
    assertThat(Files.readString(dry.resolve("report.html"), StandardCharsets.UTF_8))
        .contains("data-key=\"" + method + ".removed\"");
    assertThat(count("supply_demand")).isEqualTo(loaded);

    // The apply's re-check, given the rows as they are (unchanged since the pass), agrees with the
    // pass.
    DedupConfig dedup = loadConfig(config);
    assertReCheckAgrees(dedup, method, planned);

    // --apply archives exactly the planned rows.
    Path applied = dir.resolve("applied");
    run =
        cli(
            "run",
            "--config",
            config.toString(),
            "--method",
            method,
            "--apply",
            "--report",
            applied.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    long runId = JSON.readTree(applied.resolve("summary.json").toFile()).get("run_id").asLong();
    List<Long> removed =
        decisions(applied).stream().map(d -> d.get("removed_id").asLong()).sorted().toList();
    assertThat(removed)
        .isEqualTo(planned.stream().map(d -> d.get("removed_id").asLong()).sorted().toList());
    List<Long> archived =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT id FROM supply_demand_removed WHERE dedup_run_id = ?"
                            + " ORDER BY id")
                    .bind(0, runId)
                    .mapTo(Long.class)
                    .list());
    assertThat(archived).isEqualTo(removed);
    assertThat(count("supply_demand")).isEqualTo(loaded - removed.size());

    // check, for a method with an online form: an archived row repeats a row the run kept.
    assertCheckFindsTheKeptRows(config, dedup, method, runId);

    // restore puts every row back; the next applied run leaves them in place.
    run = cli("restore", "--config", config.toString(), "--run", Long.toString(runId));
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(count("supply_demand")).isEqualTo(loaded);
    Path again = dir.resolve("again");
    run =
        cli(
            "run",
            "--config",
            config.toString(),
            "--method",
            method,
            "--full",
            "--apply",
            "--report",
            again.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    Set<Long> removedAgain = new HashSet<>();
    decisions(again).forEach(d -> removedAgain.add(d.get("removed_id").asLong()));
    assertThat(removedAgain).doesNotContainAnyElementsOf(removed);
  }

  /**
   * The columns a method declares ({@code FingerprintMethod.columns()}) are checked against the
   * table like {@code fields.exact}: a missing one is refused in one line naming its key, before
   * anything runs.
   */
  @ParameterizedTest
  @MethodSource("declaredColumnKeys")
  void everyDeclaredColumnKey_namingAColumnTheTableLacks_isRefusedInOneLineNamingTheKey(
      String key, @TempDir Path dir) {
    PostLoader.reload(database(), 17L, 10, null, n -> {}, p -> {});
    Path config =
        writeConfig(dir, "supply_demand", dir.resolve("index"), Map.of(key, "no_such_column"));
    CliRun run = cli("run", "--config", config.toString());
    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err().strip().lines())
        .anySatisfy(
            line ->
                assertThat(line)
                    .contains(
                        key
                            + " names column 'no_such_column' that table 'supply_demand' does not"
                            + " have"));
  }

  static Stream<String> declaredColumnKeys() {
    return FingerprintMethods.known().stream()
        .flatMap(method -> method.columns().stream())
        .flatMap(columns -> columns.defaults().keySet().stream());
  }

  private static List<JsonNode> decisions(Path report) throws IOException {
    List<JsonNode> decisions = new ArrayList<>();
    for (String line :
        Files.readAllLines(report.resolve("decisions.jsonl"), StandardCharsets.UTF_8)) {
      decisions.add(JSON.readTree(line));
    }
    return decisions;
  }

  /**
   * Every planned pair is duplicates by the method's own pair rule, or exact copies (which the
   * apply checks).
   */
  private static void assertReCheckAgrees(
      DedupConfig dedup, String method, List<JsonNode> planned) {
    TableSpec spec = dedup.table();
    Map<Long, SourceRecord> rows = rows(spec);
    ExactKey exactKey = new ExactKey(spec.exactFields(), spec.phoneFields());
    List<String> columns = spec.fingerprintColumns();
    // The record index, as the apply has it: a method's saved state (a model, frequencies) lives
    // beside it.
    try (FingerprintIndex index =
            FingerprintIndex.openReadOnly(dedup.indexDir(), dedup.fieldsDigest());
        PairCheck check =
            FingerprintMethods.pairChecks(
                    new MethodContext(
                        spec,
                        index,
                        dedup.fieldsDigest(),
                        dedup.prefilter(),
                        false,
                        1,
                        null,
                        org.xiaochong.progress.Progress.NONE,
                        note -> {},
                        dedup.methodSettings()))
                .open(method)) {
      for (JsonNode decision : planned) {
        SourceRecord removed = rows.get(decision.get("removed_id").asLong());
        SourceRecord kept = rows.get(decision.get("kept_id").asLong());
        boolean exactCopies =
            Arrays.equals(
                exactKey.compute(exactValues(spec, columns, removed)),
                exactKey.compute(exactValues(spec, columns, kept)));
        assertThat(exactCopies || check.duplicates(removed, kept))
            .as("re-check of %s", decision)
            .isTrue();
      }
    }
  }

  private static String[] exactValues(TableSpec spec, List<String> columns, SourceRecord row) {
    return spec.exactFields().stream()
        .map(f -> row.values()[columns.indexOf(f)])
        .toArray(String[]::new);
  }

  /**
   * Every row of the table by id, with the fingerprint columns in {@link
   * TableSpec#fingerprintColumns} order.
   */
  private static Map<Long, SourceRecord> rows(TableSpec spec) {
    List<String> columns = spec.fingerprintColumns();
    String select =
        "SELECT id, "
            + String.join(", ", columns.stream().map(TableSpec::quote).toList())
            + " FROM supply_demand";
    return withHandle(
        h ->
            h.createQuery(select)
                .reduceRows(
                    new HashMap<Long, SourceRecord>(),
                    (map, row) -> {
                      String[] values = new String[columns.size()];
                      for (int i = 0; i < values.length; i++) {
                        values[i] = row.getColumn(i + 2, String.class);
                      }
                      long id = row.getColumn(1, Long.class);
                      map.put(id, new SourceRecord(id, SourceRecord.NULL_TIME, values));
                      return map;
                    }));
  }

  /**
   * For a method with a check: each row the run archived, given to {@code check --method <it>} as a
   * new record, repeats a row still in the table.
   */
  private static void assertCheckFindsTheKeptRows(
      Path config, DedupConfig dedup, String method, long runId) throws IOException {
    FingerprintMethod m = FingerprintMethods.parse(method).get(0);
    try (FingerprintIndex index =
        FingerprintIndex.openReadOnly(dedup.indexDir(), dedup.fieldsDigest())) {
      var check = m.openCheck(dedup.methodContext(index, note -> {}), false);
      if (check.isEmpty()) {
        return; // a method without an online form
      }
      check.get().close();
    }
    List<String> columns = dedup.table().fingerprintColumns();
    List<Map<String, String>> archived =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT * FROM supply_demand_removed"
                            + " WHERE dedup_run_id = ? ORDER BY id LIMIT 50")
                    .bind(0, runId)
                    .mapToMap(String.class)
                    .list());
    List<String> lines = new ArrayList<>();
    for (Map<String, String> row : archived) {
      ObjectNode record = JSON.createObjectNode();
      columns.forEach(c -> record.put(c, row.get(c)));
      lines.add(JSON.writeValueAsString(record));
    }
    CliRun run = cliWithInput(lines, "check", "--config", config.toString(), "--method", method);
    assertThat(run.exitCode()).as(run.err()).isZero();
    Set<Long> live = new HashSet<>(ids("supply_demand"));
    List<String> verdicts = run.out().lines().toList();
    assertThat(verdicts).hasSize(lines.size());
    for (String line : verdicts) {
      JsonNode verdict = JSON.readTree(line);
      assertThat(verdict.get("verdict").asText()).as(line).isEqualTo(method);
      assertThat(live).as(line).contains(verdict.get("kept_id").asLong());
    }
  }
}
