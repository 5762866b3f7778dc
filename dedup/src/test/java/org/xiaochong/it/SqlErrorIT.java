package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.xiaochong.source.SqlError;

/**
 * The server's own errors, as the driver and Jdbi deliver them, are told apart by {@link SqlError}.
 */
@Tag("db")
class SqlErrorIT extends DbTestSupport {
  @BeforeEach
  void tables() {
    useHandle(
        h -> {
          h.execute("DROP TABLE IF EXISTS sql_error_child");
          h.execute("DROP TABLE IF EXISTS sql_error_parent");
          h.execute(
              "CREATE TABLE sql_error_parent (id BIGINT PRIMARY KEY, note VARCHAR(8) NOT NULL) ENGINE=InnoDB");
          h.execute(
              "CREATE TABLE sql_error_child (id BIGINT PRIMARY KEY, parent_id BIGINT NOT NULL,"
                  + " FOREIGN KEY (parent_id) REFERENCES sql_error_parent (id)) ENGINE=InnoDB");
          h.execute("INSERT INTO sql_error_parent VALUES (1, 'a'), (2, 'b')");
          h.execute("INSERT INTO sql_error_child VALUES (10, 1)");
        });
  }

  private static Throwable failure(String sql) {
    return catchThrowable(() -> useHandle(h -> h.execute(sql)));
  }

  @Test
  void of_serverErrors_eachItsOwn() {
    assertThat(SqlError.of(failure("INSERT INTO sql_error_parent VALUES (1, 'c')")))
        .contains(SqlError.DUPLICATE_KEY);
    assertThat(SqlError.of(failure("DELETE FROM sql_error_parent WHERE id = 1")))
        .contains(SqlError.ROW_REFERENCED);
    assertThat(SqlError.of(failure("SELECT * FROM sql_error_nowhere")))
        .contains(SqlError.MISSING_TABLE);
    assertThat(SqlError.of(failure("SELECT nowhere FROM sql_error_parent")))
        .contains(SqlError.MISSING_COLUMN);
    // A NOT NULL failure shares the duplicate key's SQLState (23000) and is none of them.
    assertThat(SqlError.of(failure("INSERT INTO sql_error_parent VALUES (3, NULL)"))).isEmpty();
  }

  @Test
  void of_rowLockedByAnotherSession_isLockWaitTimeout() {
    try (Handle holder = database().jdbi().open();
        Handle waiter = database().jdbi().open()) {
      holder.begin();
      holder.execute("UPDATE sql_error_parent SET note = 'held' WHERE id = 2");
      waiter.execute("SET SESSION innodb_lock_wait_timeout = 1");
      Throwable timedOut =
          catchThrowable(
              () -> waiter.execute("UPDATE sql_error_parent SET note = 'wait' WHERE id = 2"));
      holder.rollback();

      assertThat(SqlError.of(timedOut)).contains(SqlError.LOCK_WAIT_TIMEOUT);
      assertThat(SqlError.isLockConflict(timedOut)).isTrue();
    }
  }
}
