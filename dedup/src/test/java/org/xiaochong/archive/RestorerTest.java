package org.xiaochong.archive;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import org.junit.jupiter.api.Test;

/** Which server errors a restore reports as a row already back in the table. */
class RestorerTest {
  @Test
  void isDuplicateKey_byErrorCodeUnderAWrapper_whateverTheMessageLanguage() {
    SQLException duplicate = new SQLIntegrityConstraintViolationException("Doppelter Eintrag '1' für Schlüssel 'PRIMARY'",
        "23000", 1062);
    assertThat(Restorer.isDuplicateKey(new IllegalStateException("statement failed", duplicate))).isTrue();
    assertThat(Restorer.isDuplicateKey(new SQLException("Duplicate entry '1' for key 'PRIMARY'", "23000", 1586)))
        .isTrue();
  }

  @Test
  void isDuplicateKey_otherConstraintOrNoSqlError_isNot() {
    assertThat(Restorer.isDuplicateKey(new SQLException("Column 'title' cannot be null", "23000", 1048))).isFalse();
    assertThat(Restorer.isDuplicateKey(new IllegalStateException("Duplicate entry '1' for key 'PRIMARY'"))).isFalse();
  }
}
