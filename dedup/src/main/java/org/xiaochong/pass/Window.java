package org.xiaochong.pass;

import java.time.LocalDateTime;
import java.util.Arrays;
import org.xiaochong.source.RecordSource;

/**
 * The records a pass examines: those whose REG_TIME is in a range (seed 002 step ④: "按照时间段 …
 * RangeQuery"; both ends inclusive, in epoch milliseconds), or a given set of record ids (a nightly
 * run: the records indexed since the last applied run). The default covers everything, NULL times
 * included. Duplicates are looked up over the whole index, so a copy outside the window is still
 * found.
 *
 * @param ids the record ids of the window, ascending, or null for a time window
 */
public record Window(long since, long until, long[] ids) {
  public static final Window ALL = new Window(Long.MIN_VALUE, Long.MAX_VALUE);

  public Window {
    if (since > until) {
      throw new IllegalArgumentException(
          "--since ("
              + RecordSource.fromMillis(since)
              + ") is after --until ("
              + RecordSource.fromMillis(until)
              + ")");
    }
  }

  public Window(long since, long until) {
    this(since, until, null);
  }

  public static Window of(LocalDateTime since, LocalDateTime until) {
    return new Window(
        since == null ? Long.MIN_VALUE : RecordSource.toMillis(since),
        until == null ? Long.MAX_VALUE : RecordSource.toMillis(until));
  }

  /** The records with these ids (ascending), whatever their time. */
  public static Window ofIds(long[] idsSorted) {
    return new Window(Long.MIN_VALUE, Long.MAX_VALUE, idsSorted);
  }

  public boolean isAll() {
    return ids == null && since == Long.MIN_VALUE && until == Long.MAX_VALUE;
  }

  /** Whether the record with this id and time is in the window. */
  public boolean contains(long id, long time) {
    return time >= since && time <= until && (ids == null || Arrays.binarySearch(ids, id) >= 0);
  }
}
