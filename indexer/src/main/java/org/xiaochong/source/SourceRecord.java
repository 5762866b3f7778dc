package org.xiaochong.source;

/**
 * One row of the source table as the pipeline sees it.
 *
 * @param id the row id
 * @param regTime the row's time in epoch milliseconds (UTC reading of the DATETIME), or {@link
 *     #NULL_TIME} when NULL: a NULL time counts as the oldest
 * @param values the values of {@link TableSpec#fingerprintColumns()}, in that order; NULLs are null
 */
public record SourceRecord(long id, long regTime, String[] values) {
  /** The time of a row whose time column is NULL: older than any real time. */
  public static final long NULL_TIME = Long.MIN_VALUE;
}
