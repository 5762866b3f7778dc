package org.xiaochong.tools;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import org.xiaochong.method.near.NearStats;
import org.xiaochong.method.near.fingerprint.NearKeyTimes;
import org.xiaochong.posts.GroundTruth;
import org.xiaochong.run.RunSummary;

/**
 * The near pass's figures of {@code dedup bench}: issue 22's targets and the key families' cost.
 */
final class NearBenchFigures {
  private NearBenchFigures() {}

  /**
   * The figures issue 22's targets name, one line each, and the same as a map for bench.json. Near
   * candidates per examined record: kept records compared, per record of the window the near pass
   * looked up (the exact pass's removals are not looked up).
   */
  static Map<String, Object> printNearFigures(
      PrintWriter out, RunSummary summary, NearStats n, GroundTruth.NearCheck all, long peakHeap) {
    long lookedUp = Math.max(0, n.examined() - n.skippedExact());
    double perRecord = lookedUp == 0 ? 0.0 : (double) n.candidates() / lookedUp;
    double nearSeconds = summary.seconds().getOrDefault("near", 0.0);
    double nearIndexSeconds = summary.seconds().getOrDefault("near_index", 0.0);
    out.println("  targets (issue 22):");
    out.printf(
        "    near candidates compared per examined record %10.2f  (%,d candidates, %,d records examined)%n",
        perRecord, n.candidates(), lookedUp);
    out.printf("    near pass                                    %10.2f s%n", nearSeconds);
    out.printf("    near index build (segmentation)              %10.2f s%n", nearIndexSeconds);
    out.printf(
        "    whole run                                    %10.2f s%n", summary.totalSeconds());
    out.printf("    peak heap                                    %,10d MB%n", peakHeap >> 20);
    out.printf(
        "    near precision                               %10.4f  (%,d right, %,d wrong; %,d of them not of a"
            + " hard negative and its model)%n",
        all.nearPrecision(), all.nearCorrect(), all.nearWrong(), all.nearWrongElsewhere());
    out.printf(
        "    near recall                                  %10.4f  (of %,d near variants)%n",
        all.nearRecall(), all.expectedNear());
    out.printf(
        "    hard-negative merges (hard negatives joined with the post they were made against / all):%n");
    Map<String, Object> byKind = new LinkedHashMap<>();
    all.hardNegatives()
        .forEach(
            (kind, count) -> {
              long merges = all.hardNegativeMergesByKind().getOrDefault(kind, 0L);
              out.printf("      %-36s %,8d of %,d%n", kind, merges, count);
              Map<String, Long> figures = new LinkedHashMap<>();
              figures.put("merges", merges);
              figures.put("hard_negatives", count);
              byKind.put(kind.name(), figures);
            });
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("candidates", n.candidates());
    json.put("records_examined", lookedUp);
    json.put("candidates_per_examined_record", perRecord);
    json.put("near_seconds", nearSeconds);
    json.put("near_index_seconds", nearIndexSeconds);
    json.put("removed", summary.removed("near"));
    json.put("near_precision", all.nearPrecision());
    json.put("near_recall", all.nearRecall());
    json.put("precision", all.precision());
    json.put("recall", all.recall());
    json.put("hard_negative_merges", all.hardNegativeMerges());
    json.put("hard_negative_merges_by_kind", byKind);
    json.put("near_wrong_not_hard_negative", all.nearWrongElsewhere());
    return json;
  }

  /**
   * The near index build's fingerprinting time per near key family: thread-seconds (summed over the
   * sync's threads), and the share of the run's wall time they stand for (thread-seconds / threads
   * / total, the threads running at once).
   */
  static void printKeyFamilies(
      PrintWriter out, NearKeyTimes.Snapshot times, int threads, double totalSeconds) {
    if (times.posts() == 0) {
      return;
    }
    double perRun = totalSeconds > 0 ? 100 / (threads * totalSeconds) : 0;
    out.printf(
        "  near key families (near index build, %,d posts; thread-seconds over %d threads, %% of the run):%n",
        times.posts(), threads);
    out.printf(
        "    words (smartcn) %7.2f s %5.1f%%  (sentence cache: %.1f%% of %,d sentences known)%n",
        times.words(),
        times.words() * perRun,
        100 * times.sentenceHitRate(),
        times.sentenceHits() + times.sentenceMisses());
    out.printf("    q-grams         %7.2f s %5.1f%%%n", times.grams(), times.grams() * perRun);
    out.printf(
        "    shingles        %7.2f s %5.1f%%%n", times.shingles(), times.shingles() * perRun);
    double other = Math.max(0, times.total() - times.words() - times.grams() - times.shingles());
    out.printf("    other (normalization, fields) %7.2f s %5.1f%%%n", other, other * perRun);
  }
}
