package org.xiaochong.spark.exact;

import java.util.LinkedHashMap;
import java.util.Map;
import org.xiaochong.method.MethodReport;
import org.xiaochong.spark.count.PartitionCounter;

/**
 * The exact stage's report, as the single machine's exact pass reports (without its index lookups),
 * its groups counted by the executors.
 */
record ExactReport(long examined, PartitionCounter groups) implements MethodReport {
  @Override
  public Map<String, Object> json(long removed) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("groups", groups.value());
    json.put("removed", removed);
    return json;
  }

  @Override
  public String consoleLine(long removed, boolean applied) {
    return String.format(
        "exact: %,d groups, %,d duplicates %s",
        groups.value(), removed, applied ? "removed" : "to remove");
  }
}
