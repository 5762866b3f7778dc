package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.posts.GroundTruth;
import org.xiaochong.posts.PostGenerator;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.run.RunSummary;
import org.xiaochong.source.TableSpec;

/**
 * The near-duplicate pass (--method both / near) on generated posts with known clusters, real
 * MariaDB.
 */
@Tag("db")
class NearPipelineIT extends DbTestSupport {
  static final long SEED = Long.getLong("near.it.seed", 7L);
  static final long RECORDS = Long.getLong("near.it.records", 8_000L);
  private static final String TABLE = "supply_demand";

  @TempDir Path indexDir;

  private final GroundTruth truth = new GroundTruth();
  private final Map<Long, PostGenerator.Post> posts = new HashMap<>();

  private long load() {
    return PostLoader.reload(
        database(),
        SEED,
        RECORDS,
        null,
        n -> {},
        post -> {
          truth.add(post);
          posts.put(post.id(), post);
        });
  }

  private static org.xiaochong.method.near.NearStats nearStats(
      org.xiaochong.run.RunSummary summary) {
    return summary
        .report("near")
        .flatMap(org.xiaochong.method.near.NearMethod::stats)
        .orElseThrow();
  }

  private DedupRunner.Outcome run(String method, boolean apply) {
    TableSpec spec = spec(TABLE);
    try (FingerprintIndex index =
        FingerprintIndex.open(indexDir.resolve("exact"), "it-near", false)) {
      return new DedupRunner(
              database(), spec, index, "0123456789abcdef0123456789abcdef", 2, Progress.NONE)
          .withMethodSettings("it-near", Map.of())
          .run(new DedupRunner.Options(method, null, null, apply, false));
    }
  }

  @Test
  void both_onGeneratedPosts_meetsPrecisionAndRecallTargetsAndKeepsTheLatestSurvivor() {
    long loaded = load();
    long firstOdd = loaded + 1;
    // Posts that segment to nothing: only punctuation, only emoji (twice each: near must not merge
    // them).
    insert(TABLE, firstOdd, "！！！", "。。。", null, "？？？……", LocalDateTime.of(2025, 1, 1, 0, 0));
    insert(TABLE, firstOdd + 1, "!!!", "...", null, "???", LocalDateTime.of(2025, 1, 2, 0, 0));
    insert(TABLE, firstOdd + 2, "😀😀", "🍎", null, "🍎🍎🍎👍", LocalDateTime.of(2025, 1, 1, 0, 0));
    insert(TABLE, firstOdd + 3, "😀", "🍏", null, "🍎👍", LocalDateTime.of(2025, 1, 2, 0, 0));

    DedupRunner.Outcome outcome = run("both", true);
    DeletionPlan plan = outcome.plan();
    RunSummary summary = outcome.summary();

    GroundTruth.ExactCheck exact = truth.checkExact(removals(plan));
    GroundTruth.NearCheck check = truth.checkAll(removals(plan));
    System.out.printf(
        "near IT seed %d, %d posts: exact %d/%d wrong %d; near removed %d, precision %.4f (near rule %.4f),"
            + " near recall %.4f, recall all %.4f, hard-negative merges %d; %s%n",
        SEED,
        loaded,
        exact.correct(),
        exact.expected(),
        exact.wrong(),
        summary.removed("near"),
        check.precision(),
        check.nearPrecision(),
        check.nearRecall(),
        check.recall(),
        check.hardNegativeMerges(),
        summary.toJson());

    assertThat(exact.wrong()).isZero();
    assertThat(exact.correct()).isEqualTo(exact.expected());
    assertThat(check.expectedNear()).as("the generator made near duplicates").isGreaterThan(300);
    assertThat(check.precision()).isGreaterThanOrEqualTo(0.99);
    assertThat(check.nearRecall()).isGreaterThanOrEqualTo(0.97);
    assertThat(check.hardNegativeMerges()).isZero();
    // No row changed since indexing, so no removal is decided again, not even the exact twins
    // re-pointed to a near survivor: they keep both rows' states.
    assertThat(nearStats(summary).repointed()).isPositive();
    assertThat(summary.decidedAgain()).isZero();

    // Odd posts: not removed by the near pass, counted as empty.
    for (int i = 0; i < plan.size(); i++) {
      assertThat(plan.removedId(i)).isLessThan(firstOdd);
      assertThat(plan.keptId(i)).isLessThan(firstOdd);
    }
    assertThat(nearStats(summary).emptyTotal()).isGreaterThanOrEqualTo(4);
    assertThat(nearStats(summary).empty()).containsKey("empty_after_segmentation");

    // Every kept record is still in the table and newer (or tied with a larger id).
    Long violations =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT COUNT(*) FROM supply_demand_removed r LEFT JOIN supply_demand k ON k.id = r.dedup_kept_id"
                            + " WHERE k.id IS NULL OR NOT "
                            + KeepPolicy.latest("reg_time")
                                .sqlPreferred("k", "r", "id", java.util.Set.of()))
                    .mapTo(Long.class)
                    .one());
    assertThat(violations).isZero();
    assertThat(count("supply_demand_removed")).isEqualTo(plan.size());
    List<Object[]> nearRows =
        DbTestSupport.<List<Object[]>>withHandle(
            h ->
                h.createQuery(
                        "SELECT dedup_rule, dedup_score FROM supply_demand_removed WHERE dedup_rule = 'near'")
                    .map((rs, ctx) -> new Object[] {rs.getString(1), rs.getDouble(2)})
                    .list());
    assertThat(nearRows).hasSize((int) summary.removed("near"));
    for (Object[] row : nearRows) {
      assertThat((Double) row[1]).isBetween(NearConfig.DEFAULT_MIN_SIMILARITY - 1e-6, 1.0);
    }

    // A second run finds nothing more.
    DedupRunner.Outcome again = run("both", true);
    assertThat(again.plan().size()).isZero();
  }

  @Test
  void nearAlone_onGeneratedPosts_removesExactAndNearCopiesWithoutWrongMerges() {
    load();
    DedupRunner.Outcome outcome = run("near", false);
    GroundTruth.NearCheck check = truth.checkAll(removals(outcome.plan()));
    System.out.printf(
        "near IT --method near seed %d: removed %d, precision %.4f, recall all %.4f, hard-negative merges %d%n",
        SEED, outcome.plan().size(), check.precision(), check.recall(), check.hardNegativeMerges());
    assertThat(outcome.summary().removed("exact")).isZero();
    assertThat(check.precision()).isGreaterThanOrEqualTo(0.99);
    assertThat(check.recall()).isGreaterThanOrEqualTo(0.97);
    assertThat(check.hardNegativeMerges()).isZero();
  }
}
