package org.xiaochong.run;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.apache.commons.codec.digest.DigestUtils;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.SqlTime;
import org.xiaochong.source.TableSpec;

/**
 * One command at a time per table: a MySQL/MariaDB named lock ({@code GET_LOCK}) keyed by schema and
 * table, taken before a {@code run}, {@code restore} or {@code index} reads anything and held on its
 * own connection until {@link #close()}. The server releases a named lock when its session ends, so a
 * process killed with {@code kill -9} leaves no stale lock: its connection closes with it.
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
 * the commands that move rows call {@link #requireHeld} before each batch and stop when it is gone.
 * (A batch under way when the lock goes finishes: the check bounds the overlap to one batch.)
 *
 * <p>Thread-safe: the apply's workers check it at once.
 */
public final class TableLock implements AutoCloseable {
  private final Connection connection;
  private final String name;

  private TableLock(Connection connection, String name) {
    this.connection = connection;
    this.name = name;
  }

  /**
   * Takes the lock of {@code spec}'s table without waiting.
   *
   * @param command what the holder is doing, shown to a command that finds the lock taken
   * @throws BadInputException when another session holds it (exit code 2), naming the holder
   */
  public static TableLock acquire(Database database, TableSpec spec, String command) {
    Connection connection = null;
    try {
      connection = database.openConnection();
      // A named lock lives as long as its session: the server must not close this idle connection
      // during a long run (wait_timeout, 8 hours by default), or the lock would be gone unnoticed.
      try (Statement statement = connection.createStatement()) {
        statement.execute("SET SESSION wait_timeout = 31536000");
      }
      String schema = schema(connection);
      String name = lockName(schema, spec.table());
      Integer got = null;
      try (PreparedStatement lock = connection.prepareStatement("SELECT GET_LOCK(?, 0)")) {
        lock.setString(1, name);
        try (ResultSet rs = lock.executeQuery()) {
          if (rs.next()) {
            got = (Integer) rs.getObject(1, Integer.class);
          }
        }
      }
      if (got == null || got != 1) {
        String holder = holder(connection, name);
        throw new BadInputException("table " + schema + "." + spec.table() + " is locked by another dedup command ("
            + holder + "): one run, restore or index at a time per table; try again when it has finished");
      }
      TableLock held = new TableLock(connection, name);
      held.describe(command);
      return held;
    } catch (SQLException e) {
      closeQuietly(connection);
      throw new IllegalStateException("cannot take the lock of table " + spec.table() + ": " + Database.rootMessage(e), e);
    } catch (RuntimeException e) {
      closeQuietly(connection);
      throw e;
    }
  }

  /**
   * The lock's name: {@code xiaochong.<schema>.<table>}, or, where that is longer than the 64
   * characters MySQL allows, {@code xiaochong.} and the MD5 of {@code <schema>.<table>}.
   */
  static String lockName(String schema, String table) {
    String plain = "xiaochong." + schema + "." + table;
    return plain.length() <= 64 ? plain
        : "xiaochong." + DigestUtils.md5Hex((schema + "." + table).getBytes(StandardCharsets.UTF_8));
  }

  private static String schema(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery("SELECT DATABASE()")) {
      rs.next();
      String schema = rs.getString(1);
      if (schema == null) {
        throw new BadInputException("db.url names no database: add it to the URL, e.g. jdbc:mysql://host:3306/crawl");
      }
      return schema;
    }
  }

  /** Records who holds the lock, where the user may write; silently skipped where not. */
  private void describe(String command) {
    try (Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE IF NOT EXISTS dedup_lock (lock_name VARCHAR(64) NOT NULL PRIMARY KEY,"
          + " connection_id BIGINT NOT NULL, host VARCHAR(255) NOT NULL, pid BIGINT NOT NULL,"
          + " command VARCHAR(64) NOT NULL, started_at DATETIME(3) NOT NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4");
      try (PreparedStatement replace = connection.prepareStatement("REPLACE INTO dedup_lock"
          + " (lock_name, connection_id, host, pid, command, started_at) VALUES (?, CONNECTION_ID(), ?, ?, ?, ?)")) {
        replace.setString(1, name);
        replace.setString(2, hostName());
        replace.setLong(3, ProcessHandle.current().pid());
        replace.setString(4, command.length() > 64 ? command.substring(0, 64) : command);
        SqlTime.bind(replace, 5, LocalDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MILLIS));
        replace.executeUpdate();
      }
    } catch (SQLException e) {
      // A read-only user: the holder is then named from the process list.
    }
  }

  /** Who holds the lock {@code name}, in words, for the message of the command that found it taken. */
  private static String holder(Connection connection, String name) throws SQLException {
    Long holderId = null;
    try (PreparedStatement used = connection.prepareStatement("SELECT IS_USED_LOCK(?)")) {
      used.setString(1, name);
      try (ResultSet rs = used.executeQuery()) {
        if (rs.next()) {
          holderId = (Long) rs.getObject(1, Long.class);
        }
      }
    }
    if (holderId == null) {
      return "released just now";
    }
    try (PreparedStatement who = connection.prepareStatement(
        "SELECT host, pid, command, started_at FROM dedup_lock WHERE lock_name = ? AND connection_id = ?")) {
      who.setString(1, name);
      who.setLong(2, holderId);
      try (ResultSet rs = who.executeQuery()) {
        if (rs.next()) {
          return "'" + rs.getString(3) + "' on host " + rs.getString(1) + ", pid " + rs.getLong(2) + ", started "
              + rs.getObject(4, LocalDateTime.class).toString().replace('T', ' ') + " UTC";
        }
      }
    } catch (SQLException e) {
      // no dedup_lock table, or no right to read it
    }
    try (PreparedStatement who = connection.prepareStatement(
        "SELECT host FROM information_schema.processlist WHERE id = ?")) {
      who.setLong(1, holderId);
      try (ResultSet rs = who.executeQuery()) {
        if (rs.next()) {
          return "server connection " + holderId + " from " + rs.getString(1);
        }
      }
    }
    return "server connection " + holderId;
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }

  /**
   * Throws an {@link IllegalStateException} saying so when this session no longer holds the lock (the
   * session ended, or the lock was released under it): {@code IS_USED_LOCK} must name this session.
   */
  public synchronized void requireHeld() {
    String reason;
    try (PreparedStatement used = connection.prepareStatement("SELECT IS_USED_LOCK(?) = CONNECTION_ID()")) {
      used.setString(1, name);
      try (ResultSet rs = used.executeQuery()) {
        if (rs.next() && rs.getBoolean(1)) {
          return;
        }
        reason = "another session holds it or none does";
      }
    } catch (SQLException e) {
      reason = "its server session ended: " + Database.rootMessage(e);
    }
    // No cause attached: the command line shows the innermost message, which is this one.
    throw new IllegalStateException("the lock of table " + name.substring("xiaochong.".length()) + " was lost ("
        + reason + "); stopped so that no second command works beside this one. What was done stands: run the"
        + " command again to finish it");
  }

  /** Releases the lock (closing its session would release it too). */
  @Override
  public void close() {
    try (PreparedStatement release = connection.prepareStatement("SELECT RELEASE_LOCK(?)")) {
      release.setString(1, name);
      release.execute();
      try (PreparedStatement forget = connection.prepareStatement(
          "DELETE FROM dedup_lock WHERE lock_name = ? AND connection_id = CONNECTION_ID()")) {
        forget.setString(1, name);
        forget.executeUpdate();
      } catch (SQLException e) {
        // no row was written (read-only user)
      }
    } catch (SQLException e) {
      // the session ends below, which releases the lock as well
    } finally {
      closeQuietly(connection);
    }
  }

  private static void closeQuietly(Connection connection) {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        // nothing held that closing would keep
      }
    }
  }
}
