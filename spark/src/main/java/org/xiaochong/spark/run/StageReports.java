package org.xiaochong.spark.run;

import java.util.LinkedHashMap;
import java.util.Map;
import org.xiaochong.method.MethodReport;
import org.xiaochong.method.near.NearMethod;
import org.xiaochong.spark.count.PartitionCounter;
import org.xiaochong.spark.graph.ComponentSizes;

/**
 * The reports of the job's stages, as the single machine's passes report (their figures counted by
 * the executors with {@link PartitionCounter}), with the components each stage decided in.
 */
final class StageReports {
  private StageReports() {}

  /**
   * The simhash stage's report, as the single machine's simhash pass reports (without its index's
   * work).
   */
  record SimhashReport(
      long examined,
      long empty,
      int maxDistance,
      PartitionCounter matches,
      ComponentSizes components)
      implements MethodReport {
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

  /**
   * The near stage's report: the single machine's near report ({@link NearMethod#report}, the same
   * fields counted the same way, but for lookups: the job looks each selected key up once, the
   * single machine once per index segment and not those its prefilter rules out), and the
   * components the decisions were made in.
   */
  record NearReport(MethodReport single, ComponentSizes components) implements MethodReport {
    @Override
    public long examined() {
      return single.examined();
    }

    @Override
    public Map<String, Object> json(long removed) {
      Map<String, Object> json = single.json(removed);
      json.put("components", components.json());
      return json;
    }

    @Override
    public String consoleLine(long removed, boolean applied) {
      return single.consoleLine(removed, applied) + ", " + components.consoleText();
    }
  }

  /**
   * The exact stage's report, as the single machine's exact pass reports (without its index
   * lookups).
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
}
