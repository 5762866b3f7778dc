package org.xiaochong.method;

import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.xiaochong.pass.SampleGroup;

/**
 * What a method's pass did, for {@code summary.json}, the console and the report. The removed count
 * is the runner's (planned, or moved when applied), so it is passed in.
 */
public interface MethodReport {
  /** Live records of the window the pass examined. */
  long examined();

  /** The method's section of {@code summary.json}, with {@code removed} in it. */
  Map<String, Object> json(long removed);

  /** One line for the console, e.g. "exact: 3 groups, 5 duplicates to remove". */
  String consoleLine(long removed, boolean applied);

  /**
   * The lowest score (0 to 1, the scale of the plan's scores) a pair needs for this method to
   * remove one of it, for a method that decides by a similarity; empty for one that does not (the
   * default). The report marks it on the score chart and shows the pairs nearest to it first.
   */
  default OptionalDouble scoreThreshold() {
    return OptionalDouble.empty();
  }

  /** Groups to print as examples (kept and removed ids); empty when the method shows none. */
  default List<SampleGroup> samples() {
    return List.of();
  }

  /**
   * Lookups the pass made after the record key filter let them through that found the record alone
   * (the filter's false positives); 0 when the pass does not ask that filter.
   */
  default long recordFilterFalsePositives() {
    return 0;
  }

  /** The report of a method that did not run (it still has a section, with {@code removed}). */
  static MethodReport notRun() {
    return new MethodReport() {
      @Override
      public long examined() {
        return 0;
      }

      @Override
      public Map<String, Object> json(long removed) {
        return Map.of("removed", removed);
      }

      @Override
      public String consoleLine(long removed, boolean applied) {
        return null;
      }
    };
  }
}
