package org.xiaochong.source;

import java.sql.SQLException;
import java.util.Arrays;
import java.util.Optional;

/**
 * The server errors the commands tell apart, each known by its SQLState and, where one state covers
 * several errors or servers and drivers disagree on it, by the vendor code of MySQL and MariaDB.
 * The one place that reads SQLStates: every command asks {@link #matches} or {@link #of} what went
 * wrong, never the message text, which the server translates ({@code lc_messages}).
 *
 * <p>What each means to a command:
 *
 * <ul>
 *   <li>{@link #LOCK_WAIT_TIMEOUT}, {@link #DEADLOCK}: the transaction lost a race with another
 *       session; a batch is rolled back and tried again ({@code apply.attempts}), then the error
 *       stands (exit 1, or 4 once rows moved).
 *   <li>{@link #DUPLICATE_KEY}: a row's key is taken; a mark already made, a row restored twice
 *       ({@link BadInputException}, exit 2), a child row re-pointed onto one added meanwhile
 *       (retried).
 *   <li>{@link #MISSING_TABLE}, {@link #MISSING_COLUMN}: a configured name names nothing ({@link
 *       BadInputException}, exit 2).
 *   <li>{@link #ROW_REFERENCED}: a foreign key refused a delete ({@link BadInputException}, exit
 *       2).
 * </ul>
 *
 * The exceptions are searched along their causes, so a Jdbi exception wrapping the driver's
 * matches.
 */
public enum SqlError {
  /**
   * A statement waited {@code innodb_lock_wait_timeout} for a row lock in vain:
   * ER_LOCK_WAIT_TIMEOUT (1205), by code, as its SQLState differs between servers and drivers
   * (HY000, 40001, 41000). The server rolled back only that statement ({@code
   * innodb_rollback_on_timeout} is off by default): the caller rolls back the transaction.
   */
  LOCK_WAIT_TIMEOUT(null, 1205),
  /**
   * The server rolled the transaction back to break a deadlock (SQLState 40001, ER_LOCK_DEADLOCK).
   */
  DEADLOCK("40001"),
  /**
   * The server refused a row because its key is taken: SQLState 23000 with ER_DUP_ENTRY (1062) or
   * ER_DUP_ENTRY_WITH_KEY_NAME (1586). 23000 alone also covers NOT NULL and foreign key failures.
   */
  DUPLICATE_KEY("23000", 1062, 1586),
  /**
   * A foreign key refused a delete: SQLState 23000 with ER_ROW_IS_REFERENCED_2 (1451) or
   * ER_ROW_IS_REFERENCED (1217, when the server does not name the key).
   */
  ROW_REFERENCED("23000", 1451, 1217),
  /** The table does not exist (SQLState 42S02, ER_NO_SUCH_TABLE). */
  MISSING_TABLE("42S02"),
  /** A column does not exist (SQLState 42S22, ER_BAD_FIELD_ERROR). */
  MISSING_COLUMN("42S22"),
  /**
   * The login may not run this statement on this table or column: ER_TABLEACCESS_DENIED_ERROR
   * (1142) or ER_COLUMNACCESS_DENIED_ERROR (1143), SQLState 42000.
   */
  ACCESS_DENIED("42000", 1142, 1143);

  /** The SQLState; null when the vendor codes alone decide. */
  private final String sqlState;

  /** The vendor codes, any of which matches; none when the SQLState alone decides. */
  private final int[] codes;

  SqlError(String sqlState, int... codes) {
    this.sqlState = sqlState;
    this.codes = codes;
  }

  /** Whether {@code e} or one of its causes is this error. */
  public boolean matches(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && is(sql)) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /**
   * The first of these errors that {@code e} or one of its causes is; empty for any other failure.
   */
  public static Optional<SqlError> of(Throwable e) {
    return Arrays.stream(values()).filter(error -> error.matches(e)).findFirst();
  }

  /** Whether the transaction lost a race with another session and may succeed when tried again. */
  public static boolean isLockConflict(Throwable e) {
    return DEADLOCK.matches(e) || LOCK_WAIT_TIMEOUT.matches(e);
  }

  private boolean is(SQLException e) {
    if (sqlState != null && !sqlState.equals(e.getSQLState())) {
      return false;
    }
    return codes.length == 0 || Arrays.stream(codes).anyMatch(code -> code == e.getErrorCode());
  }
}
