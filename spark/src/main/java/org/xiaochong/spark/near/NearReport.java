package org.xiaochong.spark.near;

import java.util.Map;
import org.xiaochong.method.MethodReport;
import org.xiaochong.method.near.NearMethod;
import org.xiaochong.spark.graph.ComponentSizes;

/**
 * The near stage's report: the single machine's near report ({@link NearMethod#report}, the same
 * fields counted the same way, but for lookups: the job looks each selected key up once, the single
 * machine once per index segment and not those its prefilter rules out), and the components the
 * decisions were made in.
 */
record NearReport(MethodReport single, ComponentSizes components) implements MethodReport {
  @Override
  public long examined() {
    return single.examined();
  }

  @Override
  public java.util.OptionalDouble scoreThreshold() {
    return single.scoreThreshold();
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
