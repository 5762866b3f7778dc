package org.xiaochong.tools;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.jdbi.v3.core.Handle;
import org.xiaochong.source.Database;

/**
 * Lets InnoDB finish the background work of the previous bench step before the next timed one, so
 * that no contender is timed while the server still works for another.
 *
 * <p>Why: InnoDB defers work. A bulk insert (the bench's load, the copy of the table for the SQL
 * way) leaves hundreds of MB of dirty pages that the page cleaner writes out later, faster as the
 * redo log fills; a bulk delete (our applied run) leaves delete-marked rows that the purge threads
 * remove later. Without a pause, that work lands on whichever step comes next and competes for the
 * same cores: before our run the ~12,000 pages dirtied by the load and the copy, before the SQL way
 * our run's ~29,000 pages and its purge. On the 1M bench the effect is within the machine's noise
 * (bench/ RESULTS.md); the pause (2-4 s, not timed) makes the two timings start alike. Database
 * benchmarks (sysbench, TPC setups) flush and wait for purge between phases for the same reason.
 *
 * <p>How: set {@code innodb_max_dirty_pages_pct} to 0 (the page cleaner then writes out every dirty
 * page), wait until no dirty page and no purge history is left, and put the setting back. Needs the
 * SUPER privilege: the bench's embedded server has it. Not used by {@code run}: a user's server is
 * busy with other work anyway, and a run never waits for it.
 */
public final class ServerQuiesce {
  /** A handful of pages dirtied by the server's own bookkeeping meanwhile do not count. */
  private static final long DIRTY_PAGES_LEFT = 64;

  /** How long the purge history must stay the same to count as done. */
  private static final Duration PURGE_STEADY = Duration.ofSeconds(2);

  /** Page writes a second allowed while waiting. */
  private static final long QUIESCE_IO_CAPACITY = 100_000;

  /** What a wait found and how long it took. */
  public record Result(
      long dirtyPagesBefore, long historyBefore, double seconds, boolean timedOut) {}

  private ServerQuiesce() {}

  /**
   * Waits (at most {@code max}) until the server has no dirty pages and no purge history left.
   * Plain JDBC, not Jdbi statements: the wait polls the server ~10 times a second, and through Jdbi
   * each poll ran its SQL lexer, which got hot enough that the JIT compiled it during the timed run
   * that follows (JFR: ~0.25 s of C2 time in our run's apply), a cost a real {@code dedup run}
   * never pays.
   */
  public static Result waitUntilIdle(Database database, Duration max) {
    try (Handle handle = database.jdbi().open()) {
      Connection c = handle.getConnection();
      long start = System.nanoTime();
      long dirtyBefore = status(c, "Innodb_buffer_pool_pages_dirty");
      long historyBefore = status(c, "Innodb_history_list_length");
      String oldPct = variable(c, "innodb_max_dirty_pages_pct");
      String oldCapacity = variable(c, "innodb_io_capacity");
      String oldCapacityMax = variable(c, "innodb_io_capacity_max");
      // The page cleaner writes at most innodb_io_capacity pages a second when it is not pressed
      // (200 by
      // default: 10,000 dirty pages would take a minute); let it go as fast as the disk can.
      setVariable(c, "innodb_io_capacity_max", Long.toString(QUIESCE_IO_CAPACITY));
      setVariable(c, "innodb_io_capacity", Long.toString(QUIESCE_IO_CAPACITY));
      setVariable(c, "innodb_max_dirty_pages_pct", "0");
      boolean timedOut = false;
      try {
        // Purge is done when the history is empty or stops shrinking: InnoDB leaves the last few
        // undo
        // logs until the next periodic truncation, which can take a minute and costs nothing
        // meanwhile.
        long history = historyBefore;
        long steadySince = System.nanoTime();
        while (true) {
          long dirty = status(c, "Innodb_buffer_pool_pages_dirty");
          long now = status(c, "Innodb_history_list_length");
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
        setVariable(c, "innodb_max_dirty_pages_pct", oldPct);
        setVariable(c, "innodb_io_capacity", oldCapacity);
        setVariable(c, "innodb_io_capacity_max", oldCapacityMax);
      }
      return new Result(dirtyBefore, historyBefore, (System.nanoTime() - start) / 1e9, timedOut);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "waiting for the server to go idle failed: " + Database.rootMessage(e), e);
    }
  }

  private static long status(Connection c, String name) throws SQLException {
    try (PreparedStatement query = c.prepareStatement("SHOW GLOBAL STATUS LIKE ?")) {
      query.setString(1, name);
      try (ResultSet rs = query.executeQuery()) {
        return rs.next() ? rs.getLong(2) : 0L;
      }
    }
  }

  /** A global variable's value as text (the names are constants of this class, not input). */
  private static String variable(Connection c, String name) throws SQLException {
    try (Statement query = c.createStatement();
        ResultSet rs = query.executeQuery("SELECT @@GLOBAL." + name)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /**
   * Sets a numeric global variable (a number, not a quoted string: the server refuses text for
   * these).
   */
  private static void setVariable(Connection c, String name, String value) throws SQLException {
    try (PreparedStatement update = c.prepareStatement("SET GLOBAL " + name + " = ?")) {
      update.setBigDecimal(1, new java.math.BigDecimal(value));
      update.execute();
    }
  }
}
