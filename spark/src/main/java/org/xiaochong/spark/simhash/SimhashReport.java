package org.xiaochong.spark.simhash;

import java.util.LinkedHashMap;
import java.util.Map;
import org.xiaochong.method.MethodReport;
import org.xiaochong.method.simhash.SimhashMethod;
import org.xiaochong.spark.count.PartitionCounter;
import org.xiaochong.spark.graph.ComponentSizes;

/**
 * The simhash stage's report, as the single machine's simhash pass reports (without its index's
 * work), its matches counted by the executors, with the components it decided in.
 */
record SimhashReport(
    long examined, long empty, int maxDistance, PartitionCounter matches, ComponentSizes components)
    implements MethodReport {
  @Override
  public java.util.OptionalDouble scoreThreshold() {
    return java.util.OptionalDouble.of(SimhashMethod.likeness(maxDistance));
  }

  @Override
  public Map<String, Object> json(long removed) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("removed", removed);
    json.put("examined", examined);
    json.put("max_distance", maxDistance);
    json.put("empty", empty);
    json.put("matches", matches.value());
    json.put("components", components.json());
    return json;
  }

  @Override
  public String consoleLine(long removed, boolean applied) {
    return String.format(
            "simhash: %,d examined, %,d within distance %d %s, %,d without text",
            examined, removed, maxDistance, applied ? "removed" : "to remove", empty)
        + ", "
        + components.consoleText();
  }
}
