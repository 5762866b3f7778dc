package org.xiaochong.report;

import static org.xiaochong.report.HtmlText.command;
import static org.xiaochong.report.HtmlText.escape;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.method.PairEvidence;
import org.xiaochong.run.RunSummary;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * The report's section of decisions a person should check: the pairs closest to their rule's
 * threshold first, the removed row and the kept one side by side as the table (or, once applied,
 * the archive) holds them, the differing characters highlighted ({@link DiffMarks}), each with the
 * {@code dedup apart add} command that marks it "not duplicates". Stateless.
 */
final class ReviewPairs {
  private ReviewPairs() {}

  /**
   * The decisions to check, closest to their rule's threshold first (ties by removed id, so the
   * same data gives the same page); rules without a threshold (exact copies) after them.
   */
  static int[] order(DeletionPlan plan, Map<String, Double> thresholds) {
    Integer[] order = new Integer[plan.size()];
    double[] distance = new double[plan.size()];
    for (int i = 0; i < plan.size(); i++) {
      order[i] = i;
      Double threshold = thresholds.get(plan.rule(i).last());
      distance[i] = threshold == null ? Double.MAX_VALUE : Math.abs(plan.score(i) - threshold);
    }
    Arrays.sort(
        order,
        Comparator.<Integer>comparingDouble(i -> distance[i]).thenComparingLong(plan::removedId));
    return Arrays.stream(order).mapToInt(Integer::intValue).toArray();
  }

  /**
   * The review section, the rows read through {@code handle} (the removed ones from the archive
   * once applied).
   *
   * @param configOption as {@link HtmlReport#write} takes it, for the commands under each pair
   */
  static void write(StringBuilder html, Handle handle, ReportedRun run, String configOption) {
    RunSummary summary = run.summary();
    DeletionPlan plan = run.plan();
    TableSpec spec = run.spec();
    html.append(
            "<h2 id=\"review\">Pairs to review, closest to the threshold first</h2>\n<p>The removed row on the"
                + " left, the row kept in its place on the right; characters that differ are <mark>highlighted</mark>. When a"
                + " pair is no duplicate, the command under it marks it so, and no later run removes one for the other")
        .append(
            summary.applied()
                ? escape(
                    "; `"
                        + command("restore", configOption, "--run " + summary.runId())
                        + "` puts this run's rows back (and marks them apart).")
                : ".")
        .append("</p>\n");
    List<String> fields = spec.fingerprintColumns();
    int shown = 0;
    for (int i : order(plan, run.thresholds())) {
      if (shown == HtmlReport.REVIEW_PAIRS) {
        break;
      }
      long removedId = plan.removedId(i);
      long keptId = plan.keptId(i);
      Map<String, String> removed =
          row(
              handle,
              summary.applied() ? spec.removedTable() : spec.table(),
              spec,
              removedId,
              fields);
      Map<String, String> kept = row(handle, spec.table(), spec, keptId, fields);
      if (removed == null || kept == null) {
        continue;
      }
      shown++;
      Double threshold = run.thresholds().get(plan.rule(i).last());
      html.append("<article class=\"pair\"><h3>")
          .append(escape(plan.rule(i).label))
          .append(", score ")
          .append(String.format(Locale.ROOT, "%.3f", plan.score(i)))
          .append(
              threshold == null ? "" : String.format(Locale.ROOT, " (threshold %.2f)", threshold))
          .append(": removed #")
          .append(removedId)
          .append(", kept #")
          .append(keptId)
          .append("</h3>\n")
          .append("<table><tr><th>removed #")
          .append(removedId)
          .append(" (")
          .append(escape(timeOf(removed, spec)))
          .append(")</th><th>kept #")
          .append(keptId)
          .append(" (")
          .append(escape(timeOf(kept, spec)))
          .append(")</th></tr>\n");
      for (String field : fields) {
        String[] marked =
            DiffMarks.highlight(nullToEmpty(removed.get(field)), nullToEmpty(kept.get(field)));
        html.append("<tr><td><b>")
            .append(escape(field))
            .append(":</b> ")
            .append(marked[0])
            .append("</td><td><b>")
            .append(escape(field))
            .append(":</b> ")
            .append(marked[1])
            .append("</td></tr>\n");
      }
      html.append("</table>\n");
      PairEvidence evidence = run.evidence().get(plan.rule(i).last());
      if (evidence != null) {
        weights(
            html,
            evidence.of(
                SourceRecord.ofFields(0, SourceRecord.NULL_TIME, fields, removed),
                SourceRecord.ofFields(0, SourceRecord.NULL_TIME, fields, kept)));
      }
      html.append("<p class=\"command\">Not duplicates? <code>")
          .append(escape(command("apart add", configOption, removedId + " " + keptId)))
          .append("</code></p></article>\n");
    }
    if (shown == 0) {
      html.append("<p>No removals to review.</p>\n");
    }
  }

  /**
   * A pair's match-weight chart: the prior, then each column's level and weight as a bar (against a
   * match to the left of the axis, for it to the right), then their sum and the match probability.
   */
  static void weights(StringBuilder html, PairEvidence.Chart chart) {
    double total = chart.prior();
    double widest = Math.abs(chart.prior());
    for (PairEvidence.Column column : chart.columns()) {
      total += column.weight();
      widest = Math.max(widest, Math.abs(column.weight()));
    }
    widest = Math.max(widest, Math.abs(total));
    html.append("<table class=\"weights\"><tr><th colspan=\"5\">Match weight in bits, column by")
        .append(
            " column (Fellegi-Sunter): right of the axis for a match, left against</th></tr>\n");
    weightRow(html, "prior", "", chart.prior(), widest);
    for (PairEvidence.Column column : chart.columns()) {
      weightRow(html, column.column(), column.level(), column.weight(), widest);
    }
    weightRow(
        html,
        "sum",
        String.format(Locale.ROOT, "match probability %.4f", chart.probability()),
        total,
        widest);
    html.append("</table>\n");
  }

  private static void weightRow(
      StringBuilder html, String name, String level, double weight, double widest) {
    long width = widest == 0 ? 0 : Math.round(100 * Math.abs(weight) / widest);
    String bar =
        "<i class=\"" + (weight < 0 ? "against" : "for") + "\" style=\"width:" + width + "%\"></i>";
    html.append("<tr><td>")
        .append(escape(name))
        .append("</td><td>")
        .append(escape(level))
        .append("</td><td class=\"l bar\">")
        .append(weight < 0 ? bar : "")
        .append("</td><td class=\"bar\">")
        .append(weight < 0 ? "" : bar)
        .append("</td><td class=\"n\">")
        .append(String.format(Locale.ROOT, "%+.1f", weight))
        .append("</td></tr>\n");
  }

  private static String timeOf(Map<String, String> row, TableSpec spec) {
    String time = row.get(spec.timeColumn());
    return time == null ? "no time" : time;
  }

  private static Map<String, String> row(
      Handle handle, String table, TableSpec spec, long id, List<String> fields) {
    List<String> columns = new ArrayList<>(fields);
    columns.add(spec.timeColumn());
    String sql =
        "SELECT "
            + columns.stream().map(TableSpec::quote).collect(Collectors.joining(", "))
            + " FROM "
            + TableSpec.quote(table)
            + " WHERE "
            + TableSpec.quote(spec.idColumn())
            + " = ? LIMIT 1";
    return handle
        .createQuery(sql)
        .bind(0, id)
        .map(
            (rs, ctx) -> {
              Map<String, String> values = new LinkedHashMap<>();
              for (int c = 0; c < columns.size(); c++) {
                // The time as the pipeline reads it (TIMESTAMP in UTC, a zero date as no time), not
                // in the JVM's zone.
                Object value =
                    c == columns.size() - 1
                        ? RecordSource.readTime(rs, c + 1)
                        : rs.getObject(c + 1);
                values.put(
                    columns.get(c),
                    value instanceof LocalDateTime t
                        ? t.toString().replace('T', ' ')
                        : value == null ? null : value.toString());
              }
              return values;
            })
        .findOne()
        .orElse(null);
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
