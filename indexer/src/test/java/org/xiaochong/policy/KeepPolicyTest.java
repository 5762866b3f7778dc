package org.xiaochong.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/** The keep rule: the policy's columns in order, NULL never wins, then the larger id. */
class KeepPolicyTest {
  private static final long NULL = SourceRecord.NULL_TIME;
  private static final KeepPolicy LATEST = KeepPolicy.latest("reg_time");
  private static final KeepPolicy EARLIEST = KeepPolicy.parse("earliest", "reg_time");
  private static final KeepPolicy PAID_THEN_LATEST =
      KeepPolicy.parse("paid desc, reg_time desc", "reg_time");

  /** Asserts that (rank, id) {@code kept} is kept over {@code lost}, asked either way round. */
  private static void assertKeptOver(long keptRank, long keptId, long lostRank, long lostId) {
    assertThat(KeepPolicy.isPreferred(keptRank, keptId, lostRank, lostId)).isTrue();
    assertThat(KeepPolicy.isPreferred(lostRank, lostId, keptRank, keptId)).isFalse();
    assertThat(KeepPolicy.compare(keptRank, keptId, lostRank, lostId)).isPositive();
    assertThat(KeepPolicy.compare(lostRank, lostId, keptRank, keptId)).isNegative();
  }

  /**
   * Asserts that record (time, values, id) {@code kept} is kept over {@code lost} under {@code
   * policy}.
   */
  private static void assertKeptOver(
      KeepPolicy policy,
      long keptTime,
      Map<String, ?> keptValues,
      long keptId,
      long lostTime,
      Map<String, ?> lostValues,
      long lostId) {
    long[] kept = policy.rank(keptTime, keptValues);
    long[] lost = policy.rank(lostTime, lostValues);
    assertThat(KeepPolicy.isPreferred(kept, keptId, lost, lostId)).isTrue();
    assertThat(KeepPolicy.isPreferred(lost, lostId, kept, keptId)).isFalse();
    assertThat(KeepPolicy.compare(kept, keptId, lost, lostId)).isPositive();
    assertThat(KeepPolicy.compare(lost, lostId, kept, keptId)).isNegative();
  }

  private static Map<String, Object> paid(Object value) {
    Map<String, Object> values = new HashMap<>();
    values.put("paid", value);
    return values;
  }

  private static long millis(String time) {
    return LocalDateTime.parse(time).toInstant(ZoneOffset.UTC).toEpochMilli();
  }

  @Test
  void laterRankWins_whateverTheIds() {
    assertKeptOver(2, 1, 1, 9);
    assertKeptOver(-1, 1, -2, 9);
  }

  @Test
  void equalRanks_largerIdWins() {
    assertKeptOver(5, 8, 5, 7);
    assertKeptOver(0, -1, 0, -2);
  }

  @Test
  void sameRankAndId_isATie_neitherIsPreferred() {
    assertThat(KeepPolicy.compare(5, 7, 5, 7)).isZero();
    assertThat(KeepPolicy.isPreferred(5, 7, 5, 7)).isFalse();
    assertThat(KeepPolicy.compare(NULL, 7, NULL, 7)).isZero();
    assertThat(KeepPolicy.compare(new long[] {1, NULL}, 7, new long[] {1, NULL}, 7)).isZero();
  }

  @Test
  void latest_rankIsTheTime_nullTimeIsTheOldest() {
    assertThat(LATEST.isLatest()).isTrue();
    assertThat(LATEST.rank(1234, Map.of())).containsExactly(1234);
    assertThat(LATEST.rank(NULL, Map.of())).containsExactly(Long.MIN_VALUE);
    assertKeptOver(LATEST, 0, Map.of(), 1, NULL, Map.of(), 2);
    assertKeptOver(LATEST, Long.MIN_VALUE + 1, Map.of(), 1, NULL, Map.of(), 99);
  }

  @Test
  void latest_twoNullTimes_tie_largerIdWins() {
    assertKeptOver(LATEST, NULL, Map.of(), 3, NULL, Map.of(), 2);
  }

  @Test
  void earliest_keepsTheOldest_tiesByLargerId() {
    long older = millis("2020-01-01T00:00");
    long newer = millis("2024-06-30T12:00");
    assertKeptOver(EARLIEST, older, Map.of(), 1, newer, Map.of(), 2);
    assertKeptOver(EARLIEST, -5, Map.of(), 1, 7, Map.of(), 2); // before 1970 too
    assertKeptOver(EARLIEST, older, Map.of(), 9, older, Map.of(), 8);
  }

  @Test
  void earliest_nullTimeNeverWins_evenAgainstTheLatestTime() {
    assertKeptOver(EARLIEST, millis("2099-12-31T23:59"), Map.of(), 1, NULL, Map.of(), 2);
    assertKeptOver(EARLIEST, NULL, Map.of(), 3, NULL, Map.of(), 2);
  }

  @Test
  void customColumn_decidesFirst_thenTime_thenId() {
    long older = millis("2020-01-01T00:00");
    long newer = millis("2024-01-01T00:00");
    assertKeptOver(
        PAID_THEN_LATEST, older, paid(1), 1, newer, paid(0), 2); // paid wins over a newer free post
    assertKeptOver(PAID_THEN_LATEST, newer, paid(1), 1, older, paid(1), 2); // both paid: the latest
    assertKeptOver(
        PAID_THEN_LATEST, newer, paid(1), 5, newer, paid(1), 4); // all equal: the larger id
  }

  @Test
  void customColumn_nullNeverWins_twoNullsTie() {
    long older = millis("2020-01-01T00:00");
    long newer = millis("2024-01-01T00:00");
    assertKeptOver(
        PAID_THEN_LATEST, older, paid(0), 1, newer, paid(null), 2); // 0 is a value, NULL is none
    assertKeptOver(
        PAID_THEN_LATEST, newer, paid(null), 1, older, paid(null), 2); // NULL = NULL: then the time
    assertKeptOver(
        PAID_THEN_LATEST, NULL, paid(null), 3, NULL, Map.of(), 2); // missing = NULL: then the id
    KeepPolicy cheapest = KeepPolicy.parse("price asc", "reg_time");
    assertKeptOver(
        cheapest, 0, Map.of("price", 900), 1, 0, new HashMap<>(), 2); // asc: NULL still last
    assertKeptOver(cheapest, 0, Map.of("price", 100), 1, 0, Map.of("price", 900), 2);
  }

  @Test
  void integerExtremes_stayApartFromNull_andKeepTheirOrder() {
    KeepPolicy desc = KeepPolicy.parse("score", "reg_time");
    KeepPolicy asc = KeepPolicy.parse("score asc", "reg_time");
    assertKeptOver(desc, 0, Map.of("score", Long.MIN_VALUE), 1, 0, new HashMap<>(), 2);
    assertKeptOver(
        desc, 0, Map.of("score", Long.MAX_VALUE), 1, 0, Map.of("score", Long.MAX_VALUE - 1), 2);
    assertKeptOver(
        asc, 0, Map.of("score", Long.MIN_VALUE), 1, 0, Map.of("score", Long.MIN_VALUE + 1), 2);
    assertKeptOver(asc, 0, Map.of("score", Long.MAX_VALUE), 1, 0, new HashMap<>(), 2);
    // the least preferred value of each direction ties with its neighbour (then the id decides)
    assertThat(desc.rank(0, Map.of("score", Long.MIN_VALUE)))
        .isEqualTo(desc.rank(0, Map.of("score", Long.MIN_VALUE + 1)));
    assertThat(asc.rank(0, Map.of("score", Long.MAX_VALUE)))
        .isEqualTo(asc.rank(0, Map.of("score", Long.MAX_VALUE - 1)));
  }

  @Test
  void values_asTheServerPrintsThem_orAsJavaValues() {
    KeepPolicy seen = KeepPolicy.parse("seen desc", "reg_time");
    long expected = millis("2024-05-01T08:00:00.123");
    assertThat(seen.rank(0, Map.of("seen", "2024-05-01 08:00:00.123456")))
        .containsExactly(expected);
    assertThat(seen.rank(0, Map.of("seen", LocalDateTime.parse("2024-05-01T08:00:00.123"))))
        .containsExactly(expected);
    assertThat(seen.rank(0, Map.of("seen", "2024-05-01")))
        .containsExactly(millis("2024-05-01T00:00"));
    assertThat(seen.rank(0, Map.of("seen", LocalDate.parse("2024-05-01"))))
        .containsExactly(millis("2024-05-01T00:00"));
    assertThat(seen.rank(0, Map.of("seen", "0000-00-00 00:00:00"))).containsExactly(Long.MIN_VALUE);
    assertThat(seen.rank(0, Map.of("seen", "2024-00-00"))).containsExactly(Long.MIN_VALUE);
    assertThat(seen.rank(0, Map.of("seen", "12"))).containsExactly(12);
    assertThat(seen.rank(0, Map.of("seen", true))).containsExactly(1);
    assertThat(seen.rank(0, Map.of("seen", ""))).containsExactly(Long.MIN_VALUE);
    assertThatThrownBy(() -> seen.rank(0, Map.of("seen", "soon")))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("keep.policy column seen has value 'soon'");
  }

  @Test
  void rankOfARecord_readsItsColumnsByName_asStringsOrUtf8() {
    List<String> columns = List.of("title", "paid");
    SourceRecord strings = new SourceRecord(7, 1000, new String[] {"t", "1"});
    SourceRecord utf8 = SourceRecord.ofUtf8(7, 1000, new byte[][] {"t".getBytes(), "1".getBytes()});
    assertThat(PAID_THEN_LATEST.rank(strings, columns)).containsExactly(1, 1000);
    assertThat(PAID_THEN_LATEST.rank(utf8, columns)).containsExactly(1, 1000);
  }

  @Test
  void parse_acceptsTheThreeForms_andSaysWhatItParsed() {
    assertThat(KeepPolicy.parse(" Latest ", "reg_time")).isEqualTo(LATEST);
    assertThat(EARLIEST.canonical()).isEqualTo("earliest");
    assertThat(EARLIEST.isLatest()).isFalse();
    assertThat(PAID_THEN_LATEST.keys())
        .containsExactly(new KeepPolicy.Key("paid", true), new KeepPolicy.Key("reg_time", true));
    assertThat(PAID_THEN_LATEST.valueColumns()).containsExactly("paid");
    assertThat(KeepPolicy.parse("paid,REG_TIME asc", "reg_time").canonical())
        .isEqualTo("paid desc, reg_time asc");
    assertThat(KeepPolicy.parse("reg_time desc", "reg_time").isLatest()).isTrue();
  }

  @Test
  void parse_refusesBadInput_inOneLineNamingIt() {
    assertThatThrownBy(() -> KeepPolicy.parse("", "reg_time"))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("keep.policy is empty");
    assertThatThrownBy(() -> KeepPolicy.parse("paid downwards", "reg_time"))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("'paid downwards' is not 'column', 'column asc' or 'column desc'");
    assertThatThrownBy(() -> KeepPolicy.parse("paid; drop table x", "reg_time"))
        .isInstanceOf(BadInputException.class);
    assertThatThrownBy(() -> KeepPolicy.parse("paid, PAID asc", "reg_time"))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("twice");
    assertThatThrownBy(() -> KeepPolicy.parse("paid,", "reg_time"))
        .isInstanceOf(BadInputException.class);
    assertThatThrownBy(
            () -> TableSpec.sample().withKeepPolicy(KeepPolicy.parse("id desc", "reg_time")))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("names the id column");
  }

  @Test
  void tableSpec_readsThePolicyColumns_afterTheFingerprintColumns() {
    TableSpec spec = TableSpec.sample().withKeepPolicy(PAID_THEN_LATEST);
    assertThat(spec.fingerprintColumns()).endsWith("paid");
    assertThat(TableSpec.sample().fingerprintColumns()).doesNotContain("paid");
    assertThat(TableSpec.sample().keepPolicy()).isEqualTo(LATEST);
  }

  @Test
  void longExtremes_doNotOverflow() {
    assertKeptOver(Long.MAX_VALUE, 0, Long.MIN_VALUE, 0);
    assertKeptOver(0, Long.MAX_VALUE, 0, Long.MIN_VALUE);
    assertKeptOver(Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1, Long.MAX_VALUE);
    assertThat(
            KeepPolicy.isPreferred(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE))
        .isFalse();
  }

  @Test
  void isPreferred_agreesWithCompare_andCompareIsAntisymmetric() {
    long[] values = {
      Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE
    };
    for (long ta : values) {
      for (long ia : values) {
        for (long tb : values) {
          for (long ib : values) {
            int c = KeepPolicy.compare(ta, ia, tb, ib);
            assertThat(KeepPolicy.isPreferred(ta, ia, tb, ib)).isEqualTo(c > 0);
            assertThat(Integer.signum(KeepPolicy.compare(tb, ib, ta, ia)))
                .isEqualTo(-Integer.signum(c));
            assertThat(KeepPolicy.compare(new long[] {ta}, ia, new long[] {tb}, ib)).isEqualTo(c);
          }
        }
      }
    }
  }

  @Test
  void sqlPreferred_namesBothRows_columnByColumn_andIsNeverNull() {
    String time = "IF(MONTH(b.`reg_time`) = 0 OR DAYOFMONTH(b.`reg_time`) = 0, NULL, b.`reg_time`)";
    String timeA =
        "IF(MONTH(a.`reg_time`) = 0 OR DAYOFMONTH(a.`reg_time`) = 0, NULL, a.`reg_time`)";
    assertThat(LATEST.sqlPreferred("b", "a", "id", Set.of()))
        .isEqualTo(
            "(("
                + time
                + " > "
                + timeA
                + " OR ("
                + time
                + " IS NOT NULL AND "
                + timeA
                + " IS NULL)"
                + " OR ("
                + time
                + " <=> "
                + timeA
                + " AND b.`id` > a.`id`)) IS TRUE)");
    assertThat(PAID_THEN_LATEST.sqlPreferred("b", "a", "id", Set.of()))
        .startsWith(
            "((b.`paid` > a.`paid` OR (b.`paid` IS NOT NULL AND a.`paid` IS NULL) OR (b.`paid` <=> a.`paid` AND ("
                + time);
    assertThat(EARLIEST.sqlPreferred("b", "a", "id", Set.of())).contains(time + " < " + timeA);
  }
}
