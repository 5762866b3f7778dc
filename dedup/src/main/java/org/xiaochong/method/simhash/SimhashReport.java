package org.xiaochong.method.simhash;

import java.util.LinkedHashMap;
import java.util.Map;
import org.xiaochong.method.MethodReport;
import org.xiaochong.simhash.SimhashIndex;

/** What a simhash pass did: its section of {@code summary.json} and its console line. */
record SimhashReport(SimhashPass.Result result, long repointed, long indexAdded, int maxDistance)
    implements MethodReport {
  @Override
  public long examined() {
    return result.examined();
  }

  @Override
  public java.util.OptionalDouble scoreThreshold() {
    return java.util.OptionalDouble.of(SimhashMethod.likeness(maxDistance));
  }

  @Override
  public Map<String, Object> json(long removed) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("removed", removed);
    json.put("examined", result.examined());
    json.put("max_distance", maxDistance);
    json.put("skipped_earlier", result.skipped());
    json.put("empty", result.empty());
    json.put("lookups", result.lookups() * SimhashIndex.BLOCKS);
    json.put("matches", result.matches());
    json.put("repointed", repointed);
    json.put("index_added", indexAdded);
    return json;
  }

  @Override
  public String consoleLine(long removed, boolean applied) {
    return String.format(
        "simhash: %,d examined, %,d within distance %d %s, %,d pairs found, %,d skipped"
            + " (removed by an earlier method), %,d without text, %,d earlier removals re-pointed",
        result.examined(),
        removed,
        maxDistance,
        applied ? "removed" : "to remove",
        result.matches(),
        result.skipped(),
        result.empty(),
        repointed);
  }
}
