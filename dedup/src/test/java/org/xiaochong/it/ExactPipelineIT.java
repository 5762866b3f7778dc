package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.LocalDateTime;
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
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.posts.GroundTruth;
import org.xiaochong.posts.PostGenerator;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.source.RecordSource;

/**
 * The exact pipeline on ~20k generated posts with known duplicate clusters, against a real MariaDB.
 */
@Tag("db")
class ExactPipelineIT extends DbTestSupport {
  private static final long SEED = 20240501L;
  private static final String TABLE = "supply_demand";

  @TempDir Path indexDir;

  private final GroundTruth truth = new GroundTruth();
  private final List<PostGenerator.Post> posts = new ArrayList<>();

  private long load(long records) {
    return PostLoader.reload(
        database(),
        SEED,
        records,
        null,
        n -> {},
        post -> {
          truth.add(post);
          posts.add(post);
        });
  }

  /**
   * Per cluster, the ids of its exact group (original and exact variants), from the generator's
   * truth.
   */
  private Map<Long, List<PostGenerator.Post>> exactGroups() {
    Map<Long, List<PostGenerator.Post>> groups = new HashMap<>();
    for (PostGenerator.Post post : posts) {
      if (truth.inExactGroup(post.id())) {
        groups.computeIfAbsent(post.cluster(), c -> new ArrayList<>()).add(post);
      }
    }
    return groups;
  }

  /**
   * The post the run keeps ({@link KeepPolicy}: greatest time, NULL oldest, then the greater id).
   */
  private static final Comparator<PostGenerator.Post> LATEST =
      (a, b) ->
          KeepPolicy.compare(
              RecordSource.toMillis(a.regTime()),
              a.id(),
              RecordSource.toMillis(b.regTime()),
              b.id());

  @Test
  void run_applyOnGeneratedPosts_removesExactlyTheExactDuplicatesKeepingTheLatest() {
    long loaded = load(20_000);
    assertThat(count(TABLE)).isEqualTo(loaded);

    DedupRunner.Outcome outcome = runExact(TABLE, indexDir, null, null, true);
    DeletionPlan plan = outcome.plan();
    long runId = outcome.summary().runId();

    GroundTruth.ExactCheck check = truth.checkExact(removals(plan));
    assertThat(check.expected()).as("the generator made exact duplicates").isGreaterThan(1000);
    assertThat(check.wrong()).isZero();
    assertThat(check.correct()).isEqualTo(check.expected());
    assertThat(outcome.summary().removed("exact")).isEqualTo(check.expected());
    assertThat(outcome.summary().removed("near")).isZero();
    assertThat(runId).isPositive();
    // nothing changed since the pass decided: every removal moved on the index's row states
    assertThat(outcome.summary().decidedAgain()).isZero();

    // Nothing else removed.
    assertThat(count(TABLE)).isEqualTo(loaded - check.expected());

    // The survivor of each exact group is its latest member (by the generator's own data).
    Set<Long> remaining = new HashSet<>(ids(TABLE));
    for (List<PostGenerator.Post> group : exactGroups().values()) {
      PostGenerator.Post latest = group.stream().max(LATEST).orElseThrow();
      List<Long> survivors =
          group.stream().map(PostGenerator.Post::id).filter(remaining::contains).toList();
      assertThat(survivors)
          .as("survivors of cluster %d", latest.cluster())
          .containsExactly(latest.id());
    }
    // Records outside exact groups (near variants, hard negatives) are all still there.
    for (PostGenerator.Post post : posts) {
      if (!truth.inExactGroup(post.id())) {
        assertThat(remaining).contains(post.id());
      }
    }

    // The archive: one row per removed record, rule exact, kept id = the plan's, run id = this run.
    Map<Long, Long> planned = new HashMap<>();
    for (int i = 0; i < plan.size(); i++) {
      planned.put(plan.removedId(i), plan.keptId(i));
    }
    List<Object[]> archived =
        DbTestSupport.<List<Object[]>>withHandle(
            h ->
                h.createQuery(
                        "SELECT id, dedup_kept_id, dedup_run_id, dedup_rule, dedup_score FROM supply_demand_removed ORDER BY id")
                    .map(
                        (rs, ctx) ->
                            new Object[] {
                              rs.getLong(1),
                              rs.getLong(2),
                              rs.getLong(3),
                              rs.getString(4),
                              rs.getDouble(5)
                            })
                    .list());
    assertThat(archived).hasSize(plan.size());
    Map<Long, Long> archivedKept = new HashMap<>();
    for (Object[] row : archived) {
      archivedKept.put((Long) row[0], (Long) row[1]);
      assertThat(row[2]).isEqualTo(runId);
      assertThat(row[3]).isEqualTo("exact");
      assertThat(row[4]).isEqualTo(1.0);
    }
    assertThat(archivedKept).isEqualTo(planned);
    assertThat(remaining).containsAll(archivedKept.values());

    // Checked in SQL too: every archived row is older than (or tied and lower id than) its kept
    // row.
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

    // The run log.
    Map<String, Object> run =
        DbTestSupport.<Map<String, Object>>withHandle(
            h ->
                h.createQuery(
                        "SELECT status, applied, r.removed AS exact_removed, records_read FROM dedup_run"
                            + " JOIN dedup_run_removed r ON r.run_id = id AND r.method = 'exact' WHERE id = ?")
                    .bind(0, runId)
                    .mapToMap()
                    .one());
    assertThat(run)
        .containsEntry("status", "applied")
        .containsEntry("exact_removed", check.expected())
        .containsEntry("records_read", loaded);
    long planRows =
        withHandle(
            h ->
                h.createQuery("SELECT COUNT(*) FROM dedup_plan WHERE run_id = ?")
                    .bind(0, runId)
                    .mapTo(Long.class)
                    .one());
    assertThat(planRows).as("plan dropped after apply").isZero();

    // A second run right after finds nothing more.
    DedupRunner.Outcome second = runExact(TABLE, indexDir, null, null, true);
    assertThat(second.summary().removed("exact")).isZero();
    assertThat(second.summary().indexAdded()).isZero();
    assertThat(count(TABLE)).isEqualTo(loaded - check.expected());
    assertThat(count(TABLE + "_removed")).isEqualTo(check.expected());
  }

  @Test
  void run_dryRun_changesNoRowAndWritesNoRunLog() {
    long loaded = load(5_000);
    database()
        .runScript(
            "/sql/dedup.sql"); // so that "no dedup_run row" is a real check, not a missing table
    List<List<String>> before = snapshot(TABLE);

    DedupRunner.Outcome outcome = runExact(TABLE, indexDir, null, null, false);

    assertThat(outcome.summary().applied()).isFalse();
    assertThat(outcome.summary().runId()).isZero();
    GroundTruth.ExactCheck check = truth.checkExact(removals(outcome.plan()));
    assertThat(check.expected()).isPositive();
    assertThat(check.correct()).isEqualTo(check.expected());
    assertThat(check.wrong()).isZero();
    assertThat(count(TABLE)).isEqualTo(loaded);
    assertThat(snapshot(TABLE)).isEqualTo(before);
    assertThat(count("dedup_run")).isZero();
    assertThat(count("dedup_plan")).isZero();
    assertThat(tableExists(TABLE + "_removed")).isFalse();
  }

  @Test
  void run_sinceMid2025_examinesExactlyTheRecordsOfTheWindow() {
    long loaded = load(2_000);
    LocalDateTime since = LocalDateTime.of(2025, 6, 1, 0, 0);
    long inWindow =
        posts.stream().filter(p -> p.regTime() != null && !p.regTime().isBefore(since)).count();
    DedupRunner.Outcome outcome = runExact(TABLE, indexDir, since, null, false);
    assertThat(outcome.summary().recordsRead()).isEqualTo(loaded);
    assertThat(outcome.summary().recordsExamined()).isEqualTo(inWindow).isLessThan(loaded);
  }
}
