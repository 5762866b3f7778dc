package org.xiaochong.pass;

import java.time.LocalDateTime;
import org.xiaochong.source.RecordSource;

/**
 * The REG_TIME range whose records a pass examines (seed 002 step ④: "按照时间段 … RangeQuery").
 * Both ends inclusive, in epoch milliseconds; the default covers everything, NULL times included.
 * Duplicates are looked up over the whole index, so a copy older than the window is still found.
 */
public record Window(long since, long until) {
  public static final Window ALL = new Window(Long.MIN_VALUE, Long.MAX_VALUE);

  public Window {
    if (since > until) {
      throw new IllegalArgumentException("--since (" + RecordSource.fromMillis(since) + ") is after --until ("
          + RecordSource.fromMillis(until) + ")");
    }
  }

  public static Window of(LocalDateTime since, LocalDateTime until) {
    return new Window(
        since == null ? Long.MIN_VALUE : RecordSource.toMillis(since),
        until == null ? Long.MAX_VALUE : RecordSource.toMillis(until));
  }

  public boolean isAll() {
    return since == Long.MIN_VALUE && until == Long.MAX_VALUE;
  }
}
