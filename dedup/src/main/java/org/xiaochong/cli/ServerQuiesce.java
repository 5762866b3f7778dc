package org.xiaochong.cli;

import java.time.Duration;
import org.jdbi.v3.core.Handle;
import org.xiaochong.source.Database;

/**
 * Lets InnoDB finish the background work of the previous bench step before the next timed one, so that
 * no contender is timed while the server still works for another.
 *
 * <p>Why: InnoDB defers work. A bulk insert (the bench's load, the copy of the table for the SQL way)
 * leaves hundreds of MB of dirty pages that the page cleaner writes out later, faster as the redo log
 * fills; a bulk delete (our applied run) leaves delete-marked rows that the purge threads remove later.
 * Without a pause, that work lands on whichever step comes next and competes for the same cores:
 * before our run the ~12,000 pages dirtied by the load and the copy, before the SQL way our run's
 * ~29,000 pages and its purge. On the 1M bench the effect was within the machine's noise (bench/
 * RESULTS.md, fifth session); the pause (2-4 s, not timed) makes the two timings start alike. Database
 * benchmarks (sysbench, TPC setups) flush and wait for purge between phases for the same reason.
 *
 * <p>How: set {@code innodb_max_dirty_pages_pct} to 0 (the page cleaner then writes out every dirty
 * page), wait until no dirty page and no purge history is left, and put the setting back. Needs the
 * SUPER privilege: the bench's embedded server has it. Not used by {@code run}: a user's server is busy
 * with other work anyway, and a run never waits for it.
 */
public final class ServerQuiesce {
  /** A handful of pages dirtied by the server's own bookkeeping meanwhile do not count. */
  private static final long DIRTY_PAGES_LEFT = 64;
  /** How long the purge history must stay the same to count as done. */
  private static final Duration PURGE_STEADY = Duration.ofSeconds(2);
  /** Page writes a second allowed while waiting. */
  private static final long QUIESCE_IO_CAPACITY = 100_000;

  /** What a wait found and how long it took. */
  public record Result(long dirtyPagesBefore, long historyBefore, double seconds, boolean timedOut) {}

  private ServerQuiesce() {}

  /** Waits (at most {@code max}) until the server has no dirty pages and no purge history left. */
  public static Result waitUntilIdle(Database database, Duration max) {
    try (Handle h = database.jdbi().open()) {
      long start = System.nanoTime();
      long dirtyBefore = status(h, "Innodb_buffer_pool_pages_dirty");
      long historyBefore = status(h, "Innodb_history_list_length");
      double oldPct = h.createQuery("SELECT @@GLOBAL.innodb_max_dirty_pages_pct").mapTo(Double.class).one();
      long oldCapacity = h.createQuery("SELECT @@GLOBAL.innodb_io_capacity").mapTo(Long.class).one();
      long oldCapacityMax = h.createQuery("SELECT @@GLOBAL.innodb_io_capacity_max").mapTo(Long.class).one();
      // The page cleaner writes at most innodb_io_capacity pages a second when it is not pressed (200 by
      // default: 10,000 dirty pages would take a minute); let it go as fast as the disk can.
      h.execute("SET GLOBAL innodb_io_capacity_max = " + QUIESCE_IO_CAPACITY);
      h.execute("SET GLOBAL innodb_io_capacity = " + QUIESCE_IO_CAPACITY);
      h.execute("SET GLOBAL innodb_max_dirty_pages_pct = 0");
      boolean timedOut = false;
      try {
        // Purge is done when the history is empty or stops shrinking: InnoDB leaves the last few undo
        // logs until the next periodic truncation, which can take a minute and costs nothing meanwhile.
        long history = historyBefore;
        long steadySince = System.nanoTime();
        while (true) {
          long dirty = status(h, "Innodb_buffer_pool_pages_dirty");
          long now = status(h, "Innodb_history_list_length");
          if (now < history) {
            steadySince = System.nanoTime();
          }
          history = now;
          boolean purged = history == 0 || System.nanoTime() - steadySince > PURGE_STEADY.toNanos();
          if (dirty <= DIRTY_PAGES_LEFT && purged) {
            break;
          }
          if (System.nanoTime() - start > max.toNanos()) {
            timedOut = true;
            break;
          }
          Thread.sleep(100);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        h.createUpdate("SET GLOBAL innodb_max_dirty_pages_pct = ?").bind(0, oldPct).execute();
        h.createUpdate("SET GLOBAL innodb_io_capacity = ?").bind(0, oldCapacity).execute();
        h.createUpdate("SET GLOBAL innodb_io_capacity_max = ?").bind(0, oldCapacityMax).execute();
      }
      return new Result(dirtyBefore, historyBefore, (System.nanoTime() - start) / 1e9, timedOut);
    }
  }

  private static long status(Handle h, String name) {
    return h.createQuery("SHOW GLOBAL STATUS LIKE ?").bind(0, name)
        .map((rs, ctx) -> rs.getLong(2)).findOne().orElse(0L);
  }
}
