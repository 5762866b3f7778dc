package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.run.TableLock;

/**
 * The table lock's session is watched through the sync and the passes: a {@code KILL} of it is
 * noticed by the watcher within its interval (well under a minute), the run stops at its next step
 * with the documented message and nothing moved, and the next run completes; and the watcher's
 * questions keep the session from sitting idle long enough for an idle killer ({@code pt-kill
 * --idle-time}, a proxy's idle timeout) to end it.
 */
@Tag("db")
class LockWatchIT extends DbTestSupport {
  private static final LocalDateTime OLD = LocalDateTime.of(2024, 5, 1, 8, 0);
  private static final LocalDateTime NEW = LocalDateTime.of(2024, 5, 2, 8, 0);

  @TempDir Path dir;

  @Test
  void run_lockKilledDuringTheSync_noticedWithinAMinute_runStopsNothingMoved_nextRunCompletes()
      throws Exception {
    String table = "lock_watch";
    createPostsTable(table);
    insert(table, 1, "供应红富士苹果", "苹果", "13800138000", "本人有红富士苹果约3000斤", OLD);
    insert(table, 2, "供应红富士苹果", "苹果", "13800138000", "本人有红富士苹果约3000斤", NEW);
    CompletableFuture<Long> noticedAt = new CompletableFuture<>();
    long[] killedAt = new long[1];
    Progress killDuringSync =
        (task, total) -> {
          if (task.equals("index")) { // the sync has started: another session kills the lock's
            killedAt[0] = System.nanoTime();
            killLockSession(table);
            noticedAt.join(); // a long sync: the watcher notices while it still runs
          }
          return Progress.NONE.start(task, total);
        };

    Throwable thrown;
    try (TableLock lock =
        TableLock.acquire(database(), spec(table), "run --apply", Duration.ofSeconds(2))
            .onLoss(message -> noticedAt.complete(System.nanoTime()))) {
      thrown =
          catchThrowable(
              () -> {
                try (FingerprintIndex index =
                    FingerprintIndex.open(dir.resolve("index"), "it-" + table, false)) {
                  new DedupRunner(
                          database(),
                          spec(table),
                          index,
                          "0123456789abcdef0123456789abcdef",
                          2,
                          killDuringSync)
                      .withLockCheck(lock::requireHeld)
                      .run(new DedupRunner.Options("exact", null, null, true, false));
                }
              });
      assertThat(lock.isLost()).isTrue();
    }

    long noticedSeconds =
        TimeUnit.NANOSECONDS.toSeconds(noticedAt.get(60, TimeUnit.SECONDS) - killedAt[0]);
    assertThat(noticedSeconds).isLessThan(60);
    assertThat(thrown)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("lock of table")
        .hasMessageContaining("was lost");
    assertThat(ids(table)).containsExactly(1L, 2L); // stopped before its apply: nothing moved
    try (TableLock next = TableLock.acquire(database(), spec(table), "run --apply");
        FingerprintIndex index =
            FingerprintIndex.open(dir.resolve("index"), "it-" + table, false)) {
      new DedupRunner(
              database(), spec(table), index, "0123456789abcdef0123456789abcdef", 2, Progress.NONE)
          .withLockCheck(next::requireHeld)
          .run(new DedupRunner.Options("exact", null, null, true, false));
    }
    assertThat(ids(table)).containsExactly(2L);
  }

  @Test
  void lock_sessionKeptBusyByItsWatcher_anIdleKillerBesideTheServerNeverFindsItIdle()
      throws Exception {
    String table = "lock_idle";
    createPostsTable(table);
    try (TableLock lock =
        TableLock.acquire(database(), spec(table), "run --apply", Duration.ofMillis(500))) {
      long session = lockSession(table);
      // An idle killer, as `pt-kill --idle-time 2 --match-command Sleep --kill` beside a site's
      // server (or a proxy's idle timeout): every 200 ms for 5 s, it kills the lock's session once
      // that has been idle for 2 s. The command itself runs no statement on it meanwhile.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      long longestIdle = 0;
      while (System.nanoTime() < deadline) {
        long idle =
            withHandle(
                h ->
                    h.createQuery(
                            "SELECT time FROM information_schema.processlist WHERE id = ? AND command = 'Sleep'")
                        .bind(0, session)
                        .mapTo(Long.class)
                        .findOne()
                        .orElse(0L));
        longestIdle = Math.max(longestIdle, idle);
        if (idle >= 2) {
          useHandle(h -> h.execute("KILL CONNECTION " + session));
        }
        Thread.sleep(200);
      }

      assertThat(longestIdle).as("seconds the lock's session sat idle").isLessThan(2);
      assertThat(lock.isLost()).isFalse();
      lock.requireHeld();
      assertThat(lockSession(table)).isEqualTo(session);
    }
  }
}
