package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.posts.GroundTruth;
import org.xiaochong.posts.PostGenerator;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * keep.policy against a real MariaDB: earliest on the demo's generated posts keeps the oldest post
 * of every true cluster; a custom column with NULLs and ties decides before the time; the SQL form
 * of every policy agrees with the Java comparator on NULLs, zero dates and ties; a changed policy
 * value is picked up by the next sync.
 */
@Tag("db")
class KeepPolicyIT extends DbTestSupport {
  private static final long SEED = 20081118L;
  private static final String TABLE = "supply_demand";

  @TempDir Path indexDir;

  private final GroundTruth truth = new GroundTruth();
  private final Map<Long, PostGenerator.Post> posts = new HashMap<>();

  private long load(long records) {
    return PostLoader.reload(
        database(),
        SEED,
        records,
        null,
        n -> {},
        post -> {
          truth.add(post);
          posts.put(post.id(), post);
        });
  }

  private DedupRunner.Outcome run(TableSpec spec, String method, boolean apply, String index) {
    try (FingerprintIndex fingerprints =
        FingerprintIndex.open(indexDir.resolve(index), "it-keep", false)) {
      return new DedupRunner(
              database(), spec, fingerprints, "0123456789abcdef0123456789abcdef", 2, Progress.NONE)
          .withMethodSettings("it-keep", Map.of())
          .run(new DedupRunner.Options(method, null, null, apply, false));
    }
  }

  private static Comparator<PostGenerator.Post> byPolicy(
      KeepPolicy policy, Map<Long, Map<String, Object>> values) {
    return (a, b) ->
        KeepPolicy.compare(
            policy.rank(RecordSource.toMillis(a.regTime()), values.getOrDefault(a.id(), Map.of())),
            a.id(),
            policy.rank(RecordSource.toMillis(b.regTime()), values.getOrDefault(b.id(), Map.of())),
            b.id());
  }

  @Test
  void earliest_onTheDemoPosts_keepsTheOldestOfEveryTrueCluster() {
    load(20_000);
    KeepPolicy earliest = KeepPolicy.parse("earliest", "reg_time");
    DedupRunner.Outcome outcome =
        run(spec(TABLE).withKeepPolicy(earliest), "both", false, "earliest");
    DeletionPlan plan = outcome.plan();

    GroundTruth.ExactCheck exact = truth.checkExact(removals(plan));
    GroundTruth.NearCheck all = truth.checkAll(removals(plan));
    assertThat(exact.wrong()).isZero();
    assertThat(exact.correct()).isEqualTo(exact.expected());
    assertThat(all.precision()).isGreaterThanOrEqualTo(0.99);
    assertThat(all.nearRecall()).isGreaterThanOrEqualTo(0.97);

    Map<Long, Long> keptFor = new HashMap<>();
    for (int i = 0; i < plan.size(); i++) {
      keptFor.put(plan.removedId(i), plan.keptId(i));
    }
    // Every removal keeps the older post (or, at the same time, the larger id; a post without a
    // time never wins).
    Comparator<PostGenerator.Post> oldestFirst = byPolicy(earliest, Map.of());
    keptFor.forEach(
        (removed, kept) ->
            assertThat(oldestFirst.compare(posts.get(kept), posts.get(removed)))
                .as("%d kept over %d", kept, removed)
                .isPositive());
    // Per true cluster, its oldest post stays, and where the run found the whole cluster it is the
    // only one left.
    Map<Long, List<PostGenerator.Post>> clusters = new HashMap<>();
    posts
        .values()
        .forEach(
            post ->
                clusters
                    .computeIfAbsent(truth.cluster(post.id()), c -> new ArrayList<>())
                    .add(post));
    int groups = 0;
    int wholeGroups = 0;
    int differFromLatest = 0;
    Comparator<PostGenerator.Post> latestFirst = byPolicy(KeepPolicy.latest("reg_time"), Map.of());
    for (List<PostGenerator.Post> cluster : clusters.values()) {
      if (cluster.size() < 2) {
        continue;
      }
      groups++;
      PostGenerator.Post oldest = cluster.stream().max(oldestFirst).orElseThrow();
      assertThat(keptFor)
          .as("the oldest post of cluster %d", oldest.cluster())
          .doesNotContainKey(oldest.id());
      List<Long> left =
          cluster.stream()
              .map(PostGenerator.Post::id)
              .filter(id -> !keptFor.containsKey(id))
              .toList();
      if (left.size() == 1) {
        wholeGroups++;
      }
      if (cluster.stream().max(latestFirst).orElseThrow() != oldest) {
        differFromLatest++;
      }
    }
    System.out.printf(
        "keep.policy=earliest, %d posts: %d clusters, %d left with only their oldest post, %d whose"
            + " latest post is another; precision %.4f, near recall %.4f%n",
        posts.size(), groups, wholeGroups, differFromLatest, all.precision(), all.nearRecall());
    assertThat(groups).isGreaterThan(3000);
    assertThat(wholeGroups).isGreaterThanOrEqualTo((int) (0.97 * groups));
    assertThat(differFromLatest)
        .as("earliest and latest keep different posts")
        .isGreaterThan(groups / 2);

    // The SQL form agrees on every removal of the plan: the kept row is preferred, in SQL too.
    String condition = earliest.sqlPreferred("k", "r", "id", Set.of());
    long disagreements = 0;
    for (int i = 0; i < plan.size(); i++) {
      long removed = plan.removedId(i);
      long kept = plan.keptId(i);
      disagreements +=
          withHandle(
              h ->
                  h.createQuery(
                          "SELECT COUNT(*) FROM supply_demand r JOIN supply_demand k"
                              + " WHERE r.id = ? AND k.id = ? AND NOT "
                              + condition)
                      .bind(0, removed)
                      .bind(1, kept)
                      .mapTo(Long.class)
                      .one());
    }
    assertThat(disagreements).isZero();
  }

  /** paid: 1 for ids divisible by 7, NULL for ids divisible by 5 (but not 7), else 0. */
  private static Object paidOf(long id) {
    if (id % 7 == 0) {
      return 1;
    }
    return id % 5 == 0 ? null : 0;
  }

  @Test
  void customColumn_withNullsAndTies_decidesBeforeTheTime_andAChangedValueIsPickedUpByTheSync() {
    load(5_000);
    useHandle(
        h -> {
          h.execute("ALTER TABLE supply_demand ADD COLUMN paid TINYINT(1) NULL");
          h.execute(
              "UPDATE supply_demand SET paid = CASE WHEN id % 7 = 0 THEN 1 WHEN id % 5 = 0 THEN NULL ELSE 0 END");
        });
    KeepPolicy paid = KeepPolicy.parse("paid desc, reg_time desc", "reg_time");
    TableSpec spec = spec(TABLE).withKeepPolicy(paid);
    DeletionPlan plan = run(spec, "exact", false, "paid").plan();
    assertThat(truth.checkExact(removals(plan)).wrong()).isZero();

    Map<Long, Map<String, Object>> values = new HashMap<>();
    posts
        .keySet()
        .forEach(
            id -> {
              Map<String, Object> row = new HashMap<>();
              row.put("paid", paidOf(id));
              values.put(id, row);
            });
    Comparator<PostGenerator.Post> preferred = byPolicy(paid, values);
    Set<Long> removed = new HashSet<>();
    for (int i = 0; i < plan.size(); i++) {
      removed.add(plan.removedId(i));
    }
    Map<Long, List<PostGenerator.Post>> exactGroups = new HashMap<>();
    posts.values().stream()
        .filter(p -> truth.inExactGroup(p.id()))
        .forEach(p -> exactGroups.computeIfAbsent(p.cluster(), c -> new ArrayList<>()).add(p));
    int paidKeptOverNewer = 0;
    long groupToChange = -1;
    for (List<PostGenerator.Post> group : exactGroups.values()) {
      if (group.size() < 2) {
        continue;
      }
      PostGenerator.Post best = group.stream().max(preferred).orElseThrow();
      assertThat(
              group.stream()
                  .map(PostGenerator.Post::id)
                  .filter(id -> !removed.contains(id))
                  .toList())
          .as("survivors of cluster %d", best.cluster())
          .containsExactly(best.id());
      if (paidOf(best.id()) != null
          && paidOf(best.id()).equals(1)
          && !group.stream()
              .max(byPolicy(KeepPolicy.latest("reg_time"), Map.of()))
              .orElseThrow()
              .equals(best)) {
        paidKeptOverNewer++;
      }
      if (groupToChange < 0
          && group.size() == 2
          && paidOf(best.id()) != null
          && paidOf(best.id()).equals(0)) {
        groupToChange = best.cluster();
      }
    }
    assertThat(paidKeptOverNewer).as("paid posts kept over newer unpaid twins").isPositive();

    // The SQL form agrees with the plan, NULL paid included.
    String condition = paid.sqlPreferred("k", "r", "id", Set.of());
    for (int i = 0; i < plan.size(); i++) {
      long r = plan.removedId(i);
      long k = plan.keptId(i);
      boolean keptInSql =
          DbTestSupport.<Boolean>withHandle(
              h ->
                  h.createQuery(
                          "SELECT "
                              + condition
                              + " FROM supply_demand r JOIN supply_demand k WHERE r.id = ? AND k.id = ?")
                      .bind(0, r)
                      .bind(1, k)
                      .mapTo(Boolean.class)
                      .one());
      assertThat(keptInSql).as("%d kept over %d in SQL", k, r).isTrue();
    }

    // Pay for the loser of a pair of twins: the sync sees the row changed (the checksum covers
    // paid),
    // indexes it again with its new rank, and the next run keeps it instead.
    long cluster = groupToChange;
    List<PostGenerator.Post> pair = exactGroups.get(cluster);
    PostGenerator.Post loser = pair.stream().min(preferred).orElseThrow();
    PostGenerator.Post winner = pair.stream().max(preferred).orElseThrow();
    useHandle(h -> h.execute("UPDATE supply_demand SET paid = 1 WHERE id = ?", loser.id()));
    DedupRunner.Outcome again = run(spec, "exact", false, "paid");
    assertThat(again.summary().indexChanged()).isEqualTo(1);
    Map<Long, Long> keptFor = new HashMap<>();
    for (int i = 0; i < again.plan().size(); i++) {
      keptFor.put(again.plan().removedId(i), again.plan().keptId(i));
    }
    assertThat(keptFor).containsEntry(winner.id(), loser.id()).doesNotContainKey(loser.id());
  }

  /**
   * For every pair of rows of a table made of NULLs, zero dates and ties, under five policies: the
   * SQL condition ({@link KeepPolicy#sqlPreferred}) says "preferred" exactly when the Java
   * comparator does on the rows as the record source reads them.
   */
  @Test
  void sqlForm_agreesWithTheComparator_onNullsZeroDatesAndTies() {
    useHandle(
        h -> {
          h.execute("DROP TABLE IF EXISTS keep_sql");
          h.execute("SET SESSION sql_mode = ''"); // to store zero dates, as a lenient server does
          h.execute(
              "CREATE TABLE keep_sql (id BIGINT PRIMARY KEY, title VARCHAR(20), reg_time DATETIME NULL,"
                  + " paid TINYINT(1) NULL, score BIGINT NULL, seen DATE NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4");
          String[] times = {
            "NULL",
            "'0000-00-00 00:00:00'",
            "'2024-00-00 00:00:00'",
            "'2020-01-01 00:00:00'",
            "'2024-05-01 08:00:00'"
          };
          String[] paids = {"NULL", "0", "1"};
          String[] scores = {"NULL", "-9223372036854775807", "0", "9223372036854775806"};
          String[] seens = {"NULL", "'0000-00-00'", "'2023-01-01'", "'2024-01-01'"};
          long id = 1;
          for (String time : times) {
            for (String paidValue : paids) {
              // two rows of each combination: ties broken by the id
              for (int copy = 0; copy < 2; copy++) {
                String score = scores[(int) (id % scores.length)];
                String seen = seens[(int) ((id / 2) % seens.length)];
                h.execute(
                    "INSERT INTO keep_sql VALUES ("
                        + id
                        + ", 't', "
                        + time
                        + ", "
                        + paidValue
                        + ", "
                        + score
                        + ", "
                        + seen
                        + ")");
                id++;
              }
            }
          }
          h.execute(
              "SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_AUTO_VALUE_ON_ZERO,NO_ENGINE_SUBSTITUTION'");
        });
    for (String text :
        List.of(
            "latest",
            "earliest",
            "paid desc, reg_time desc",
            "paid asc, reg_time asc",
            "score asc, seen desc",
            "seen, paid, reg_time asc")) {
      KeepPolicy policy = KeepPolicy.parse(text, "reg_time");
      TableSpec spec =
          new TableSpec("keep_sql", "id", "reg_time", List.of("title"), List.of())
              .withKeepPolicy(policy);
      RecordSource source = new RecordSource(database(), spec);
      source.checkSchema();
      Map<Long, long[]> ranks = new HashMap<>();
      source.forEachRecord(
          (SourceRecord record) ->
              ranks.put(record.id(), policy.rank(record, spec.fingerprintColumns())));
      assertThat(ranks).hasSize(30);
      String condition = policy.sqlPreferred("b", "a", "id", Set.of("seen"));
      List<long[]> preferredInSql =
          withHandle(
              h ->
                  h.createQuery(
                          "SELECT a.id, b.id, " + condition + " FROM keep_sql a JOIN keep_sql b")
                      .map((rs, ctx) -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)})
                      .list());
      assertThat(preferredInSql).hasSize(900);
      for (long[] row : preferredInSql) {
        boolean inJava =
            KeepPolicy.isPreferred(ranks.get(row[1]), row[1], ranks.get(row[0]), row[0]);
        assertThat(row[2] == 1)
            .as("%s: %d preferred over %d", text, row[1], row[0])
            .isEqualTo(inJava);
      }
    }
  }

  @Test
  void policyColumns_areValidatedAgainstTheTable_inOneLine() {
    load(10);
    TableSpec missing = spec(TABLE).withKeepPolicy(KeepPolicy.parse("paid desc", "reg_time"));
    assertThatThrownBy(() -> new RecordSource(database(), missing).checkSchema())
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining(
            "keep.policy names column 'paid' that table 'supply_demand' does not have");
    TableSpec text = spec(TABLE).withKeepPolicy(KeepPolicy.parse("title desc", "reg_time"));
    assertThatThrownBy(() -> new RecordSource(database(), text).checkSchema())
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("keep.policy column 'title'")
        .hasMessageContaining("must be an integer");
  }

  /**
   * Through the command line: an index built under latest refuses a config with another policy (one
   * line naming keep.policy, exit 2, nothing planned) until it is rebuilt; then run and check keep
   * the earliest twin.
   */
  @Test
  void changedPolicy_refusesTheOldIndexUntilRebuilt_thenRunAndCheckKeepTheEarliest(
      @TempDir Path dir) {
    createPostsTable("keep_cli");
    insert(
        "keep_cli",
        1,
        "供应红富士苹果",
        "苹果",
        "13800138000",
        "本人有红富士苹果约3000斤",
        java.time.LocalDateTime.of(2024, 1, 1, 0, 0));
    insert(
        "keep_cli",
        2,
        "供应红富士苹果",
        "苹果",
        "13800138000",
        "本人有红富士苹果约3000斤",
        java.time.LocalDateTime.of(2024, 3, 1, 0, 0));
    insert("keep_cli", 3, "供应红富士苹果", "苹果", "13800138000", "本人有红富士苹果约3000斤", null);
    Path index = dir.resolve("index");
    Path latest = writeConfig(dir, "keep_cli", index, Map.of());
    CliRun first =
        cli("run", "--config", latest.toString(), "--report", dir.resolve("latest").toString());
    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(first.out() + first.err()).contains("exact: 1 groups, 2 duplicates");

    Path earliest = writeConfig(dir, "keep_cli", index, Map.of("keep.policy", "earliest"));
    CliRun refused = cli("run", "--config", earliest.toString());
    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.errLines()).hasSize(1);
    assertThat(refused.err()).contains("keep policy").contains("--rebuild");
    CliRun refusedCheck =
        cliWithInput(List.of("{\"title\":\"x\"}"), "check", "--config", earliest.toString());
    assertThat(refusedCheck.exitCode()).isEqualTo(2);

    CliRun rebuilt =
        cli(
            "run",
            "--config",
            earliest.toString(),
            "--rebuild-index",
            "--report",
            dir.resolve("earliest").toString());
    assertThat(rebuilt.exitCode()).as(rebuilt.err()).isZero();
    List<String> decisions = readLines(dir.resolve("earliest").resolve("decisions.jsonl"));
    assertThat(decisions).hasSize(2).allSatisfy(line -> assertThat(line).contains("\"kept_id\":1"));
    assertThat(readLines(dir.resolve("latest").resolve("decisions.jsonl")))
        .allSatisfy(line -> assertThat(line).contains("\"kept_id\":2"));

    CliRun checked =
        cliWithInput(
            List.of(
                "{\"id\":9,\"title\":\"供应红富士苹果\",\"category\":\"供应\",\"product\":\"苹果\","
                    + "\"region\":\"山东烟台\",\"price\":\"2.50元/斤\",\"contact\":\"王先生\",\"phone\":\"13800138000\","
                    + "\"content\":\"本人有红富士苹果约3000斤\"}"),
            "check",
            "--config",
            earliest.toString(),
            "--method",
            "exact");
    assertThat(checked.exitCode()).as(checked.err()).isZero();
    assertThat(checked.out()).contains("\"verdict\":\"exact\"").contains("\"kept_id\":1");
  }

  /**
   * The apply decides a changed row again by the keep policy, on the policy's columns as they are
   * now: a removal planned for the paid twin moves while it is paid, and stays when, after the
   * plan, the removed twin became the paid one (under latest it would move: the kept twin is the
   * newer).
   */
  @Test
  void apply_decidesAChangedRowAgainByThePolicy_onThePolicyColumnsAsTheyAreNow() {
    KeepPolicy paid = KeepPolicy.parse("paid desc, reg_time desc", "reg_time");
    for (boolean paidMovesToTheRemovedTwin : new boolean[] {false, true}) {
      String table = paidMovesToTheRemovedTwin ? "keep_apply_moved" : "keep_apply_same";
      createPostsTable(table);
      String apple = "本人有红富士苹果约3000斤，果面光洁，口感脆甜，欢迎来电";
      insert(
          table,
          1,
          "供应红富士苹果",
          "苹果",
          "13800138000",
          apple,
          java.time.LocalDateTime.of(2024, 5, 1, 8, 0));
      insert(
          table,
          2,
          "供应红富士苹果",
          "苹果",
          "13800138000",
          apple,
          java.time.LocalDateTime.of(2024, 5, 2, 8, 0));
      useHandle(
          h -> {
            h.execute("ALTER TABLE " + table + " ADD COLUMN paid TINYINT(1) NULL");
            h.execute("UPDATE " + table + " SET paid = IF(id = 2, 1, 0)");
          });
      TableSpec spec = spec(table).withKeepPolicy(paid);
      org.xiaochong.archive.ArchiveTables archive =
          org.xiaochong.archive.ArchiveTables.ensure(
              database(), spec, new RecordSource(database(), spec).checkSchema());
      org.xiaochong.archive.PlanMover mover =
          new org.xiaochong.archive.PlanMover(
              archive,
              org.xiaochong.method.FingerprintMethods.pairChecks(
                  new org.xiaochong.method.MethodContext(
                      spec,
                      null,
                      "",
                      org.xiaochong.prefilter.PrefilterSettings.DEFAULT,
                      false,
                      1,
                      null,
                      Progress.NONE,
                      note -> {},
                      Map.of())));
      if (paidMovesToTheRemovedTwin) {
        useHandle(h -> h.execute("UPDATE " + table + " SET paid = IF(id = 1, 1, NULL)"));
      }
      DeletionPlan plan = new DeletionPlan();
      plan.add(1, 2, DeletionPlan.Rule.of("exact"), 1.0); // no row states: the apply decides again
      long runId =
          new org.xiaochong.archive.RunLog(database(), table)
              .startRun("exact", true, "0123456789abcdef0123456789abcdef", null, null);
      org.xiaochong.archive.PlanMover.Applied applied =
          mover.writePlanAndApply(runId, plan, n -> {});
      if (paidMovesToTheRemovedTwin) {
        assertThat(applied.skippedChanged()).isEqualTo(1);
        assertThat(ids(table)).containsExactly(1L, 2L);
      } else {
        assertThat(applied.skippedChanged()).isZero();
        assertThat(ids(table)).containsExactly(2L);
      }
    }
  }

  private static List<String> readLines(Path file) {
    try {
      return java.nio.file.Files.readAllLines(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
