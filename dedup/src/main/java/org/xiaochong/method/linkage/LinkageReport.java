package org.xiaochong.method.linkage;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import org.xiaochong.method.MethodReport;

/** What the linkage pass did, and the model it decided with, for summary.json and the console. */
record LinkageReport(
    LinkageCounts result,
    long repointed,
    long indexAdded,
    LinkageSettings settings,
    LinkageModel model,
    ColumnSet columns,
    boolean trained)
    implements MethodReport {
  @Override
  public long examined() {
    return result.examined();
  }

  @Override
  public Map<String, Object> json(long removed) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("removed", removed);
    json.put("examined", result.examined());
    json.put("skipped", result.skipped());
    json.put("candidates", result.candidates());
    json.put("links", result.links());
    json.put("groups", result.groups());
    json.put("kept_indirect", result.indirect());
    json.put("postings", result.postings());
    json.put("repointed", repointed);
    json.put("index_added", indexAdded);
    json.put("threshold", settings.threshold());
    json.put("model_trained_now", trained);
    json.put("columns", columns.lines());
    json.put("model", model.json());
    return json;
  }

  @Override
  public String consoleLine(long removed, boolean applied) {
    return String.format(
        Locale.ROOT,
        "linkage: %,d records examined, %,d candidate pairs scored, %,d linked into %,d groups,"
            + " %,d duplicates %s (match probability >= %.2f)",
        result.examined(),
        result.candidates(),
        result.links(),
        result.groups(),
        removed,
        applied ? "removed" : "to remove",
        settings.threshold());
  }

  @Override
  public OptionalDouble scoreThreshold() {
    return OptionalDouble.of(settings.threshold());
  }
}
