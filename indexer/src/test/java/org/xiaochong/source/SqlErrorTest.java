package org.xiaochong.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLTransactionRollbackException;
import org.junit.jupiter.api.Test;

/** Which server errors are which, by SQLState and vendor code, whatever the message says. */
class SqlErrorTest {
  @Test
  void duplicateKey_byErrorCodeUnderAWrapper_whateverTheMessageLanguage() {
    SQLException duplicate =
        new SQLIntegrityConstraintViolationException(
            "Doppelter Eintrag '1' für Schlüssel 'PRIMARY'", "23000", 1062);
    assertThat(
            SqlError.DUPLICATE_KEY.matches(
                new IllegalStateException("statement failed", duplicate)))
        .isTrue();
    assertThat(
            SqlError.DUPLICATE_KEY.matches(
                new SQLException("Duplicate entry '1' for key 'PRIMARY'", "23000", 1586)))
        .isTrue();
  }

  @Test
  void duplicateKey_otherConstraintOrNoSqlError_isNot() {
    assertThat(
            SqlError.DUPLICATE_KEY.matches(
                new SQLException("Column 'title' cannot be null", "23000", 1048)))
        .isFalse();
    assertThat(
            SqlError.DUPLICATE_KEY.matches(
                new IllegalStateException("Duplicate entry '1' for key 'PRIMARY'")))
        .isFalse();
    assertThat(SqlError.of(new SQLException("Column 'title' cannot be null", "23000", 1048)))
        .isEmpty();
  }

  @Test
  void lockWaitTimeout_byCode_whateverTheSqlState() {
    for (String state : new String[] {"HY000", "40001", "41000"}) {
      SQLException timeout = new SQLException("Lock wait timeout exceeded", state, 1205);
      assertThat(SqlError.LOCK_WAIT_TIMEOUT.matches(new RuntimeException(timeout)))
          .as(state)
          .isTrue();
      assertThat(SqlError.isLockConflict(timeout)).as(state).isTrue();
    }
  }

  @Test
  void deadlock_bySqlState_isALockConflict() {
    SQLException deadlock = new SQLTransactionRollbackException("Deadlock found", "40001", 1213);
    assertThat(SqlError.of(new IllegalStateException("batch failed", deadlock)))
        .contains(SqlError.DEADLOCK);
    assertThat(SqlError.isLockConflict(deadlock)).isTrue();
    assertThat(
            SqlError.isLockConflict(new SQLException("Table 'x.t' doesn't exist", "42S02", 1146)))
        .isFalse();
  }

  @Test
  void foreignKeyRefusal_isRowReferenced_notDuplicateKey() {
    SQLException refused =
        new SQLIntegrityConstraintViolationException(
            "Cannot delete or update a parent row", "23000", 1451);
    assertThat(SqlError.of(refused)).contains(SqlError.ROW_REFERENCED);
    assertThat(SqlError.ROW_REFERENCED.matches(new SQLException("Cannot delete", "23000", 1217)))
        .isTrue();
  }

  @Test
  void missingTableAndColumn_bySqlState() {
    assertThat(SqlError.of(new SQLException("Table 'x.t' doesn't exist", "42S02", 1146)))
        .contains(SqlError.MISSING_TABLE);
    assertThat(SqlError.of(new SQLException("Unknown column 'c'", "42S22", 1054)))
        .contains(SqlError.MISSING_COLUMN);
  }

  @Test
  void selfCausedException_endsTheSearch() {
    RuntimeException loop =
        new RuntimeException("no SQL error") {
          @Override
          public synchronized Throwable getCause() {
            return this;
          }
        };
    assertThat(SqlError.of(loop)).isEmpty();
  }
}
