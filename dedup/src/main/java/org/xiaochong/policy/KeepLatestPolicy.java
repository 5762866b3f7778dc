package org.xiaochong.policy;

/**
 * Which record of a duplicate group survives: the one with the latest time (seed 002, 第一步 ⑦:
 * "REG_TIME 值最大的记录"); on a tie the larger id, i.e. the later insert. A NULL time is {@code
 * Long.MIN_VALUE} ({@code SourceRecord.NULL_TIME}), so it loses to any real time and ties only with
 * another NULL. Stateless.
 *
 * <p>This class is the one definition of the rule: the passes, the online checker, the archive's
 * re-check and the SQL that checks or mimics a run ({@link #sqlPreferred}) all take it from here, so
 * they cannot disagree on which copy is kept.
 */
public final class KeepLatestPolicy {
  private KeepLatestPolicy() {}

  /**
   * Orders records by preference: positive when record A (timeA, idA) is kept over record B, negative
   * when B is kept over A, 0 only for the same (time, id). Later time first, then the larger id.
   */
  public static int compare(long timeA, long idA, long timeB, long idB) {
    int byTime = Long.compare(timeA, timeB);
    return byTime != 0 ? byTime : Long.compare(idA, idB);
  }

  /** True when record (timeA, idA) should be kept over record (timeB, idB). */
  public static boolean isPreferred(long timeA, long idA, long timeB, long idB) {
    return compare(timeA, idA, timeB, idB) > 0;
  }

  /**
   * A SQL (MariaDB) condition, true when row {@code preferred} is kept over row {@code other} by this
   * rule, and false (never NULL) otherwise, so it can be negated safely. A NULL time is the oldest and
   * two NULL times tie, as {@code Long.MIN_VALUE} does in {@link #compare}.
   *
   * @param preferred the alias (or table) of the row asked about, e.g. {@code b}
   * @param other the alias of the row it is compared with, e.g. {@code a}
   * @param timeColumn the time column, as it may stand in SQL (quoted where needed)
   * @param idColumn the id column, as it may stand in SQL
   */
  public static String sqlPreferred(String preferred, String other, String timeColumn, String idColumn) {
    String tp = preferred + "." + timeColumn;
    String to = other + "." + timeColumn;
    return "((" + tp + " > " + to
        + " OR (" + tp + " IS NOT NULL AND " + to + " IS NULL)"
        + " OR (" + tp + " <=> " + to + " AND " + preferred + "." + idColumn + " > " + other + "." + idColumn
        + ")) IS TRUE)";
  }
}
