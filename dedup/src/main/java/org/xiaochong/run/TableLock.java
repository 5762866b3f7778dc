package org.xiaochong.run;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.commons.codec.digest.DigestUtils;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;

/**
 * One command at a time per table: a MySQL/MariaDB named lock ({@code GET_LOCK}) keyed by schema
 * and table, taken before a {@code run}, {@code restore} or {@code index} reads anything and held
 * on its own connection until {@link #close()}. The server releases a named lock when its session
 * ends, so a process killed with {@code kill -9} leaves no stale lock: its connection closes with
 * it.
 *
 * <p>Why a server lock and not a lock file: two runs on one table may use different index folders
 * (or machines); the table is what they share. Why not a lock row: a dry run may use a read-only
 * user, and a row outlives a killed process.
 *
 * <p>The holder also writes who it is (host, pid, command, start time) into {@code dedup_lock} when
 * it may (a read-only user may not: then a second command names the holder by its connection id and
 * client address, from the process list). A row is trusted only while its connection id is the one
 * holding the lock, so a row left by a killed process is never shown.
 *
 * <p>The server may end the lock's session under a running command (a proxy's idle timeout, {@code
 * pt-kill}, {@code KILL}, a failover), and with it the lock: a second command could then start. So
 * a watcher thread asks the session every {@link #CHECK_EVERY} whether it still holds the lock: the
 * query keeps the session from ever being idle for longer (what idle timeouts and {@code pt-kill
 * --idle-time} act on), and a loss is noticed within that time, even while the command reads or
 * computes, and said at once ({@link #onLoss}). The commands call {@link #requireHeld} at their
 * steps (after the index sync, after the passes) and before each batch, and stop there when it is
 * gone. (A batch under way when the lock goes finishes: the check bounds the overlap to one batch.)
 *
 * <p>Thread-safe: the apply's workers check it at once.
 */
public final class TableLock implements AutoCloseable {
  /**
   * How often the watcher asks the lock's session whether it still holds the lock: well under the
   * shortest idle timeouts of proxies and {@code pt-kill} (a minute and more), and a loss is
   * noticed within it.
   */
  public static final Duration CHECK_EVERY = Duration.ofSeconds(20);

  /** The lock's own session: a named lock lives as long as the session that took it. */
  private final Handle handle;

  private final LockDao locks;
  private final String name;
  private final ScheduledExecutorService watcher;

  /** Why the lock was lost, once the watcher or {@link #requireHeld} found it so; else null. */
  private volatile String lost;

  private volatile Consumer<String> onLoss = message -> {};

  private TableLock(Handle handle, String name, Duration checkEvery) {
    this.handle = handle;
    this.locks = handle.attach(LockDao.class);
    this.name = name;
    this.watcher =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "xiaochong-lock-watch");
              thread.setDaemon(true); // never keeps a finished command's JVM alive
              return thread;
            });
    long millis = Math.max(1, checkEvery.toMillis());
    watcher.scheduleWithFixedDelay(this::watch, millis, millis, TimeUnit.MILLISECONDS);
  }

  /**
   * Where the watcher says, once, that the lock was lost (the message {@link #requireHeld} will
   * throw), at the moment it notices; by default nowhere.
   */
  public TableLock onLoss(Consumer<String> onLoss) {
    this.onLoss = onLoss;
    return this;
  }

  /** Whether the lock was found lost (by the watcher or {@link #requireHeld}). */
  public boolean isLost() {
    return lost != null;
  }

  private void watch() {
    try {
      requireHeld();
    } catch (IllegalStateException e) {
      watcher.shutdown();
      onLoss.accept(
          e.getMessage().replace("; stopped so that", "; stopping at the next step so that"));
    } catch (RuntimeException e) {
      // the check itself failed unexpectedly: the next one, or the command's own check, tells
    }
  }

  /**
   * Takes the lock of {@code spec}'s table without waiting.
   *
   * @param command what the holder is doing, shown to a command that finds the lock taken
   * @throws BadInputException when another session holds it (exit code 2), naming the holder
   */
  public static TableLock acquire(Database database, TableSpec spec, String command) {
    return acquire(database, spec, command, CHECK_EVERY);
  }

  /**
   * Takes the lock as {@link #acquire(Database, TableSpec, String)} does, its watcher asking every
   * {@code checkEvery}.
   */
  public static TableLock acquire(
      Database database, TableSpec spec, String command, Duration checkEvery) {
    Handle handle = null;
    try {
      handle = database.jdbi().open();
      LockDao locks = handle.attach(LockDao.class);
      // A named lock lives as long as its session: the server must not close this idle connection
      // during a long run (wait_timeout, 8 hours by default), or the lock would be gone unnoticed.
      locks.keepSessionOpen();
      String schema = locks.schema();
      if (schema == null) {
        throw new BadInputException(
            "db.url names no database: add it to the URL, e.g. jdbc:mysql://host:3306/crawl");
      }
      String name = lockName(schema, spec.table());
      Integer got = locks.tryLock(name);
      if (got == null || got != 1) {
        throw new BadInputException(
            "table "
                + schema
                + "."
                + spec.table()
                + " is locked by another dedup command ("
                + holder(locks, name)
                + "): one run, restore or index at a time per table; try again when it has finished");
      }
      TableLock held = new TableLock(handle, name, checkEvery);
      held.describe(command);
      return held;
    } catch (JdbiException e) {
      closeQuietly(handle);
      throw new IllegalStateException(
          "cannot take the lock of table " + spec.table() + ": " + Database.rootMessage(e), e);
    } catch (RuntimeException e) {
      closeQuietly(handle);
      throw e;
    }
  }

  /**
   * The lock's name: {@code xiaochong.<schema>.<table>}, or, where that is longer than the 64
   * characters MySQL allows, {@code xiaochong.} and the MD5 of {@code <schema>.<table>}.
   */
  static String lockName(String schema, String table) {
    String plain = "xiaochong." + schema + "." + table;
    return plain.length() <= 64
        ? plain
        : "xiaochong."
            + DigestUtils.md5Hex((schema + "." + table).getBytes(StandardCharsets.UTF_8));
  }

  /** Records who holds the lock, where the user may write; silently skipped where not. */
  private void describe(String command) {
    try {
      locks.createHolderTable();
      locks.describeHolder(
          name,
          hostName(),
          ProcessHandle.current().pid(),
          command.length() > 64 ? command.substring(0, 64) : command,
          LocalDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MILLIS));
    } catch (JdbiException e) {
      // A read-only user: the holder is then named from the process list.
    }
  }

  /** A holder as it describes itself in {@code dedup_lock}. */
  record Holder(String host, long pid, String command, LocalDateTime startedAt) {
    @Override
    public String toString() {
      return "'"
          + command
          + "' on host "
          + host
          + ", pid "
          + pid
          + ", started "
          + startedAt.toString().replace('T', ' ')
          + " UTC";
    }
  }

  /** Reads a {@link Holder} from {@link LockDao#describedHolder}. */
  public static final class HolderMapper implements RowMapper<Holder> {
    @Override
    public Holder map(ResultSet rs, StatementContext ctx) throws SQLException {
      return new Holder(
          rs.getString("host"),
          rs.getLong("pid"),
          rs.getString("command"),
          rs.getObject("started_at", LocalDateTime.class));
    }
  }

  /**
   * Who holds the lock {@code name}, in words, for the message of the command that found it taken.
   */
  private static String holder(LockDao locks, String name) {
    Long holderId = locks.holderConnection(name);
    if (holderId == null) {
      return "released just now";
    }
    try {
      Optional<Holder> described = locks.describedHolder(name, holderId);
      if (described.isPresent()) {
        return described.get().toString();
      }
    } catch (JdbiException e) {
      // no dedup_lock table, or no right to read it
    }
    return locks
        .clientHost(holderId)
        .map(host -> "server connection " + holderId + " from " + host)
        .orElse("server connection " + holderId);
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }

  /**
   * Throws an {@link IllegalStateException} saying so when this session no longer holds the lock
   * (the session ended, or the lock was released under it): {@code IS_USED_LOCK} must name this
   * session.
   */
  public synchronized void requireHeld() {
    if (lost == null) {
      String reason;
      try {
        if (locks.holds(name)) {
          return;
        }
        reason = "another session holds it or none does";
      } catch (JdbiException e) {
        reason = "its server session ended: " + Database.rootMessage(e);
      }
      lost =
          "the lock of table "
              + name.substring("xiaochong.".length())
              + " was lost at "
              + LocalDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS).toLocalTime()
              + " UTC ("
              + reason
              + "); stopped so that no second command works beside this one. What was done stands:"
              + " run the command again to finish it";
    }
    // No cause attached: the command line shows the innermost message, which is this one.
    throw new IllegalStateException(lost);
  }

  /** Releases the lock (closing its session would release it too). */
  @Override
  public void close() {
    watcher.shutdownNow();
    try {
      watcher.awaitTermination(10, TimeUnit.SECONDS); // a check under way ends before the session
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      release();
    }
  }

  private void release() {
    try {
      locks.release(name);
      try {
        locks.forgetHolder(name);
      } catch (JdbiException e) {
        // no row was written (read-only user)
      }
    } catch (JdbiException e) {
      // the session ends below, which releases the lock as well
    } finally {
      closeQuietly(handle);
    }
  }

  private static void closeQuietly(Handle handle) {
    if (handle != null) {
      try {
        handle.close();
      } catch (JdbiException e) {
        // nothing held that closing would keep
      }
    }
  }
}
