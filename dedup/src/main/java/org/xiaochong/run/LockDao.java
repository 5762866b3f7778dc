package org.xiaochong.run;

import java.time.LocalDateTime;
import java.util.Optional;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import org.jdbi.v3.sqlobject.statement.UseRowMapper;

/**
 * The statements of {@link TableLock}: the server's named locks, and {@code dedup_lock}, where a
 * holder writes who it is. Attached to the lock's own handle: a named lock belongs to its session.
 */
interface LockDao {
  /**
   * Keeps the lock's idle session open for a year (the server's default closes it after 8 hours).
   */
  @SqlUpdate("SET SESSION wait_timeout = 31536000")
  void keepSessionOpen();

  /** The current schema; null when the URL names none. */
  @SqlQuery("SELECT DATABASE()")
  String schema();

  /** 1 when this session got the lock, 0 when another holds it, null on an error. */
  @SqlQuery("SELECT GET_LOCK(:name, 0)")
  Integer tryLock(@Bind("name") String name);

  /** The connection id of the session holding the lock; null when none does. */
  @SqlQuery("SELECT IS_USED_LOCK(:name)")
  Long holderConnection(@Bind("name") String name);

  /** Whether this session holds the lock. */
  @SqlQuery("SELECT COALESCE(IS_USED_LOCK(:name) = CONNECTION_ID(), FALSE)")
  boolean holds(@Bind("name") String name);

  @SqlQuery("SELECT RELEASE_LOCK(:name)")
  Integer release(@Bind("name") String name);

  @SqlUpdate(
      "CREATE TABLE IF NOT EXISTS dedup_lock (lock_name VARCHAR(64) NOT NULL PRIMARY KEY,"
          + " connection_id BIGINT NOT NULL, host VARCHAR(255) NOT NULL, pid BIGINT NOT NULL,"
          + " command VARCHAR(64) NOT NULL, started_at DATETIME(3) NOT NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4")
  void createHolderTable();

  @SqlUpdate(
      "REPLACE INTO dedup_lock (lock_name, connection_id, host, pid, command, started_at)"
          + " VALUES (:name, CONNECTION_ID(), :host, :pid, :command, :startedAt)")
  void describeHolder(
      @Bind("name") String name,
      @Bind("host") String host,
      @Bind("pid") long pid,
      @Bind("command") String command,
      @Bind("startedAt") LocalDateTime startedAt);

  /** Who holds the lock, as its row says, if the row is of the session holding it now. */
  @SqlQuery(
      "SELECT host, pid, command, started_at FROM dedup_lock WHERE lock_name = :name"
          + " AND connection_id = :connectionId")
  @UseRowMapper(TableLock.HolderMapper.class)
  Optional<TableLock.Holder> describedHolder(
      @Bind("name") String name, @Bind("connectionId") long connectionId);

  /** The client address of a server connection, from the process list. */
  @SqlQuery("SELECT host FROM information_schema.processlist WHERE id = :connectionId")
  Optional<String> clientHost(@Bind("connectionId") long connectionId);

  @SqlUpdate("DELETE FROM dedup_lock WHERE lock_name = :name AND connection_id = CONNECTION_ID()")
  void forgetHolder(@Bind("name") String name);
}
