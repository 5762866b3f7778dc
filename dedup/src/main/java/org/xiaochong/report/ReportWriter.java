package org.xiaochong.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongFunction;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.run.RunSummary;
import org.xiaochong.source.BadInputException;

/**
 * Writes a run's report folder: {@code summary.json} (the counts and seconds per stage) and {@code
 * decisions.jsonl} (one line per planned removal: removed_id, kept_id, rule, score, and its
 * outcome: planned in a dry run; moved, kept_changed, kept_referenced or gone after an apply). Dry
 * runs write it too, so a plan can be reviewed before {@code --apply}.
 */
public final class ReportWriter {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final ObjectMapper JSON_LINE = new ObjectMapper();

  private ReportWriter() {}

  /** The report of a run: each decision with what became of it ({@code outcome}). */
  public static void write(Path dir, DedupRunner.Outcome outcome) {
    write(dir, outcome.summary(), outcome.plan(), outcome::outcomeOf);
  }

  /** The report of a plan whose decisions all moved (applied) or are all planned (dry run). */
  public static void write(Path dir, RunSummary summary, DeletionPlan plan) {
    write(dir, summary, plan, id -> summary.applied() ? "moved" : "planned");
  }

  private static void write(
      Path dir, RunSummary summary, DeletionPlan plan, LongFunction<String> outcomeOf) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new BadInputException("--report " + dir + " cannot be created: " + e, e);
    }
    try {
      JSON.writeValue(dir.resolve("summary.json").toFile(), summary.toJson());
      try (BufferedWriter out =
          Files.newBufferedWriter(dir.resolve("decisions.jsonl"), StandardCharsets.UTF_8)) {
        Map<String, Object> line = new LinkedHashMap<>();
        // In removed-id order: the passes find groups in index order, which depends on which
        // indexing
        // thread wrote its segment first; sorted, two reports of the same data are the same file.
        for (int i : plan.orderByRemovedId()) {
          line.put("removed_id", plan.removedId(i));
          line.put("kept_id", plan.keptId(i));
          line.put("rule", plan.rule(i).label);
          line.put("score", Math.round(plan.score(i) * 10000) / 10000.0);
          line.put("outcome", outcomeOf.apply(plan.removedId(i)));
          out.write(JSON_LINE.writeValueAsString(line));
          out.write('\n');
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the report in " + dir, e);
    }
  }
}
