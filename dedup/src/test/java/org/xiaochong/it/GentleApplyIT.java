package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.ApplySettings;
import org.xiaochong.archive.ArchiveTables;
import org.xiaochong.archive.Restorer;
import org.xiaochong.archive.RowsMovedException;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.run.TableLock;
import org.xiaochong.source.RecordSource;

/**
 * An apply on a live table: the site holds row locks, re-inserts an archived id, or a session ends
 * under the run; the apply gives way, resumes, or stops, and loses nothing.
 */
@Tag("db")
class GentleApplyIT extends DbTestSupport {
  private static final LocalDateTime OLD = LocalDateTime.of(2024, 5, 1, 8, 0);
  private static final LocalDateTime NEW = LocalDateTime.of(2024, 5, 2, 8, 0);

  @TempDir Path dir;

  /**
   * Threads of the test's other sessions: its own, as the common pool may be busy with other tests'
   * tasks.
   */
  private final java.util.concurrent.ExecutorService sessions =
      java.util.concurrent.Executors.newCachedThreadPool();

  @org.junit.jupiter.api.AfterEach
  void stopSessions() {
    sessions.shutdownNow();
  }

  /** Pairs of identical posts: ids 2p-1 (older, removed) and 2p (newer, kept), p = 1..pairs. */
  private static void twinPairs(String table, int pairs) {
    createPostsTable(table);
    for (int p = 1; p <= pairs; p++) {
      String content = "本人有红富士苹果约" + (1000 + p) + "斤，果面光洁，口感脆甜，欢迎来电";
      insert(table, 2L * p - 1, "供应红富士苹果", "苹果", "1380013" + (8000 + p), content, OLD);
      insert(table, 2L * p, "供应红富士苹果", "苹果", "1380013" + (8000 + p), content, NEW);
    }
  }

  private DedupRunner.Outcome apply(String table, ApplySettings settings, Runnable lockCheck) {
    try (FingerprintIndex index =
        FingerprintIndex.open(dir.resolve("index"), "it-" + table, false)) {
      return new DedupRunner(
              database(), spec(table), index, "0123456789abcdef0123456789abcdef", 2, Progress.NONE)
          .withApplySettings(settings)
          .withLockCheck(lockCheck)
          .run(new DedupRunner.Options("exact", null, null, true, false));
    }
  }

  private static String status(long runId) {
    return withHandle(
        h ->
            h.createQuery("SELECT status FROM dedup_run WHERE id = ?")
                .bind(0, runId)
                .mapTo(String.class)
                .one());
  }

  private static long archived(String table) {
    return withHandle(
                h ->
                    h.createQuery(
                            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema ="
                                + " DATABASE() AND table_name = ?")
                        .bind(0, table + "_removed")
                        .mapTo(Long.class)
                        .one())
            == 0
        ? 0
        : count(table + "_removed");
  }

  @Test
  void resume_afterTheSiteReinsertedAnArchivedId_finishesAndKeepsTheNewRow() {
    String table = "gentle_reinsert";
    twinPairs(table, 2);
    long runId = runExact(table, dir.resolve("index"), null, null, true).summary().runId();
    assertThat(ids(table)).containsExactly(2L, 4L);
    // As if the run had been killed after moving its rows: still 'applying', its plan still there.
    useHandle(
        h -> {
          h.createUpdate("UPDATE dedup_run SET status = 'applying' WHERE id = ?")
              .bind(0, runId)
              .execute();
          h.createUpdate(
                  "INSERT INTO dedup_plan (run_id, seq, removed_id, kept_id, rule, score) VALUES"
                      + " (?, 0, 1, 2, 'exact', 1), (?, 1, 3, 4, 'exact', 1)")
              .bind(0, runId)
              .bind(1, runId)
              .execute();
        });
    // The crawler re-inserts post 1 with its old id (another post now).
    insert(table, 1, "求购大蒜", "大蒜", "13900139000", "求购大蒜十吨，价格面议", NEW);

    DedupRunner.Outcome next = runExact(table, dir.resolve("index"), null, null, true);

    assertThat(next.summary().resumedRuns()).containsExactly(runId);
    assertThat(status(runId)).isEqualTo("applied");
    assertThat(ids(table)).containsExactly(1L, 2L, 4L);
    String title =
        withHandle(
            h ->
                h.createQuery("SELECT title FROM gentle_reinsert WHERE id = 1")
                    .mapTo(String.class)
                    .one());
    assertThat(title).isEqualTo("求购大蒜");
    // And the night after is not stuck either.
    assertThat(runExact(table, dir.resolve("index"), null, null, true).summary().resumedRuns())
        .isEmpty();
  }

  @Test
  void apply_lockLostMidway_stopsResumablyAndTheNextRunFinishes() throws Exception {
    String table = "gentle_lock";
    twinPairs(table, 12);
    ApplySettings oneRowBatches = new ApplySettings(1, 32L << 20, 5, 8, 300);
    TableLock lock = TableLock.acquire(database(), spec(table), "run --apply");
    CompletableFuture<Void> killer = killLockHolderOnceArchived(table);
    RowsMovedException stopped;
    try {
      Throwable thrown =
          org.assertj.core.api.Assertions.catchThrowable(
              () -> apply(table, oneRowBatches, lock::requireHeld));
      // Rows had moved: the stop says how many (exit code 4 on the command line), and why.
      assertThat(thrown)
          .isInstanceOf(RowsMovedException.class)
          .hasMessageContaining("lock of table")
          .hasMessageContaining("was lost");
      stopped = (RowsMovedException) thrown;
    } finally {
      killer.get(60, TimeUnit.SECONDS);
      lock.close();
    }
    long movedBeforeTheStop = archived(table);
    assertThat(movedBeforeTheStop).isBetween(1L, 11L);
    assertThat(stopped.rows()).isEqualTo(movedBeforeTheStop);
    assertThat(count(table)).isEqualTo(24 - movedBeforeTheStop);
    long runId = lastRunId(table);
    assertThat(status(runId)).isEqualTo("applying");

    try (TableLock next = TableLock.acquire(database(), spec(table), "run --apply")) {
      DedupRunner.Outcome outcome = apply(table, ApplySettings.DEFAULTS, next::requireHeld);
      assertThat(outcome.summary().resumedRuns()).containsExactly(runId);
    }
    assertThat(status(runId)).isEqualTo("applied");
    assertThat(ids(table)).containsExactly(2L, 4L, 6L, 8L, 10L, 12L, 14L, 16L, 18L, 20L, 22L, 24L);
    assertThat(archived(table)).isEqualTo(12);
    // The resumed run has its count per method, as a run that was not interrupted.
    List<String> counts =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT CONCAT(method, '=', removed) FROM dedup_run_removed WHERE run_id = ?")
                    .bind(0, runId)
                    .mapTo(String.class)
                    .list());
    assertThat(counts).containsExactly("exact=12");
  }

  @Test
  void runCommand_lockLostAfterRowsMoved_exitsFourWithOneLineAndTheNextRunFinishes()
      throws Exception {
    String table = "gentle_lock_cli";
    twinPairs(table, 12);
    Path config =
        writeConfig(
            dir,
            table,
            dir.resolve("index-cli"),
            Map.of("apply.batch-rows", "1", "apply.pause-ms", "300"));
    CompletableFuture<Void> killer = killLockHolderOnceArchived(table);

    CliRun run = cli("run", "--config", config.toString(), "--apply");
    killer.get(60, TimeUnit.SECONDS);

    assertThat(run.exitCode()).as(run.err()).isEqualTo(4);
    assertThat(run.errLines())
        .singleElement()
        .asString()
        .contains("archived and deleted")
        .contains("lock of table")
        .contains("was lost");
    long moved = archived(table);
    assertThat(moved).isBetween(1L, 11L);
    assertThat(count(table)).isEqualTo(24 - moved);

    long interrupted = lastRunId(table);
    CliRun next = cli("run", "--config", config.toString(), "--apply");
    assertThat(next.exitCode()).as(next.err()).isZero();
    assertThat(ids(table)).containsExactly(2L, 4L, 6L, 8L, 10L, 12L, 14L, 16L, 18L, 20L, 22L, 24L);
    assertThat(archived(table)).isEqualTo(12);
    // `stats` shows the resumed run with its count per method, moved before and after the stop.
    CliRun stats = cli("stats", "--config", config.toString());
    assertThat(stats.exitCode()).as(stats.err()).isZero();
    assertThat(stats.out())
        .containsPattern("(?m)^\\s+" + interrupted + "\\s.*\\bapplied\\b.*\\bexact 12\\s*$");
  }

  /**
   * Another session ends the session holding the table's lock (pt-kill, a proxy, a failover) once a
   * batch has moved a row.
   */
  private CompletableFuture<Void> killLockHolderOnceArchived(String table) {
    return killLockHolderWhen(table, () -> archived(table) > 0);
  }

  /** As {@link #killLockHolderOnceArchived}, once {@code moved} says so. */
  private CompletableFuture<Void> killLockHolderWhen(
      String table, java.util.function.BooleanSupplier moved) {
    return CompletableFuture.runAsync(
        () -> {
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
          while (!moved.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
          }
          killLockSession(table);
        },
        sessions);
  }

  @Test
  void restore_lockLost_stopsAndRunningItAgainFinishes() {
    String table = "gentle_restore";
    twinPairs(table, 3);
    long runId = runExact(table, dir.resolve("index"), null, null, true).summary().runId();
    assertThat(ids(table)).containsExactly(2L, 4L, 6L);
    ArchiveTables archive =
        ArchiveTables.ensure(
            database(), spec(table), new RecordSource(database(), spec(table)).checkSchema());
    TableLock lock = TableLock.acquire(database(), spec(table), "restore --run " + runId);
    killLockSession(table);

    assertThatThrownBy(() -> new Restorer(archive).withLockCheck(lock::requireHeld).restore(runId))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("was lost");
    lock.close();

    assertThat(ids(table)).containsExactly(2L, 4L, 6L);
    assertThat(status(runId)).isEqualTo("restoring");
    try (TableLock again = TableLock.acquire(database(), spec(table), "restore --run " + runId)) {
      assertThat(new Restorer(archive).withLockCheck(again::requireHeld).restore(runId))
          .isEqualTo(3);
    }
    assertThat(ids(table)).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
  }

  @Test
  void restore_lockLostAfterRowsCameBack_stopsWithTheCountAndRunningItAgainFinishes()
      throws Exception {
    String table = "gentle_restore_mid";
    twinPairs(table, 6);
    long runId = runExact(table, dir.resolve("index"), null, null, true).summary().runId();
    assertThat(count(table)).isEqualTo(6);
    ArchiveTables archive =
        ArchiveTables.ensure(
            database(), spec(table), new RecordSource(database(), spec(table)).checkSchema());
    TableLock lock = TableLock.acquire(database(), spec(table), "restore --run " + runId);
    CompletableFuture<Void> killer = killLockHolderWhen(table, () -> count(table) > 6);
    Throwable thrown;
    try {
      thrown =
          org.assertj.core.api.Assertions.catchThrowable(
              () ->
                  new Restorer(archive)
                      .withSettings(new ApplySettings(1, 32L << 20, 5, 8, 300))
                      .withLockCheck(lock::requireHeld)
                      .restore(runId));
    } finally {
      killer.get(60, TimeUnit.SECONDS);
      lock.close();
    }
    long back = count(table) - 6;
    assertThat(back).isBetween(1L, 5L);
    // Rows came back before the stop: counted, so that the command line exits 4.
    assertThat(thrown).isInstanceOf(RowsMovedException.class).hasMessageContaining("was lost");
    assertThat(((RowsMovedException) thrown).rows()).isEqualTo(back);
    assertThat(status(runId)).isEqualTo("restoring");
    try (TableLock again = TableLock.acquire(database(), spec(table), "restore --run " + runId)) {
      assertThat(new Restorer(archive).withLockCheck(again::requireHeld).restore(runId))
          .isEqualTo(6 - back);
    }
    assertThat(count(table)).isEqualTo(12);
    assertThat(archived(table)).isZero();
  }

  @Test
  void apply_siteHoldsAKeptRow_applyWaitsSecondsRetriesAndTheSitesWriteGoesThrough()
      throws Exception {
    String table = "gentle_wait";
    twinPairs(table, 3);
    ApplySettings gentle = new ApplySettings(2, 32L << 20, 1, 10, 0);
    long heldMillis = 6_000;
    try (Handle holder = database().jdbi().open();
        Handle writer = database().jdbi().open()) {
      // A site request holds kept post 4 (pair 2) in an open transaction.
      holder.begin();
      holder
          .createQuery("SELECT id FROM gentle_wait WHERE id = 4 FOR UPDATE")
          .mapTo(Long.class)
          .one();
      long start = System.nanoTime();
      CompletableFuture<DedupRunner.Outcome> applying =
          CompletableFuture.supplyAsync(() -> apply(table, gentle, () -> {}), sessions);
      // Once the apply waits for post 4 (it holds the shared lock of kept post 2, in the same
      // batch) ...
      awaitLockWait(60, applying);
      // ... the site writes kept post 2, with the server's usual patience (here 4 s).
      writer.execute("SET SESSION innodb_lock_wait_timeout = 4");
      long writeStart = System.nanoTime();
      int written = writer.execute("UPDATE gentle_wait SET price = '2.80元/斤' WHERE id = 2");
      long writeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - writeStart);
      Thread.sleep(
          Math.max(0, heldMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
      holder.rollback();

      DedupRunner.Outcome outcome = applying.get(120, TimeUnit.SECONDS);

      assertThat(written).isEqualTo(1);
      assertThat(writeMillis)
          .as("the site's write waited at most the apply's lock wait")
          .isLessThan(2_500);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(heldMillis);
      assertThat(status(outcome.summary().runId())).isEqualTo("applied");
    }
    // Pair 1's removed row still equals its kept row? No: the site re-priced post 2, so post 1 is
    // now
    // a different post and stays; pairs 2 and 3 moved.
    List<Long> left = ids(table);
    assertThat(left).contains(2L, 4L, 6L).doesNotContain(3L, 5L);
  }

  /** Waits until some transaction of the server is waiting for a row lock. */
  private static void awaitLockWait(int seconds, CompletableFuture<?> applying) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      if (applying.isDone()) {
        applying.get();
        throw new AssertionError("the apply finished without waiting for a row lock");
      }
      long waiting =
          withHandle(
              h ->
                  h.createQuery(
                          "SELECT COUNT(*) FROM information_schema.innodb_trx"
                              + " WHERE trx_state = 'LOCK WAIT'")
                      .mapTo(Long.class)
                      .one());
      if (waiting > 0) {
        return;
      }
      // Slower than every 100 ms: the server refreshes innodb_trx only when it was not read for 100
      // ms,
      // so faster polling would read the same stale rows for ever.
      Thread.sleep(200);
    }
    String sessions =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT GROUP_CONCAT(CONCAT(id, ' ', command, ' ', COALESCE(state, ''),"
                            + " ' ', LEFT(COALESCE(info, ''), 100)) SEPARATOR ' | ') FROM information_schema.processlist")
                    .mapTo(String.class)
                    .one());
    throw new AssertionError(
        "no transaction waited for a row lock within " + seconds + " s; sessions: " + sessions);
  }
}
