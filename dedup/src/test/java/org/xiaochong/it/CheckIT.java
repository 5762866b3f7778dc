package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.MultiBits;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.method.near.NearKeyFilter;
import org.xiaochong.method.near.NearMethod;
import org.xiaochong.method.near.NearSettings;
import org.xiaochong.method.near.index.NearSchema;
import org.xiaochong.posts.GroundTruth;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.prefilter.FilterFile;
import org.xiaochong.prefilter.IndexKeyFilter;
import org.xiaochong.prefilter.RecordKeyFilter;

/**
 * {@code dedup check} on JSON lines against the indexes of a real run over generated posts (known
 * clusters), and the prefilters kept in step through an applied run and a restore.
 */
@Tag("db")
class CheckIT extends DbTestSupport {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long RECORDS = 3_000;
  private static final List<String> COLUMNS =
      List.of("title", "category", "product", "region", "price", "contact", "phone", "content");

  /**
   * A post of a product the generator never makes, and a repost of it with another price and stock.
   */
  private static final Map<String, String> TRUFFLE = post("800元/斤", "约300斤");

  private static final Map<String, String> TRUFFLE_REPOST = post("850元/斤", "约280斤");

  @TempDir Path dir;
  private Path config;
  private final GroundTruth truth = new GroundTruth();

  private static Map<String, String> post(String price, String stock) {
    Map<String, String> post = new LinkedHashMap<>();
    post.put("title", "野生黑松露");
    post.put("category", "供应");
    post.put("product", "野生黑松露");
    post.put("region", "云南楚雄");
    post.put("price", price);
    post.put("contact", "欧阳先生");
    post.put("phone", "137 1234 5678");
    post.put(
        "content", "野生黑松露：供应云南楚雄野生黑松露" + stock + "，个大味浓，价格" + price + "，联系人欧阳先生，电话13712345678。");
    return post;
  }

  @BeforeEach
  void loadPosts() {
    PostLoader.reload(database(), 7L, RECORDS, null, n -> {}, truth::add);
    config = writeConfig(dir, "supply_demand", dir.resolve("index"), Map.of());
  }

  /** Runs {@code dedup check} with these lines on stdin; returns the verdicts in order. */
  private List<JsonNode> check(List<String> lines, List<String> errLines, String... extra)
      throws Exception {
    List<String> args = new ArrayList<>(List.of("check", "--config", config.toString()));
    args.addAll(List.of(extra));
    CliRun run = cliWithInput(lines, args.toArray(String[]::new));
    assertThat(run.exitCode()).as(run.err()).isZero();
    errLines.addAll(run.errLines());
    List<JsonNode> verdicts = new ArrayList<>();
    for (String line : run.out().split("\n")) {
      verdicts.add(JSON.readTree(line));
    }
    assertThat(verdicts).hasSize(lines.size());
    return verdicts;
  }

  private static String line(long id, Map<String, String> columns) {
    return line(id, columns, "2030-01-01T08:00");
  }

  private static String line(long id, Map<String, String> columns, String regTime) {
    ObjectNode node = JSON.createObjectNode();
    node.put("id", id);
    columns.forEach(node::put);
    node.put("reg_time", regTime);
    return node.toString();
  }

  /** Inserts a row of the sample table with these columns. */
  private static void insert(long id, Map<String, String> columns, String regTime) {
    withHandle(
        h ->
            h.createUpdate(
                    "INSERT INTO supply_demand (id, "
                        + String.join(", ", COLUMNS)
                        + ", reg_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                .bind(0, id)
                .bind(1, columns.get("title"))
                .bind(2, columns.get("category"))
                .bind(3, columns.get("product"))
                .bind(4, columns.get("region"))
                .bind(5, columns.get("price"))
                .bind(6, columns.get("contact"))
                .bind(7, columns.get("phone"))
                .bind(8, columns.get("content"))
                .bind(9, regTime)
                .execute());
  }

  /** A dry `run --method both` of the table: its decisions by removed id. */
  private Map<Long, JsonNode> dryRunRemovals() throws Exception {
    Path report = dir.resolve("dry");
    CliRun run =
        cli(
            "run",
            "--config",
            config.toString(),
            "--method",
            "both",
            "--report",
            report.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    Map<Long, JsonNode> removed = new HashMap<>();
    for (String line : Files.readAllLines(report.resolve("decisions.jsonl"))) {
      JsonNode decision = JSON.readTree(line);
      removed.put(decision.get("removed_id").asLong(), decision);
    }
    return removed;
  }

  /**
   * A row whose most similar near twin is older, in a near group whose kept row is newer: the run
   * removes it for the newer one, and check answers the same, passing over the twin it outranks.
   */
  @Test
  void check_aRowWhoseClosestNearTwinIsOlder_butAnotherIsNewer_isAnsweredAsTheRunDecides()
      throws Exception {
    insert(900_001, post("800元/斤", "约310斤"), "2030-01-01 08:00:00"); // closest, older
    insert(900_002, TRUFFLE_REPOST, "2030-01-03 08:00:00"); // less close, newer
    insert(900_003, TRUFFLE, "2030-01-02 08:00:00");
    Map<Long, JsonNode> removed = dryRunRemovals();
    assertThat(removed.get(900_003L).get("kept_id").asLong()).isEqualTo(900_002L);

    JsonNode verdict =
        check(List.of(line(900_003, TRUFFLE, "2030-01-02T08:00")), new ArrayList<>()).get(0);
    assertThat(verdict.get("verdict").asText()).isEqualTo("near");
    assertThat(verdict.get("kept_id").asLong()).isEqualTo(900_002L);
    assertThat(verdict.get("keep").asText()).isEqualTo("existing");
  }

  /**
   * A row the exact pass keeps over its older copy, which the near pass then removes for a newer
   * repost: the run removes it, and check answers the same (drop it for the repost), not "keep it
   * over the exact copy". Before, check stopped at the first method that found a twin.
   */
  @Test
  void check_aRowKeptOverItsExactCopy_butNearANewerRepost_isAnsweredAsTheRunDecides()
      throws Exception {
    insert(900_001, TRUFFLE, "2030-01-01 08:00:00");
    insert(900_002, TRUFFLE_REPOST, "2030-01-03 08:00:00");
    insert(900_003, TRUFFLE, "2030-01-02 08:00:00");
    Map<Long, JsonNode> removed = dryRunRemovals();
    assertThat(removed.get(900_001L).get("kept_id").asLong()).isEqualTo(900_002L);
    assertThat(removed.get(900_003L).get("rule").asText()).isEqualTo("near");
    assertThat(removed.get(900_003L).get("kept_id").asLong()).isEqualTo(900_002L);

    JsonNode verdict =
        check(List.of(line(900_003, TRUFFLE, "2030-01-02T08:00")), new ArrayList<>()).get(0);
    assertThat(verdict.get("verdict").asText()).isEqualTo("near");
    assertThat(verdict.get("kept_id").asLong()).isEqualTo(900_002L);
    assertThat(verdict.get("keep").asText()).isEqualTo("existing");
    // Its exact copy, older than both: dropped for the copy as before (the run re-points it).
    JsonNode older =
        check(List.of(line(900_001, TRUFFLE, "2030-01-01T08:00")), new ArrayList<>()).get(0);
    assertThat(older.get("verdict").asText()).isEqualTo("exact");
    assertThat(older.get("keep").asText()).isEqualTo("existing");
  }

  /**
   * A chain of two hops: a row's only newer near twin is removed by the run for a still newer post
   * that is no near duplicate of the row (another phone). The run keeps the row, and check answers
   * the same ("new"), not "drop it for the twin the run removes".
   */
  @Test
  void check_aRowWhoseNewerTwinTheRunRemovesForAnother_isNew_asTheRunKeepsIt() throws Exception {
    checkTheOldestOfAChainIsNew(
        withPhones("137 1234 5678，139 8765 4321", "13712345678、13987654321"));
    // The middle one goes to the newest, as in the run.
    JsonNode middle =
        check(
                List.of(
                    line(
                        900_002,
                        withPhones("137 1234 5678，139 8765 4321", "13712345678、13987654321"),
                        "2030-01-02T08:00")),
                new ArrayList<>())
            .get(0);
    assertThat(middle.get("verdict").asText()).isEqualTo("near");
    assertThat(middle.get("kept_id").asLong()).isEqualTo(900_003L);
    assertThat(middle.get("keep").asText()).isEqualTo("existing");
  }

  /**
   * The chain above, where the middle row also holds words no other row has (a lot number, a
   * grower's code). The pass looks a record's candidates up by its rarest keys held by another
   * record too; asked whether the run keeps the indexed middle row, check must do the same, not
   * spend its lookups on the keys only that row holds and miss the newer row it goes to.
   */
  @Test
  void check_aRowWhoseNewerTwinHoldsWordsOfItsOwn_isNew_asTheRunKeepsIt() throws Exception {
    Map<String, String> middle =
        withPhones("137 1234 5678，139 8765 4321", "13712345678、13987654321");
    middle.put("content", middle.get("content") + "批号xqkm，产区编号zrtw，品控kplv。");
    checkTheOldestOfAChainIsNew(middle);
  }

  /**
   * Rows 900_001 (one phone), {@code middle} (that phone and another) and 900_003 (the other), a
   * day apart: the run removes the middle row for the newest and keeps the oldest, and check of the
   * oldest answers "new".
   */
  private void checkTheOldestOfAChainIsNew(Map<String, String> middle) throws Exception {
    insert(900_001, withPhones("137 1234 5678", "13712345678"), "2030-01-01 08:00:00");
    insert(900_002, middle, "2030-01-02 08:00:00");
    insert(900_003, withPhones("139 8765 4321", "13987654321"), "2030-01-03 08:00:00");
    Map<Long, JsonNode> removed = dryRunRemovals();
    assertThat(removed.get(900_002L).get("kept_id").asLong()).isEqualTo(900_003L);
    assertThat(removed).doesNotContainKey(900_001L);

    JsonNode oldest =
        check(
                List.of(
                    line(900_001, withPhones("137 1234 5678", "13712345678"), "2030-01-01T08:00")),
                new ArrayList<>())
            .get(0);
    assertThat(oldest.get("verdict").asText()).isEqualTo("new");
  }

  /** {@link #TRUFFLE} with these phones in its phone column and its text. */
  private static Map<String, String> withPhones(String phoneColumn, String inText) {
    Map<String, String> post = new LinkedHashMap<>(TRUFFLE);
    post.put("phone", phoneColumn);
    post.put("content", post.get("content").replace("13712345678", inText));
    return post;
  }

  /** The sample columns of rows of a table (NULL kept as null), by id. */
  private static Map<Long, Map<String, String>> rows(String sql) {
    return withHandle(
        h -> {
          Map<Long, Map<String, String>> rows = new LinkedHashMap<>();
          h.createQuery(sql)
              .map(
                  (rs, ctx) -> {
                    Map<String, String> columns = new LinkedHashMap<>();
                    for (String c : COLUMNS) {
                      columns.put(c, rs.getString(c));
                    }
                    rows.put(rs.getLong("id"), columns);
                    return null;
                  })
              .list();
          return rows;
        });
  }

  @Test
  void check_afterAnAppliedBothRun_givesNewExactAndNearWithTheKeptIdsOfTheGroundTruth()
      throws Exception {
    CliRun run = cli("run", "--config", config.toString(), "--method", "both", "--apply");
    assertThat(run.exitCode()).as(run.err()).isZero();
    // Survivors: each is the only holder of its exact key now. Near-removed rows: each has a
    // survivor of
    // its own cluster (its kept record).
    Map<Long, Map<String, String>> survivors =
        rows("SELECT * FROM supply_demand ORDER BY id LIMIT 100");
    Map<Long, Map<String, String>> nearRemoved =
        rows("SELECT * FROM supply_demand_removed WHERE dedup_rule = 'near' ORDER BY id LIMIT 200");
    Map<Long, Long> keptOf = new LinkedHashMap<>();
    withHandle(
        h ->
            h.createQuery(
                    "SELECT id, dedup_kept_id FROM supply_demand_removed WHERE dedup_rule = 'near'")
                .map((rs, ctx) -> keptOf.put(rs.getLong(1), rs.getLong(2)))
                .list());
    assertThat(nearRemoved).hasSizeGreaterThan(50);

    List<String> lines = new ArrayList<>();
    long newId = 10_000_000;
    for (Map<String, String> columns : survivors.values()) {
      lines.add(line(newId++, columns));
    }
    for (Map<String, String> columns : nearRemoved.values()) {
      lines.add(line(newId++, columns));
    }
    lines.add(line(newId, TRUFFLE));
    List<String> err = new ArrayList<>();
    List<JsonNode> verdicts = check(lines, err);

    int i = 0;
    for (long id : survivors.keySet()) {
      JsonNode v = verdicts.get(i++);
      assertThat(v.get("verdict").asText()).as("copy of survivor %d", id).isEqualTo("exact");
      assertThat(v.get("kept_id").asLong()).isEqualTo(id);
      assertThat(v.get("score").asDouble()).isEqualTo(1.0);
    }
    int sameKept = 0;
    for (long id : nearRemoved.keySet()) {
      JsonNode v = verdicts.get(i++);
      assertThat(v.get("verdict").asText()).as("near-removed row %d", id).isEqualTo("near");
      long kept = v.get("kept_id").asLong();
      assertThat(truth.cluster(kept)).as("row %d -> %d", id, kept).isEqualTo(truth.cluster(id));
      assertThat(v.get("score").asDouble()).isBetween(0.6, 1.0);
      if (kept == keptOf.get(id)) {
        sameKept++;
      }
    }
    JsonNode fresh = verdicts.get(i);
    assertThat(fresh.get("verdict").asText()).isEqualTo("new");
    assertThat(fresh.get("kept_id").isNull()).isTrue();
    System.out.printf(
        "check IT: %d near-removed rows, %d with the run's kept id; %s%n",
        nearRemoved.size(), sameKept, err.get(err.size() - 1));
    // Survivors of one cluster are one record, so the check points where the run pointed.
    assertThat(sameKept).isEqualTo(nearRemoved.size());
    String summary = err.get(err.size() - 1);
    assertThat(summary).contains("near keys:");
    long nearSkipped =
        Long.parseLong(
            summary
                .replaceAll(".*near keys: [0-9,]+ index lookups, ([0-9,]+) skipped.*", "$1")
                .replace(",", ""));
    assertThat(nearSkipped).as("the truffle post's own keys are in no record").isPositive();
  }

  @Test
  void check_withAdd_laterLinesOfTheSameStreamAreExactAndNear_andTheNextProcessSeesThem()
      throws Exception {
    CliRun run = cli("run", "--config", config.toString(), "--method", "both");
    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> stream =
        List.of(line(900_001, TRUFFLE), line(900_002, TRUFFLE), line(900_003, TRUFFLE_REPOST));

    List<JsonNode> without = check(stream, new ArrayList<>());
    assertThat(without)
        .extracting(v -> v.get("verdict").asText())
        .containsExactly("new", "new", "new");

    List<JsonNode> with = check(stream, new ArrayList<>(), "--add");
    assertThat(with)
        .extracting(v -> v.get("verdict").asText())
        .containsExactly("new", "exact", "near");
    // Same time: the keep policy keeps the larger id, so each line supersedes its twin and is
    // added.
    assertThat(with).extracting(v -> v.get("keep").asText()).containsExactly("new", "new", "new");
    assertThat(with).extracting(v -> v.get("added").asBoolean()).containsExactly(true, true, true);
    assertThat(with.get(1).get("kept_id").asLong()).isEqualTo(900_001);
    assertThat(with.get(1).get("supersedes").toString()).isEqualTo("[900001]");
    assertThat(with.get(2).get("kept_id").asLong())
        .as("of two equally similar twins, the one kept")
        .isEqualTo(900_002);
    assertThat(with.get(2).get("score").asDouble()).isBetween(0.6, 1.0);

    List<String> err = new ArrayList<>();
    List<JsonNode> later =
        check(List.of(line(900_004, TRUFFLE), line(900_005, TRUFFLE_REPOST)), err);
    assertThat(later).extracting(v -> v.get("verdict").asText()).containsExactly("exact", "exact");
    assertThat(later)
        .extracting(v -> v.get("kept_id").asLong())
        .containsExactly(900_002L, 900_003L);
    assertThat(err)
        .as("the filters saved by --add are loaded, not rebuilt")
        .noneMatch(l -> l.contains("rebuilt"));
  }

  @Test
  void bothApplyThenRestore_savedFiltersEqualRebuildsCounterForCounter_andMissNoLiveKey()
      throws Exception {
    long rows =
        count("supply_demand"); // the generator never cuts a cluster: a few more than RECORDS
    CliRun run = cli("run", "--config", config.toString(), "--method", "both", "--apply");
    assertThat(run.exitCode()).as(run.err()).isZero();
    long runId =
        withHandle(h -> h.createQuery("SELECT MAX(id) FROM dedup_run").mapTo(Long.class).one());
    assertThat(count("supply_demand")).isLessThan(rows);

    CliRun restore = cli("restore", "--config", config.toString(), "--run", Long.toString(runId));

    assertThat(restore.exitCode()).as(restore.err()).isZero();
    assertThat(restore.err()).as("both filters followed the restore").doesNotContain("rebuilt");
    assertThat(count("supply_demand")).isEqualTo(rows);
    DedupConfig dedup = loadConfig(config);
    try (FingerprintIndex index =
            FingerprintIndex.open(dedup.indexDir(), dedup.fieldsDigest(), false);
        FingerprintIndex near =
            FingerprintIndex.open(
                dedup.indexDir().resolve(NearMethod.NAME),
                NearMethod.indexDigest(
                    dedup.fieldsDigest(), dedup.table(), NearSettings.of(dedup.methodSettings())),
                false)) {
      assertFilterInStep(true, index, dedup, rows);
      assertFilterInStep(false, near, dedup, rows);
    }
  }

  private static void assertFilterInStep(
      boolean exact, FingerprintIndex keyIndex, DedupConfig dedup, long rows) throws Exception {
    try (DirectoryReader reader = keyIndex.openReader()) {
      assertThat(reader.numDocs()).isEqualTo((int) rows);
      List<String> notes = new ArrayList<>();
      String kind = exact ? "EXACT" : "NEAR";
      java.nio.file.Path dir = dedup.indexDir().resolve(FilterFile.DIR);
      IndexKeyFilter saved =
          (exact ? RecordKeyFilter.KIND : NearKeyFilter.KIND)
              .openOrRebuild(dir, keyIndex.commitGeneration(), reader, 20, 8, notes::add);
      assertThat(notes).as("%s: the saved snapshot is for this generation", kind).isEmpty();
      assertThat(saved.sameCounters(saved.rebuiltFrom(reader))).as("%s counters", kind).isTrue();
      // No false negative: every key a live record holds is "maybe present".
      String field = exact ? IndexSchema.MD5 : NearSchema.KEY;
      Terms terms = MultiTerms.getTerms(reader, field);
      Bits live = MultiBits.getLiveDocs(reader);
      TermsEnum termsEnum = terms.iterator();
      long liveKeys = 0;
      for (BytesRef term = termsEnum.next(); term != null; term = termsEnum.next()) {
        PostingsEnum postings = termsEnum.postings(null, PostingsEnum.NONE);
        boolean held = false;
        for (int doc = postings.nextDoc();
            doc != PostingsEnum.NO_MORE_DOCS && !held;
            doc = postings.nextDoc()) {
          held = live == null || live.get(doc);
        }
        if (held) {
          liveKeys++;
          boolean maybe =
              exact
                  ? ((RecordKeyFilter) saved).mightContain(BytesRef.deepCopyOf(term).bytes)
                  : ((NearKeyFilter) saved).mightContain(NearSchema.decode(term)[0]);
          assertThat(maybe).as("%s key held by a live record", kind).isTrue();
        }
      }
      assertThat(liveKeys).isPositive();
      assertThat(saved.skipped()).isZero();
    }
  }
}
