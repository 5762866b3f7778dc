package org.xiaochong.run;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.xiaochong.method.MethodReport;
import org.xiaochong.pass.SampleGroup;

/**
 * What a run did, for the console, {@code summary.json} and the run log. The per-method parts come
 * from the methods ({@link MethodReport}); nothing here names one.
 *
 * @param runId the dedup_run id; 0 for a dry run (a dry run writes nothing to the database)
 * @param method the run's methods, comma-separated, as stored in {@code dedup_run.method}
 * @param recordsRead rows in the source table when the run started
 * @param recordsExamined records of the window examined by the passes
 * @param removedByMethod removals per rule, planned (dry run) or moved (applied): for every known
 *     method (0 for those the run did not select), in the registry's order, then for each combined
 *     rule of the run ({@code exact+near}: exact twins of rows a later method removed, archived
 *     with that method's survivor and score; {@link
 *     org.xiaochong.archive.DeletionPlan#collapseChains})
 * @param reports the report of each method the run selected, in run order
 * @param skippedChanged planned rows the apply left in place: they or their kept rows no longer
 *     hold what made them duplicates (edited, re-dated or replaced since the index was built)
 * @param decidedAgain planned rows the apply decided again on their rows because they or their kept
 *     rows changed since the pass decided (moved, or left in place and counted in skippedChanged)
 * @param indexChanged index documents replaced because their row was edited or re-dated
 * @param samples groups to print as examples (from the methods that show some)
 * @param window which records the passes examined, for people ("records indexed since run 7", "all
 *     records (--full)")
 * @param windowSinceRun the applied run whose watermark started the window, 0 when none (all
 *     records or a time window)
 * @param seconds seconds per stage ("index", "exact", "apply", …) in execution order
 * @param applyCounts per method, what the apply did with its planned rows; empty for a dry run
 * @param resumedRowsMoved rows moved while finishing the interrupted runs ({@code resumedRuns})
 *     first
 * @param apart the pairs marked as not duplicates ({@code dedup_apart}) and what the run made of
 *     them
 */
public record RunSummary(
    long runId,
    String method,
    boolean applied,
    long recordsRead,
    long recordsExamined,
    long indexAdded,
    long indexChanged,
    long indexDeleted,
    Map<String, Long> removedByMethod,
    Map<String, MethodReport> reports,
    List<Long> resumedRuns,
    long skippedChanged,
    long decidedAgain,
    Map<String, Double> seconds,
    List<SampleGroup> samples,
    PrefilterStats prefilter,
    String window,
    long windowSinceRun,
    Map<String, ApplyCounts> applyCounts,
    long resumedRowsMoved,
    ApartStats apart) {

  /** A summary of a run that read no marks ({@link ApartStats#NONE}). */
  public RunSummary(
      long runId,
      String method,
      boolean applied,
      long recordsRead,
      long recordsExamined,
      long indexAdded,
      long indexChanged,
      long indexDeleted,
      Map<String, Long> removedByMethod,
      Map<String, MethodReport> reports,
      List<Long> resumedRuns,
      long skippedChanged,
      long decidedAgain,
      Map<String, Double> seconds,
      List<SampleGroup> samples,
      PrefilterStats prefilter,
      String window,
      long windowSinceRun,
      Map<String, ApplyCounts> applyCounts,
      long resumedRowsMoved) {
    this(
        runId,
        method,
        applied,
        recordsRead,
        recordsExamined,
        indexAdded,
        indexChanged,
        indexDeleted,
        removedByMethod,
        reports,
        resumedRuns,
        skippedChanged,
        decidedAgain,
        seconds,
        samples,
        prefilter,
        window,
        windowSinceRun,
        applyCounts,
        resumedRowsMoved,
        ApartStats.NONE);
  }

  /**
   * The marks a run read and honoured.
   *
   * @param marks marks of the table when the run started: pairs, and rows of restored groups
   * @param honoured distinct marked pairs and group rows a pass would otherwise have decided one
   *     for another: the rows stay, or each is removed for another row
   * @param dropped removals the run left out at the end because a chain (a kept row removed by a
   *     later method) had pointed them to a row they are marked apart from
   */
  public record ApartStats(long marks, long honoured, long dropped) {
    public static final ApartStats NONE = new ApartStats(0, 0, 0);
  }

  /**
   * What an apply did with one method's planned rows: each planned row was moved (archived and
   * deleted), or left in place because it or its kept row changed since the plan, or because rows
   * of other tables reference it, or it was gone (it or its kept row had left the table).
   */
  public record ApplyCounts(
      long planned, long moved, long keptChanged, long keptReferenced, long gone) {
    /** Planned rows that stayed in the table. */
    public long kept() {
      return keptChanged + keptReferenced;
    }

    Map<String, Object> json() {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("planned", planned);
      json.put("moved", moved);
      json.put("kept_changed", keptChanged);
      json.put("kept_referenced", keptReferenced);
      json.put("gone", gone);
      return json;
    }
  }

  /** What the apply did with the planned rows of all methods; zeros for a dry run. */
  public ApplyCounts applyTotal() {
    return new ApplyCounts(
        sum(ApplyCounts::planned),
        sum(ApplyCounts::moved),
        sum(ApplyCounts::keptChanged),
        sum(ApplyCounts::keptReferenced),
        sum(ApplyCounts::gone));
  }

  private long sum(java.util.function.ToLongFunction<ApplyCounts> count) {
    return applyCounts.values().stream().mapToLong(count).sum();
  }

  /**
   * The record key filter's work (the exact keys of the record index), and each method's own
   * filter.
   *
   * @param lookups keys asked
   * @param skipped index lookups saved ("certainly alone")
   * @param falsePositives lookups made that found the record alone
   * @param memoryBytes the counters' memory
   * @param saturated counters at their maximum
   * @param byMethod the filters of the methods with one of their own, by method name
   */
  public record PrefilterStats(
      long lookups,
      long skipped,
      long falsePositives,
      long memoryBytes,
      long saturated,
      Map<String, Map<String, Object>> byMethod) {
    /** Share of the lookups for records without a twin that the filter saved. */
    public double uniqueSkipRate() {
      return skipped + falsePositives == 0 ? 1.0 : (double) skipped / (skipped + falsePositives);
    }
  }

  /**
   * Removals of {@code method} (or of a combined rule, {@code exact+near}) in this run; 0 when it
   * did not run or is unknown.
   */
  public long removed(String method) {
    return removedByMethod.getOrDefault(method, 0L);
  }

  /** Removals of all rules. */
  public long removedTotal() {
    return removedByMethod.values().stream().mapToLong(Long::longValue).sum();
  }

  /** The report of {@code method}; empty when the run did not select it. */
  public Optional<MethodReport> report(String method) {
    return Optional.ofNullable(reports.get(method));
  }

  public double totalSeconds() {
    return seconds.getOrDefault("total", 0.0);
  }

  /**
   * The summary as nested maps, in the shape of summary.json: one section per known method (its
   * report's, or only {@code removed} when it did not run), and {@code removed_by_method} (per
   * rule, the combined ones included).
   */
  public Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("run_id", runId);
    json.put("method", method);
    json.put("applied", applied);
    json.put("records_read", recordsRead);
    json.put("records_examined", recordsExamined);
    json.put("window", window);
    json.put("window_since_run", windowSinceRun);
    json.put(
        "index", Map.of("added", indexAdded, "changed", indexChanged, "deleted", indexDeleted));
    removedByMethod.forEach(
        (name, removed) -> {
          if (org.xiaochong.archive.DeletionPlan.Rule.of(name).isCombined()) {
            return; // a combined rule is no method
          }
          Map<String, Object> section =
              new LinkedHashMap<>(reports.getOrDefault(name, MethodReport.notRun()).json(removed));
          if (applied && reports.containsKey(name)) {
            section.put(
                "apply", applyCounts.getOrDefault(name, new ApplyCounts(0, 0, 0, 0, 0)).json());
          }
          json.put(name, section);
        });
    json.put("removed_by_method", removedByMethod);
    if (prefilter != null) {
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("lookups", prefilter.lookups());
      p.put("skipped", prefilter.skipped());
      p.put("false_positives", prefilter.falsePositives());
      p.put("memory_bytes", prefilter.memoryBytes());
      p.put("saturated", prefilter.saturated());
      p.putAll(prefilter.byMethod());
      json.put("prefilter", p);
    }
    Map<String, Object> apply = new LinkedHashMap<>(applied ? applyTotal().json() : Map.of());
    apply.put("skipped_changed", skippedChanged);
    apply.put("decided_again", decidedAgain);
    json.put("apply", apply);
    Map<String, Object> marks = new LinkedHashMap<>();
    marks.put("marks", apart.marks());
    marks.put("honoured", apart.honoured());
    marks.put("dropped", apart.dropped());
    json.put("apart", marks);
    json.put("resumed_runs", resumedRuns);
    json.put("resumed_rows_moved", resumedRowsMoved);
    json.put("seconds", seconds);
    return json;
  }
}
