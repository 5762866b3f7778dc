package org.xiaochong.run;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.index.IndexSync;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.FingerprintMethods;
import org.xiaochong.method.MethodReport;
import org.xiaochong.pass.SampleGroup;
import org.xiaochong.prefilter.RecordKeyFilter;

/**
 * The figures of a run ({@link DedupRunner}, and the Spark job) gathered into its {@link
 * RunSummary}.
 */
public final class RunSummaries {
  private RunSummaries() {}

  /**
   * The plan's removals by rule: the run's methods, in run order, then the combined rules
   * (exact+near: an exact twin of a row a later method removed, see {@link
   * DeletionPlan#collapseChains}).
   */
  public static Map<String, Long> removedByRule(
      List<FingerprintMethod> methods, DeletionPlan plan) {
    Map<String, Long> removed = new LinkedHashMap<>();
    methods.forEach(m -> removed.put(m.name(), plan.count(DeletionPlan.Rule.of(m.name()))));
    plan.rules().stream()
        .filter(label -> DeletionPlan.Rule.of(label).isCombined())
        .forEach(label -> removed.put(label, plan.count(DeletionPlan.Rule.of(label))));
    return removed;
  }

  /**
   * The removals of {@code removed} for every known method, in the registry's order (0 for a method
   * that did not run), then the combined rules: the summary's {@code removed_by_method}.
   */
  public static Map<String, Long> removedByKnown(Map<String, Long> removed) {
    Map<String, Long> removedByKnown = new LinkedHashMap<>();
    FingerprintMethods.known()
        .forEach(m -> removedByKnown.put(m.name(), removed.getOrDefault(m.name(), 0L)));
    removed.forEach((rule, n) -> removedByKnown.putIfAbsent(rule, n));
    return removedByKnown;
  }

  /**
   * The summary of a run.
   *
   * @param removed the plan's removals by rule ({@link #removedByRule})
   * @param resumed the interrupted runs finished first, and {@code movedByResume} the rows they
   *     moved
   * @param prefilter the record prefilter, null when disabled; {@code runs} reports the methods'
   *     own
   */
  static RunSummary of(
      DedupRunner.Options options,
      IndexSync.Result sync,
      Map<String, MethodReport> reports,
      Map<String, Long> removed,
      PlanApply.Result applied,
      List<Long> resumed,
      long movedByResume,
      Map<String, Double> seconds,
      RecordKeyFilter prefilter,
      MethodRuns runs,
      ChosenWindow chosen,
      RunSummary.ApartStats apart) {
    MethodReport first = reports.get(options.methods().get(0).name());
    List<SampleGroup> samples =
        reports.values().stream().flatMap(r -> r.samples().stream()).toList();
    long falsePositives =
        reports.values().stream().mapToLong(MethodReport::recordFilterFalsePositives).sum();
    Map<String, Long> removedByKnown = removedByKnown(removed);
    return new RunSummary(
        applied.runId(),
        options.label(),
        options.apply(),
        sync.tableRows(),
        first.examined(),
        sync.added(),
        sync.changed(),
        sync.deleted(),
        removedByKnown,
        reports,
        resumed,
        applied.skippedChanged(),
        applied.decidedAgain(),
        seconds,
        samples,
        prefilter == null
            ? null
            : new RunSummary.PrefilterStats(
                prefilter.lookups(),
                prefilter.skipped(),
                falsePositives,
                prefilter.memoryBytes(),
                prefilter.saturated(),
                runs.prefilterJson()),
        chosen.description(),
        chosen.sinceRun(),
        applied.counts(),
        movedByResume,
        apart);
  }
}
