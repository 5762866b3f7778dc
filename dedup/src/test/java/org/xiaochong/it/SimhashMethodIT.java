package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --method simhash} on long pages: copies of a 10,000-character page with one or two
 * edited characters are found and the latest copy is kept; unrelated pages are not merged. Dry run,
 * apply (archive, run log, {@code summary.json}, {@code decisions.jsonl}), restore, and {@code
 * exact,simhash}.
 */
@Tag("db")
class SimhashMethodIT extends DbTestSupport {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TABLE = "simhash_pages";
  private static final int PAGES = 40;
  private static final int LENGTH = 10_000;
  private static final LocalDateTime T0 = LocalDateTime.of(2024, 3, 1, 8, 0);

  @TempDir Path dir;
  private Path config;

  /** Removed id -> the id kept for it, as the pages were made. */
  private final Map<Long, Long> copies = new HashMap<>();

  private long exactTwin;

  @BeforeEach
  void loadPages() {
    createPostsTable(TABLE);
    SplittableRandom random = new SplittableRandom(2007);
    long id = 1;
    for (int page = 0; page < PAGES; page++) {
      String text = page(random);
      long original = id++;
      insert(TABLE, original, "page " + page, "page", "13800000000", text, T0.plusMinutes(page));
      if (page % 2 == 0) { // two later copies: one and two places edited; the latest is kept
        long one = id++;
        long two = id++;
        insert(
            TABLE,
            one,
            "page " + page,
            "page",
            "13800000000",
            edit(text, random, 1),
            T0.plusDays(1).plusMinutes(page));
        insert(
            TABLE,
            two,
            "page " + page,
            "page",
            "13800000000",
            edit(text, random, 2),
            T0.plusDays(2).plusMinutes(page));
        copies.put(original, two);
        copies.put(one, two);
      }
    }
    exactTwin = id;
    insert(
        TABLE,
        exactTwin,
        "page 1",
        "page",
        "13800000000",
        pageText(4),
        T0.plusDays(3)); // same row as page 1 (id 4)
    config = writeConfig(dir, TABLE, dir.resolve("index"), Map.of());
  }

  private String pageText(long id) {
    return withHandle(
        h ->
            h.createQuery("SELECT content FROM " + TABLE + " WHERE id = ?")
                .bind(0, id)
                .mapTo(String.class)
                .one());
  }

  /** A page of random common characters in sentences: unrelated pages share no long runs. */
  private static String page(SplittableRandom random) {
    StringBuilder text = new StringBuilder();
    while (text.length() < LENGTH) {
      text.append((char) (0x4e00 + random.nextInt(3_000)));
      if (random.nextInt(20) == 0) {
        text.append('。');
      }
    }
    return text.toString();
  }

  /** {@code places} characters changed (a digit of a price, a word of a date). */
  private static String edit(String text, SplittableRandom random, int places) {
    StringBuilder edited = new StringBuilder(text);
    for (int i = 0; i < places; i++) {
      edited.setCharAt(random.nextInt(edited.length()), (char) ('0' + random.nextInt(10)));
    }
    return edited.toString();
  }

  private static Map<Long, Long> decisions(Path report, String rule) throws IOException {
    Map<Long, Long> decisions = new TreeMap<>();
    for (String line :
        Files.readAllLines(report.resolve("decisions.jsonl"), StandardCharsets.UTF_8)) {
      JsonNode decision = JSON.readTree(line);
      if (decision.get("rule").asText().equals(rule)) {
        decisions.put(decision.get("removed_id").asLong(), decision.get("kept_id").asLong());
      }
    }
    return decisions;
  }

  /**
   * {@code dedup run} of {@code method} over the table of {@code config}, its report in {@code
   * report}.
   */
  private static CliRun runMethod(Path config, String method, Path report, String... options) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "--config",
                config.toString(),
                "--method",
                method,
                "--report",
                report.toString()));
    args.addAll(List.of(options));
    return cli(args.toArray(String[]::new));
  }

  /**
   * {@code dedup check} of {@code lines} (one JSON record each) against the table of {@code
   * config}.
   */
  private static CliRun check(Path config, List<String> lines, String... options) {
    List<String> args = new ArrayList<>(List.of("check", "--config", config.toString()));
    args.addAll(List.of(options));
    return cliWithInput(lines, args.toArray(String[]::new));
  }

  @Test
  void run_simhashDryRun_findsTheEditedCopiesOnly() throws IOException {
    Path report = dir.resolve("dry");
    long rows = count(TABLE);

    CliRun run = runMethod(config, "simhash", report);

    assertThat(run.exitCode()).as(run.err()).isZero();
    Map<Long, Long> expected = new HashMap<>(copies);
    expected.put(4L, exactTwin); // the identical row is a copy at distance 0
    assertThat(decisions(report, "simhash")).isEqualTo(expected);
    JsonNode summary = JSON.readTree(report.resolve("summary.json").toFile());
    assertThat(summary.at("/simhash/removed").asLong()).isEqualTo(expected.size());
    assertThat(summary.at("/removed_by_method/simhash").asLong()).isEqualTo(expected.size());
    assertThat(summary.at("/simhash/examined").asLong()).isEqualTo(rows);
    assertThat(run.out())
        .contains(
            "simhash: " + rows + " examined, " + expected.size() + " within distance 3 to remove");
    assertThat(Files.isDirectory(dir.resolve("index").resolve("simhash"))).isTrue();
    assertThat(count(TABLE)).isEqualTo(rows);
  }

  @Test
  void run_simhashApplied_archivesAndLogsItsRemovals_restoreBringsThemBack() throws IOException {
    Path report = dir.resolve("applied");
    long rows = count(TABLE);
    List<List<String>> before = snapshot(TABLE);

    CliRun run = runMethod(config, "simhash", report, "--apply");

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode summary = JSON.readTree(report.resolve("summary.json").toFile());
    long runId = summary.get("run_id").asLong();
    long removed = summary.at("/removed_by_method/simhash").asLong();
    assertThat(removed).as(run.out()).isEqualTo(copies.size() + 1);
    assertThat(summary.at("/simhash/repointed").asLong())
        .isZero(); // no kept row lost its state: nothing re-checked
    assertThat(decisions(report, "simhash")).hasSize((int) removed);
    Map<String, Long> archived =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT dedup_rule, COUNT(*) FROM "
                            + TABLE
                            + "_removed WHERE dedup_run_id = ? GROUP BY dedup_rule")
                    .bind(0, runId)
                    .reduceRows(
                        new TreeMap<String, Long>(),
                        (map, row) -> {
                          map.put(row.getColumn(1, String.class), row.getColumn(2, Long.class));
                          return map;
                        }));
    assertThat(archived).isEqualTo(Map.of("simhash", removed));
    long logged =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT removed FROM dedup_run_removed WHERE run_id = ? AND method = ?")
                    .bind(0, runId)
                    .bind(1, "simhash")
                    .mapTo(Long.class)
                    .one());
    assertThat(logged).isEqualTo(removed);
    assertThat(count(TABLE)).isEqualTo(rows - removed);

    CliRun again = runMethod(config, "simhash", dir.resolve("again"));
    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(decisions(dir.resolve("again"), "simhash")).isEmpty();

    CliRun restore = cli("restore", "--config", config.toString(), "--run", String.valueOf(runId));
    assertThat(restore.exitCode()).as(restore.err()).isZero();
    assertThat(snapshot(TABLE)).isEqualTo(before);

    Path afterRestore = dir.resolve("restored");
    CliRun rerun = runMethod(config, "simhash", afterRestore);
    assertThat(rerun.exitCode()).as(rerun.err()).isZero();
    assertThat(decisions(afterRestore, "simhash"))
        .isEmpty(); // the restore marked its rows apart from their kept rows

    useHandle(
        h -> {
          h.execute("DELETE FROM dedup_apart WHERE source_table = ?", TABLE);
          h.execute("DELETE FROM dedup_apart_member WHERE source_table = ?", TABLE);
          h.execute("DELETE FROM dedup_apart_group WHERE source_table = ?", TABLE);
        });
    Path unmarked = dir.resolve("unmarked");
    CliRun forgotten = runMethod(config, "simhash", unmarked);
    assertThat(forgotten.exitCode()).as(forgotten.err()).isZero();
    assertThat(decisions(unmarked, "simhash"))
        .hasSize((int) removed); // the index followed the restore
  }

  @Test
  void run_exactThenSimhash_removesNoRecordTwice() throws IOException {
    Path report = dir.resolve("both");

    CliRun run = runMethod(config, "exact,simhash", report);

    assertThat(run.exitCode()).as(run.err()).isZero();
    Set<Long> removed = new HashSet<>();
    Set<Long> kept = new HashSet<>();
    for (String line :
        Files.readAllLines(report.resolve("decisions.jsonl"), StandardCharsets.UTF_8)) {
      JsonNode decision = JSON.readTree(line);
      assertThat(removed.add(decision.get("removed_id").asLong()))
          .as("removed once: %s", line)
          .isTrue();
      kept.add(decision.get("kept_id").asLong());
    }
    assertThat(kept).doesNotContainAnyElementsOf(removed);
    assertThat(decisions(report, "exact")).isEqualTo(Map.of(4L, exactTwin));
    assertThat(decisions(report, "simhash")).isEqualTo(copies);
    JsonNode summary = JSON.readTree(report.resolve("summary.json").toFile());
    // the exact pass's removal is not fingerprinted at all (the sync leaves out earlier removals)
    assertThat(summary.at("/simhash/examined").asLong()).isEqualTo(count(TABLE) - 1);
  }

  private static String checkLine(long id, String title, String content) {
    return JSON.createObjectNode()
        .put("id", id)
        .put("title", title)
        .put("category", "供应")
        .put("product", "page")
        .put("region", "山东烟台")
        .put("price", "2.50元/斤")
        .put("contact", "王先生")
        .put("phone", "13800000000")
        .put("content", content)
        .put("reg_time", "2024-03-09 08:00:00")
        .toString(); // as insert() writes a row
  }

  private static List<JsonNode> verdicts(CliRun run) throws IOException {
    assertThat(run.exitCode()).as(run.err()).isZero();
    List<JsonNode> verdicts = new ArrayList<>();
    for (String line : run.out().split("\n")) {
      verdicts.add(JSON.readTree(line));
    }
    return verdicts;
  }

  @Test
  void check_afterASimhashRun_findsEditedCopies_andAddedPagesJoinTheStreamAndTheNextProcess()
      throws IOException {
    CliRun run = cli("run", "--config", config.toString(), "--method", "simhash");
    assertThat(run.exitCode()).as(run.err()).isZero();
    SplittableRandom random = new SplittableRandom(11);
    String pageOne = pageText(4);
    String fresh = page(random);

    List<JsonNode> without =
        verdicts(
            check(
                config,
                List.of(
                    checkLine(900_001, "page 1 again", edit(pageOne, random, 2)),
                    checkLine(900_002, "another page", fresh),
                    checkLine(900_003, "page 1", pageOne))));

    // Page 1 and its exact twin hold the same text: of the two equally near, the later one is the
    // match.
    assertThat(without.get(0).get("verdict").asText()).isEqualTo("simhash");
    assertThat(without.get(0).get("kept_id").asLong()).isEqualTo(exactTwin);
    assertThat(without.get(0).get("score").asDouble()).isBetween(61 / 64.0, 1.0);
    assertThat(without.get(1).get("verdict").asText()).isEqualTo("new");
    assertThat(without.get(2).get("verdict").asText()).isEqualTo("exact"); // exact is asked first
    assertThat(without.get(2).get("kept_id").asLong()).isEqualTo(exactTwin);

    CliRun added =
        check(
            config,
            List.of(
                checkLine(900_002, "another page", fresh),
                checkLine(900_004, "another page, reposted", edit(fresh, random, 1))),
            "--add");
    List<JsonNode> stream = verdicts(added);
    assertThat(stream.get(0).get("verdict").asText()).isEqualTo("new");
    assertThat(stream.get(1).get("verdict").asText()).isEqualTo("simhash");
    assertThat(stream.get(1).get("kept_id").asLong()).isEqualTo(900_002);
    assertThat(added.err()).contains("simhash: 2 fingerprints looked up");

    List<JsonNode> later =
        verdicts(
            check(
                config,
                List.of(checkLine(900_005, "another page", edit(fresh, random, 2))),
                "--method",
                "simhash"));
    assertThat(later.get(0).get("verdict").asText()).isEqualTo("simhash");
    assertThat(later.get(0).get("kept_id").asLong()).isEqualTo(900_002);

    CliRun noNear = check(config, List.of(checkLine(900_006, "x", "y")), "--method", "near");
    assertThat(noNear.exitCode()).isEqualTo(2);
    assertThat(noNear.err()).contains("nothing built for near yet");
  }

  @Test
  void run_tfIdfWeights_findTheSameCopies_withFrequenciesFrozenAcrossRuns() throws IOException {
    Path tfIdf =
        writeConfig(dir, TABLE, dir.resolve("index-tfidf"), Map.of("simhash.weights", "tf-idf"));
    Path frequencies =
        dir.resolve("index-tfidf").resolve("simhash").resolve("feature-frequencies.bin.gz");

    CliRun run = runMethod(tfIdf, "simhash", dir.resolve("tfidf"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    Map<Long, Long> expected = new HashMap<>(copies);
    expected.put(4L, exactTwin);
    // No wrong pair; a copy may be missed: the features all copies share have a higher df, so a
    // lower
    // weight, than the ones an edit brings in (40 of the 41 here).
    Map<Long, Long> found = decisions(dir.resolve("tfidf"), "simhash");
    assertThat(expected).containsAllEntriesOf(found);
    assertThat(found.size()).isGreaterThanOrEqualTo(expected.size() - 2);
    byte[] frozen = Files.readAllBytes(frequencies);

    String page = pageText(1);
    long copy = exactTwin + 1;
    insert(
        TABLE,
        copy,
        "page 0",
        "page",
        "13800000000",
        edit(page, new SplittableRandom(5), 1),
        T0.plusDays(9));
    CliRun again = runMethod(tfIdf, "simhash", dir.resolve("tfidf2"));

    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(Files.readAllBytes(frequencies)).isEqualTo(frozen); // a new row changes no weight
    assertThat(decisions(dir.resolve("tfidf2"), "simhash")).containsEntry(copies.get(1L), copy);
    List<JsonNode> verdicts =
        verdicts(
            check(
                tfIdf,
                List.of(checkLine(900_010, "page 0", edit(page, new SplittableRandom(6), 1))),
                "--method",
                "simhash"));
    assertThat(verdicts.get(0).get("verdict").asText()).isEqualTo("simhash");
  }
}
