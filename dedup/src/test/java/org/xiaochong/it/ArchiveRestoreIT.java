package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;

/** Apply, then `dedup restore --run ID` through the CLI: the table is back row for row. */
@Tag("db")
class ArchiveRestoreIT extends DbTestSupport {
  private static final String TABLE = "supply_demand";

  @TempDir Path dir;

  /**
   * The site deletes a kept row while the apply starts: its removed twin is `gone` (not moved), is
   * still in the table, and is in the index again afterwards, so check and the next run see it.
   */
  @Test
  void apply_keptRowDeletedBeforeItsBatch_goneRowStaysAndIsIndexedAgain() throws IOException {
    String table = "gone_kept";
    createPostsTable(table);
    LocalDateTime old = LocalDateTime.of(2024, 5, 1, 8, 0);
    insert(table, 1, "供应红富士苹果", "苹果", "13800138000", "本人有红富士苹果约3000斤", old);
    insert(table, 2, "供应红富士苹果", "苹果", "13800138000", "本人有红富士苹果约3000斤", old.plusDays(1));
    insert(table, 3, "求购大蒜", "大蒜", "13900139000", "求购大蒜十吨", old);
    Progress siteDeletesKeptRow =
        (task, total) -> {
          if (task.equals("apply")) {
            useHandle(h -> h.execute("DELETE FROM gone_kept WHERE id = 2"));
          }
          return Progress.NONE.start(task, total);
        };
    Path indexDir = dir.resolve("index-gone");
    try (FingerprintIndex index = FingerprintIndex.open(indexDir, "it-gone", false)) {
      DedupRunner.Outcome outcome =
          new DedupRunner(
                  database(),
                  spec(table),
                  index,
                  "0123456789abcdef0123456789abcdef",
                  2,
                  siteDeletesKeptRow)
              .run(new DedupRunner.Options("exact", null, null, true, false));
      assertThat(outcome.notMoved())
          .containsEntry(1L, org.xiaochong.archive.PlanMover.Outcome.GONE);
    }
    assertThat(ids(table)).containsExactly(1L, 3L);
    assertThat(indexIds(indexDir)).containsExactlyInAnyOrder(1L, 3L);
  }

  /** The ids of the live records of an index (its id doc values). */
  private static List<Long> indexIds(Path dir) throws IOException {
    List<Long> ids = new java.util.ArrayList<>();
    try (org.apache.lucene.store.FSDirectory directory =
            org.apache.lucene.store.FSDirectory.open(dir);
        org.apache.lucene.index.DirectoryReader reader =
            org.apache.lucene.index.DirectoryReader.open(directory)) {
      for (org.apache.lucene.index.LeafReaderContext leaf : reader.leaves()) {
        org.apache.lucene.util.Bits live = leaf.reader().getLiveDocs();
        org.apache.lucene.index.NumericDocValues values =
            leaf.reader().getNumericDocValues(org.xiaochong.index.IndexSchema.ID);
        for (int doc = values.nextDoc();
            doc != org.apache.lucene.search.DocIdSetIterator.NO_MORE_DOCS;
            doc = values.nextDoc()) {
          if (live == null || live.get(doc)) {
            ids.add(values.longValue());
          }
        }
      }
    }
    return ids;
  }

  /**
   * dedup_run emptied or re-created (its ids start again) while the archive keeps old runs' rows:
   * the next applied run takes an id above the archive's, so its restore puts back its rows only.
   */
  @Test
  void apply_archiveHoldsTheNextRunId_newRunTakesAnotherId_restorePutsBackOnlyItsRows() {
    String table = "reused_id";
    createPostsTable(table);
    LocalDateTime old = LocalDateTime.of(2024, 5, 1, 8, 0);
    insert(table, 1, "供应红富士苹果", "苹果", "13800138000", "本人有红富士苹果约3000斤", old);
    insert(table, 2, "供应红富士苹果", "苹果", "13800138000", "本人有红富士苹果约3000斤", old.plusDays(1));
    Path config = writeConfig(dir, table, dir.resolve("index-reused"), Map.of());
    assertThat(cli("run", "--config", config.toString(), "--apply").exitCode()).isZero();
    // As if dedup_run had been emptied: the archived row now carries the id the next run would get.
    long nextId =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT AUTO_INCREMENT FROM information_schema.tables"
                            + " WHERE table_schema = DATABASE() AND table_name = 'dedup_run'")
                    .mapTo(Long.class)
                    .one());
    useHandle(h -> h.execute("UPDATE reused_id_removed SET dedup_run_id = ?", nextId));
    insert(table, 3, "求购大蒜", "大蒜", "13900139000", "求购大蒜十吨", old);
    insert(table, 4, "求购大蒜", "大蒜", "13900139000", "求购大蒜十吨", old.plusDays(1));

    CliRun run = cli("run", "--config", config.toString(), "--apply");

    assertThat(run.exitCode()).as(run.err()).isZero();
    long runId = lastRunId(table);
    assertThat(runId).isGreaterThan(nextId);
    CliRun restore = cli("restore", "--config", config.toString(), "--run", Long.toString(runId));
    assertThat(restore.exitCode()).as(restore.err()).isZero();
    assertThat(ids(table)).containsExactly(2L, 3L, 4L); // row 1 stays archived under the old id
  }

  @Test
  void restore_afterApply_tableEqualsSnapshotAndArchiveEmpty() throws IOException {
    long loaded = PostLoader.reload(database(), 7L, 4_000, null, n -> {}, p -> {});
    List<List<String>> before = snapshot(TABLE);
    assertThat(before).hasSize((int) loaded);

    Path indexDir = dir.resolve("index");
    Path config = writeConfig(dir, TABLE, indexDir, Map.of());
    DedupConfig dedupConfig = loadConfig(config);
    long runId;
    long removed;
    // Apply in-process with exactly the index (path and fields digest) the CLI will open.
    try (FingerprintIndex index =
        FingerprintIndex.open(indexDir, dedupConfig.fieldsDigest(), false)) {
      DedupRunner.Outcome outcome =
          new DedupRunner(
                  database(), dedupConfig.table(), index, dedupConfig.digest(), 2, Progress.NONE)
              .run(new DedupRunner.Options("exact", null, null, true, false));
      runId = outcome.summary().runId();
      removed = outcome.summary().removed("exact");
    }
    assertThat(removed).isPositive();
    assertThat(count(TABLE)).isEqualTo(loaded - removed);
    assertThat(archivedRows(runId)).isEqualTo(removed);
    assertThat(indexCount(indexDir)).isEqualTo((int) (loaded - removed));

    CliRun restore = cli("restore", "--config", config.toString(), "--run", Long.toString(runId));

    assertThat(restore.exitCode()).as(restore.err()).isZero();
    assertThat(restore.out())
        .contains("restored " + String.format("%,d", removed) + " rows of run " + runId);
    assertThat(snapshot(TABLE)).isEqualTo(before);
    assertThat(archivedRows(runId)).isZero();
    assertThat(indexCount(indexDir)).isEqualTo((int) count(TABLE));
    String status =
        withHandle(
            h ->
                h.createQuery("SELECT status FROM dedup_run WHERE id = ?")
                    .bind(0, runId)
                    .mapTo(String.class)
                    .one());
    assertThat(status).isEqualTo("restored");
  }

  @Test
  void restore_unknownRun_exitCode2OneLine() {
    PostLoader.reload(database(), 7L, 100, null, n -> {}, p -> {});
    long rows = count(TABLE);
    Path config = writeConfig(dir, TABLE, dir.resolve("index"), Map.of());

    CliRun restore = cli("restore", "--config", config.toString(), "--run", "987654");

    assertThat(restore.exitCode()).isEqualTo(2);
    assertThat(restore.errLines()).singleElement().asString().contains("987654");
    assertThat(count(TABLE)).isEqualTo(rows);
  }

  private static long archivedRows(long runId) {
    return withHandle(
        h ->
            h.createQuery("SELECT COUNT(*) FROM supply_demand_removed WHERE dedup_run_id = ?")
                .bind(0, runId)
                .mapTo(Long.class)
                .one());
  }
}
