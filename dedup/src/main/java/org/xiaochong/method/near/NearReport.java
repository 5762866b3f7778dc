package org.xiaochong.method.near;

import java.util.LinkedHashMap;
import java.util.Map;
import org.xiaochong.method.MethodReport;
import org.xiaochong.method.near.fingerprint.NearKeyTimes;

/**
 * The pass's work, and near.min-similarity: the least score of a near decision, the report's
 * threshold.
 */
record NearReport(NearStats stats, double minSimilarity) implements MethodReport {
  @Override
  public long examined() {
    return stats.examined();
  }

  @Override
  public java.util.OptionalDouble scoreThreshold() {
    return java.util.OptionalDouble.of(minSimilarity);
  }

  @Override
  public Map<String, Object> json(long removed) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("removed", removed);
    json.put("examined", stats.examined());
    json.put("skipped_exact", stats.skippedExact());
    json.put("lookups", stats.lookups());
    json.put("candidates", stats.candidates());
    json.put("empty", stats.empty());
    json.put("truncated", stats.truncated());
    json.put("repointed", stats.repointed());
    json.put("index_added", stats.indexAdded());
    json.put("min_similarity", minSimilarity);
    NearKeyTimes.Snapshot times = stats.keyTimes();
    if (times.posts() > 0) {
      Map<String, Object> seconds =
          new LinkedHashMap<>(); // thread-seconds of the sync's fingerprinting
      seconds.put("fingerprint", times.total());
      seconds.put("words", times.words());
      seconds.put("grams", times.grams());
      seconds.put("shingles", times.shingles());
      seconds.put("sentence_cache_hit_rate", times.sentenceHitRate());
      json.put("key_family_seconds", seconds);
    }
    return json;
  }

  @Override
  public String consoleLine(long removed, boolean applied) {
    NearStats n = stats;
    return String.format(
        "near: %,d examined, %,d near duplicates %s, %,d key lookups, %,d candidates compared, "
            + "%,d skipped (removed by the exact pass), %,d without fingerprints %s (exact pass only), %,d truncated"
            + " to near.max-chars, %,d exact removals re-pointed to a near survivor",
        n.examined(),
        n.removed(),
        applied ? "removed" : "to remove",
        n.lookups(),
        n.candidates(),
        n.skippedExact(),
        n.emptyTotal(),
        n.empty(),
        n.truncated(),
        n.repointed());
  }
}
