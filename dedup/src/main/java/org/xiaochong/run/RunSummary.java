package org.xiaochong.run;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.xiaochong.pass.ExactPass;

/**
 * What a run did, for the console, {@code summary.json} and the run log.
 *
 * @param runId the dedup_run id; 0 for a dry run (a dry run writes nothing to the database)
 * @param recordsRead rows in the source table when the run started
 * @param recordsExamined records of the window examined by the passes
 * @param exactRemoved exact removals: planned (dry run), or moved (applied)
 * @param nearRemoved near removals: planned (dry run), or moved (applied)
 * @param skippedChanged planned rows the apply left in place: they or their kept rows no longer hold
 *     what made them duplicates (edited, re-dated or replaced since the index was built)
 * @param decidedAgain planned rows the apply decided again on their rows because they or their kept
 *     rows changed since the pass decided (moved, or left in place and counted in skippedChanged)
 * @param indexChanged index documents replaced because their row was edited or re-dated
 * @param window which records the passes examined, for people ("records indexed since run 7", "all
 *     records (--full)")
 * @param windowSinceRun the applied run whose watermark started the window, 0 when none (all records
 *     or a time window)
 * @param seconds seconds per stage ("index", "exact", "apply", …) in execution order
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
    long exactGroups,
    long exactRemoved,
    long nearRemoved,
    long exactLookups,
    long exactLookupsSkipped,
    List<Long> resumedRuns,
    long skippedChanged,
    long decidedAgain,
    Map<String, Double> seconds,
    List<ExactPass.Group> exactSamples,
    PrefilterStats prefilter,
    NearStats near,
    String window,
    long windowSinceRun) {

  /**
   * The near pass's work (null when the method has no near pass).
   *
   * @param examined live records of the window
   * @param removed records the near pass planned for removal
   * @param skippedExact records of the window the exact pass had removed
   * @param lookups key lookups (top-pre keys of the examined records)
   * @param candidates kept records compared with an examined record
   * @param empty records of the window without fingerprints, per reason (exact pass only)
   * @param truncated records of the window cut to near.max-chars (fingerprinted on their start)
   * @param repointed exact removals re-pointed to the near survivor of their kept record
   * @param indexAdded near index documents added by the sync
   */
  public record NearStats(long examined, long removed, long skippedExact, long lookups, long candidates,
      Map<String, Long> empty, long truncated, long repointed, long indexAdded) {
    public long emptyTotal() {
      return empty.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /**
   * The prefilter's work in the exact pass.
   *
   * @param lookups keys asked
   * @param skipped index lookups saved ("certainly alone")
   * @param falsePositives lookups made that found the record alone
   * @param memoryBytes the counters' memory
   * @param saturated counters at their maximum
   * @param near the near keys' side (null when the run had no near index)
   */
  public record PrefilterStats(long lookups, long skipped, long falsePositives, long memoryBytes, long saturated,
      NearPrefilterStats near) {
    /** Share of the lookups for records without a twin that the filter saved. */
    public double uniqueSkipRate() {
      return skipped + falsePositives == 0 ? 1.0 : (double) skipped / (skipped + falsePositives);
    }
  }

  /**
   * The near keys' prefilter. The near pass knows every key's document frequency exactly (the
   * term dictionary's), so it needs no Bloom probe: {@code skipped} counts the keys of examined records
   * that no other record holds, which the pass never looks up. The counting filter of near keys is kept
   * in step with the near index for {@code check}.
   *
   * @param lookups candidate-key lookups of the near pass
   * @param skipped keys of examined records held by no other record (not looked up)
   * @param keys distinct near keys in the filter
   * @param memoryBytes the near filter's counters
   * @param saturated its counters at their maximum
   */
  public record NearPrefilterStats(long lookups, long skipped, long keys, long memoryBytes, long saturated) {}

  public double totalSeconds() {
    return seconds.getOrDefault("total", 0.0);
  }

  /** The summary as nested maps, in the shape of summary.json. */
  public Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("run_id", runId);
    json.put("method", method);
    json.put("applied", applied);
    json.put("records_read", recordsRead);
    json.put("records_examined", recordsExamined);
    json.put("window", window);
    json.put("window_since_run", windowSinceRun);
    json.put("index", Map.of("added", indexAdded, "changed", indexChanged, "deleted", indexDeleted));
    Map<String, Object> exact = new LinkedHashMap<>();
    exact.put("groups", exactGroups);
    exact.put("removed", exactRemoved);
    exact.put("lookups", exactLookups);
    exact.put("lookups_skipped", exactLookupsSkipped);
    json.put("exact", exact);
    Map<String, Object> nearJson = new LinkedHashMap<>();
    nearJson.put("removed", nearRemoved);
    if (near != null) {
      nearJson.put("examined", near.examined());
      nearJson.put("skipped_exact", near.skippedExact());
      nearJson.put("lookups", near.lookups());
      nearJson.put("candidates", near.candidates());
      nearJson.put("empty", near.empty());
      nearJson.put("truncated", near.truncated());
      nearJson.put("repointed", near.repointed());
      nearJson.put("index_added", near.indexAdded());
    }
    json.put("near", nearJson);
    if (prefilter != null) {
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("lookups", prefilter.lookups());
      p.put("skipped", prefilter.skipped());
      p.put("false_positives", prefilter.falsePositives());
      p.put("memory_bytes", prefilter.memoryBytes());
      p.put("saturated", prefilter.saturated());
      if (prefilter.near() != null) {
        NearPrefilterStats n = prefilter.near();
        p.put("near", Map.of("lookups", n.lookups(), "skipped", n.skipped(), "keys", n.keys(),
            "memory_bytes", n.memoryBytes(), "saturated", n.saturated()));
      }
      json.put("prefilter", p);
    }
    json.put("apply", Map.of("skipped_changed", skippedChanged, "decided_again", decidedAgain));
    json.put("resumed_runs", resumedRuns);
    json.put("seconds", seconds);
    return json;
  }
}
