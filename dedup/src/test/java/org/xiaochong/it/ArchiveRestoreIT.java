package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.cli.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;

/** Apply, then `dedup restore --run ID` through the CLI: the table is back row for row. */
@Tag("db")
class ArchiveRestoreIT extends DbTestSupport {
  private static final String TABLE = "supply_demand";

  @TempDir Path dir;

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
