package org.xiaochong.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xiaochong.method.near.NearStats;
import org.xiaochong.method.near.fingerprint.NearKeyTimes;
import org.xiaochong.posts.GroundTruth;
import org.xiaochong.posts.PostGenerator.Kind;
import org.xiaochong.run.RunSummary;

class BenchCommandTest {
  @Test
  void printNearFigures_eachTargetFigure_printedAndInTheJson() {
    Map<String, Double> seconds = new LinkedHashMap<>();
    seconds.put("index", 1.0);
    seconds.put("near_index", 4.25);
    seconds.put("near", 3.5);
    seconds.put("total", 12.0);
    RunSummary summary =
        new RunSummary(
            0,
            "exact,near",
            true,
            150,
            150,
            150,
            0,
            0,
            Map.of("exact", 20L, "near", 9L),
            Map.of(),
            List.of(),
            0,
            0,
            seconds,
            List.of(),
            null,
            "all records",
            0,
            Map.of(),
            0);
    // 120 records in the window, 20 of them removed by the exact pass: 500 candidates over 100
    // records.
    NearStats stats =
        new NearStats(120, 9, 20, 300, 500, Map.of(), 0, 0, 120, NearKeyTimes.Snapshot.NONE);
    Map<Kind, Long> merges = new java.util.EnumMap<>(Kind.class);
    merges.put(Kind.HARD_NEGATIVE_PLACE, 0L);
    merges.put(Kind.HARD_NEGATIVE_GRADE_SAME_SELLER, 2L);
    Map<Kind, Long> negatives = new java.util.EnumMap<>(Kind.class);
    negatives.put(Kind.HARD_NEGATIVE_PLACE, 7L);
    negatives.put(Kind.HARD_NEGATIVE_GRADE_SAME_SELLER, 5L);
    GroundTruth.NearCheck check =
        new GroundTruth.NearCheck(40, 10, 28, 2, 20, 8, 2, 2, merges, negatives, 0);
    StringWriter text = new StringWriter();

    Map<String, Object> json =
        NearBenchFigures.printNearFigures(
            new PrintWriter(text, true), summary, stats, check, 512L << 20);

    assertThat(text.toString())
        .containsPattern(
            "near candidates compared per examined record +5\\.00 +\\(500 candidates, 100 records examined\\)")
        .containsPattern("near pass +3\\.50 s")
        .containsPattern("near index build \\(segmentation\\) +4\\.25 s")
        .containsPattern("whole run +12\\.00 s")
        .containsPattern("peak heap +512 MB")
        .containsPattern(
            "near precision +0\\.8000 +\\(8 right, 2 wrong; 0 of them not of a hard negative and its model\\)")
        .containsPattern("near recall +0\\.8000 +\\(of 10 near variants\\)")
        .containsPattern("HARD_NEGATIVE_PLACE +0 of 7")
        .containsPattern("HARD_NEGATIVE_GRADE_SAME_SELLER +2 of 5");
    assertThat(json)
        .containsEntry("candidates_per_examined_record", 5.0)
        .containsEntry("near_seconds", 3.5)
        .containsEntry("near_index_seconds", 4.25)
        .containsEntry("near_precision", 0.8)
        .containsEntry("near_recall", 0.8);
    assertThat(json.get("hard_negative_merges_by_kind"))
        .isEqualTo(
            Map.of(
                "HARD_NEGATIVE_PLACE", Map.of("merges", 0L, "hard_negatives", 7L),
                "HARD_NEGATIVE_GRADE_SAME_SELLER", Map.of("merges", 2L, "hard_negatives", 5L)));
  }
}
