package org.xiaochong.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.xiaochong.source.SourceRecord;

/** The keep rule: later time wins, then the larger id; a NULL time is the oldest. */
class KeepLatestPolicyTest {
  private static final long NULL = SourceRecord.NULL_TIME;

  /** Asserts that (time, id) {@code kept} is kept over {@code lost}, asked either way round. */
  private static void assertKeptOver(long keptTime, long keptId, long lostTime, long lostId) {
    assertThat(KeepLatestPolicy.isPreferred(keptTime, keptId, lostTime, lostId)).isTrue();
    assertThat(KeepLatestPolicy.isPreferred(lostTime, lostId, keptTime, keptId)).isFalse();
    assertThat(KeepLatestPolicy.compare(keptTime, keptId, lostTime, lostId)).isPositive();
    assertThat(KeepLatestPolicy.compare(lostTime, lostId, keptTime, keptId)).isNegative();
  }

  @Test
  void laterTimeWins_whateverTheIds() {
    assertKeptOver(2, 1, 1, 9);
    assertKeptOver(-1, 1, -2, 9);
  }

  @Test
  void equalTimes_largerIdWins() {
    assertKeptOver(5, 8, 5, 7);
    assertKeptOver(0, -1, 0, -2);
  }

  @Test
  void sameTimeAndId_isATie_neitherIsPreferred() {
    assertThat(KeepLatestPolicy.compare(5, 7, 5, 7)).isZero();
    assertThat(KeepLatestPolicy.isPreferred(5, 7, 5, 7)).isFalse();
    assertThat(KeepLatestPolicy.compare(NULL, 7, NULL, 7)).isZero();
  }

  @Test
  void nullTime_isTheOldest_evenAgainstTheSmallestRealTime() {
    assertThat(NULL).isEqualTo(Long.MIN_VALUE);
    assertKeptOver(Long.MIN_VALUE + 1, 1, NULL, 99);
    assertKeptOver(0, 1, NULL, 2);
    assertKeptOver(-1, 1, NULL, 2);
  }

  @Test
  void twoNullTimes_tie_largerIdWins() {
    assertKeptOver(NULL, 3, NULL, 2);
  }

  @Test
  void longExtremes_doNotOverflow() {
    // A subtraction-based comparison would overflow here and flip the answer.
    assertKeptOver(Long.MAX_VALUE, 0, Long.MIN_VALUE, 0);
    assertKeptOver(0, Long.MAX_VALUE, 0, Long.MIN_VALUE);
    assertKeptOver(Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1, Long.MAX_VALUE);
    assertThat(KeepLatestPolicy.isPreferred(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE))
        .isFalse();
  }

  @Test
  void isPreferred_agreesWithCompare_andCompareIsAntisymmetric() {
    long[] values = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE};
    for (long ta : values) {
      for (long ia : values) {
        for (long tb : values) {
          for (long ib : values) {
            int c = KeepLatestPolicy.compare(ta, ia, tb, ib);
            assertThat(KeepLatestPolicy.isPreferred(ta, ia, tb, ib)).isEqualTo(c > 0);
            assertThat(Integer.signum(KeepLatestPolicy.compare(tb, ib, ta, ia))).isEqualTo(-Integer.signum(c));
          }
        }
      }
    }
  }

  @Test
  void sqlPreferred_namesBothRows_andIsNeverNull() {
    String sql = KeepLatestPolicy.sqlPreferred("b", "a", "reg_time", "id");

    assertThat(sql).isEqualTo("((b.reg_time > a.reg_time"
        + " OR (b.reg_time IS NOT NULL AND a.reg_time IS NULL)"
        + " OR (b.reg_time <=> a.reg_time AND b.id > a.id)) IS TRUE)");
  }
}
