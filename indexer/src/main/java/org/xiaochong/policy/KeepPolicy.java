package org.xiaochong.policy;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * Which record of a duplicate group survives (config {@code keep.policy}): the one whose columns
 * rank highest, in the order the policy names them, and on a tie the larger id (the later insert).
 *
 * <ul>
 *   <li>{@code latest} (default): the latest time ({@code source.time-column}; seed 002, 第一步 ⑦:
 *       "REG_TIME 值最大的记录");
 *   <li>{@code earliest}: the earliest time (keep the first post, remove later reposts);
 *   <li>a list of columns with directions, e.g. {@code paid desc, reg_time desc}: integer columns
 *       (TINYINT … BIGINT, BOOLEAN, YEAR) and date/time columns (DATE, DATETIME, TIMESTAMP), {@code
 *       desc} keeping the largest value, {@code asc} the smallest ({@code desc} when left out).
 * </ul>
 *
 * <p><b>NULL never wins:</b> on every column, in either direction, a NULL sorts after every value,
 * and two NULLs tie (SQL's {@code NULLS LAST} of the preference order). A date that names no day
 * (the zero date {@code 0000-00-00}, {@code 2024-00-00}) counts as NULL, as it does for the time
 * column. So under {@code latest} a record without a time is the oldest, and under {@code earliest}
 * it is not the first either: a record with a real time is kept.
 *
 * <p><b>The rank.</b> {@link #rank} maps a record to a tuple of longs, one per column, such that
 * the preferred record has the larger tuple (compared element by element, signed): a {@code desc}
 * value as it is, an {@code asc} value bitwise inverted ({@code -v - 1}), a time as epoch
 * milliseconds, NULL as {@link Long#MIN_VALUE}. The least preferred integer of each direction ties
 * with its neighbour, to keep NULL apart: {@code desc} −2^63 ranks as −2^63+1, {@code asc} 2^63−1
 * as 2^63−2. The index keeps the rank of every record (computed when it is indexed), so the passes,
 * {@code check}, the apply's re-check and any job reading the index compare records the same way,
 * with {@link #compare}. Under {@code latest} the rank is the time itself, which the index holds
 * anyway.
 *
 * <p>{@link #sqlPreferred} is the same rule as a SQL condition, for SQL that checks or mimics a
 * run. Immutable; thread-safe.
 */
public final class KeepPolicy {
  /** The value of {@code keep.policy} that keeps the latest record. */
  public static final String LATEST = "latest";

  /** The value of {@code keep.policy} that keeps the earliest record. */
  public static final String EARLIEST = "earliest";

  /** One column of the policy and its direction: {@code descending} keeps the largest value. */
  public record Key(String column, boolean descending) {}

  private final String timeColumn;
  private final List<Key> keys;

  KeepPolicy(String timeColumn, List<Key> keys) {
    this.timeColumn = timeColumn;
    this.keys = List.copyOf(keys);
  }

  /** The default: the latest {@code timeColumn}, ties by the larger id. */
  public static KeepPolicy latest(String timeColumn) {
    return new KeepPolicy(timeColumn, List.of(new Key(timeColumn, true)));
  }

  /**
   * Parses {@code keep.policy}: {@code latest}, {@code earliest}, or {@code column [asc|desc], …}.
   * Column names are validated as SQL identifiers (and checked against the table when it is
   * opened); {@code latest} and {@code earliest} name {@code timeColumn}.
   *
   * @throws BadInputException naming what is wrong
   */
  public static KeepPolicy parse(String text, String timeColumn) {
    return KeepPolicyParser.parse(text, timeColumn);
  }

  /** The columns, in order of precedence, with their directions. */
  public List<Key> keys() {
    return keys;
  }

  /** Number of longs in a rank ({@link #rank}). */
  public int width() {
    return keys.size();
  }

  /** Whether this is {@code latest}: the rank is the time, which the index keeps anyway. */
  public boolean isLatest() {
    return keys.size() == 1 && keys.get(0).column().equals(timeColumn) && keys.get(0).descending();
  }

  /** The time column ({@code source.time-column}); its values come as the record's time. */
  public String timeColumn() {
    return timeColumn;
  }

  /**
   * The policy's columns other than the time column: the record source reads them with the
   * fingerprint columns.
   */
  public List<String> valueColumns() {
    return keys.stream().map(Key::column).filter(c -> !c.equals(timeColumn)).toList();
  }

  /**
   * The canonical text: {@code latest}, {@code earliest} or {@code a desc, b asc}; equal for equal
   * policies.
   */
  public String canonical() {
    if (isLatest()) {
      return LATEST;
    }
    if (keys.size() == 1 && keys.get(0).column().equals(timeColumn)) {
      return EARLIEST;
    }
    return String.join(
        ", ", keys.stream().map(k -> k.column() + (k.descending() ? " desc" : " asc")).toList());
  }

  @Override
  public String toString() {
    return canonical();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof KeepPolicy policy
        && policy.timeColumn.equals(timeColumn)
        && policy.keys.equals(keys);
  }

  @Override
  public int hashCode() {
    return keys.hashCode() * 31 + timeColumn.hashCode();
  }

  // ---- the rank ---------------------------------------------------------------------------------

  /**
   * The rank of a record: its time (epoch ms, {@link SourceRecord#NULL_TIME} for NULL) and the
   * values of the other columns, each looked up by column name ({@code values.apply(column)}: null
   * for NULL, a {@link Number}, {@link Boolean}, {@link LocalDateTime}, {@link LocalDate}, {@link
   * java.util.Date}, or text as the server prints it: {@code 12}, {@code 2024-05-01 08:00:00}). For
   * an online service or a Spark job ranking records the way the index does.
   *
   * @throws BadInputException when a value is neither an integer nor a date/time
   */
  public long[] rank(long time, Function<String, ?> values) {
    long[] rank = new long[keys.size()];
    for (int i = 0; i < rank.length; i++) {
      Key key = keys.get(i);
      Long value =
          key.column().equals(timeColumn)
              ? (time == SourceRecord.NULL_TIME ? null : time)
              : RankValues.value(key.column(), values.apply(key.column()));
      rank[i] = directed(value, key.descending());
    }
    return rank;
  }

  /** As {@link #rank(long, Function)} with the values of a map (a missing column is NULL). */
  public long[] rank(long time, Map<String, ?> values) {
    return rank(time, (Function<String, ?>) values::get);
  }

  /**
   * As {@link #rank(long, Function)} for a record read with the columns {@code columns} ({@link
   * TableSpec#fingerprintColumns}).
   */
  public long[] rank(SourceRecord record, List<String> columns) {
    byte[][] utf8 = record.utf8OrNull();
    return rank(
        record.regTime(),
        column -> {
          int at = columns.indexOf(column);
          if (at < 0) {
            throw new IllegalArgumentException(
                "keep.policy column " + column + " is not among the columns read " + columns);
          }
          return utf8 != null
              ? (utf8[at] == null
                  ? null
                  : new String(utf8[at], java.nio.charset.StandardCharsets.UTF_8))
              : record.values()[at];
        });
  }

  /**
   * The rank value of {@code value} in a direction: larger is preferred; NULL ({@link
   * Long#MIN_VALUE}) is the least. desc −2^63 ranks as −2^63+1 and asc 2^63−1 as 2^63−2, to keep
   * NULL apart.
   */
  private static long directed(Long value, boolean descending) {
    if (value == null) {
      return Long.MIN_VALUE;
    }
    long v = value;
    long directed = descending ? v : ~v;
    return directed == Long.MIN_VALUE ? Long.MIN_VALUE + 1 : directed;
  }

  // ---- the one comparator -----------------------------------------------------------------------

  /**
   * Orders records by preference: positive when record A is kept over record B, negative when B is
   * kept over A, 0 only for the same rank and id. Larger rank first, then the larger id.
   */
  public static int compare(long[] rankA, long idA, long[] rankB, long idB) {
    for (int i = 0; i < rankA.length; i++) {
      int c = Long.compare(rankA[i], rankB[i]);
      if (c != 0) {
        return c;
      }
    }
    return Long.compare(idA, idB);
  }

  /**
   * As {@link #compare(long[], long, long[], long)} for ranks of one long: a one-column policy's
   * rank, or a record's position among ranks ({@code IndexSnapshot}), where a larger value is
   * preferred.
   */
  public static int compare(long rankA, long idA, long rankB, long idB) {
    int byRank = Long.compare(rankA, rankB);
    return byRank != 0 ? byRank : Long.compare(idA, idB);
  }

  /** True when record A should be kept over record B. */
  public static boolean isPreferred(long rankA, long idA, long rankB, long idB) {
    return compare(rankA, idA, rankB, idB) > 0;
  }

  /** True when record A should be kept over record B. */
  public static boolean isPreferred(long[] rankA, long idA, long[] rankB, long idB) {
    return compare(rankA, idA, rankB, idB) > 0;
  }

  // ---- the same rule in SQL ---------------------------------------------------------------------

  /**
   * A SQL (MariaDB) condition, true when row {@code preferred} is kept over row {@code other} by
   * this policy, and false (never NULL) otherwise, so it can be negated safely. Column by column: a
   * larger ({@code desc}) or smaller ({@code asc}) value wins, a value wins over NULL, two NULLs
   * tie; then the larger id. Dates that name no day count as NULL, as in {@link #rank}.
   *
   * @param preferred the alias (or table) of the row asked about, e.g. {@code b}
   * @param other the alias of the row it is compared with, e.g. {@code a}
   * @param idColumn the id column (a validated identifier; quoted here)
   * @param dateColumns the policy's columns other than the time column that hold dates or times
   *     (the time column always does): their zero dates are NULLs
   */
  public String sqlPreferred(
      String preferred, String other, String idColumn, Set<String> dateColumns) {
    return KeepPolicySql.preferred(keys, timeColumn, preferred, other, idColumn, dateColumns);
  }
}
