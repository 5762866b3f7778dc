package org.xiaochong.report;

import static org.xiaochong.report.HtmlText.count;
import static org.xiaochong.report.HtmlText.escape;
import static org.xiaochong.report.HtmlText.seconds;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jdbi.v3.core.Handle;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.run.RunSummary;
import org.xiaochong.source.TableSpec;

/**
 * The report's charts as inline SVG ({@link SvgChart}): removals per rule, the score distribution
 * with each threshold marked, removals per month of their time (read from the table, or from the
 * archive for an applied run), seconds per stage. Stateless.
 */
final class RunCharts {
  /** Width of a score bin of the distribution chart. */
  private static final double SCORE_BIN = 0.02;

  private RunCharts() {}

  /** The charts' section, the removals per month read through {@code handle}. */
  static void write(StringBuilder html, Handle handle, ReportedRun run) {
    html.append("<section class=\"charts\" id=\"charts\">\n");
    figure(html, "Removals per rule", rulesChart(run.summary()));
    figure(
        html,
        "Score of each removal to its kept row" + unscored(run.plan(), run.thresholds()),
        scoreChart(run.plan(), run.thresholds()));
    figure(
        html,
        "Removals per month of " + run.spec().timeColumn(),
        monthsChart(removedPerMonth(handle, run.summary(), run.plan(), run.spec())));
    figure(
        html,
        "Time per stage (" + seconds(run.summary().totalSeconds()) + " in all)",
        stagesChart(run.summary()));
    html.append("</section>\n");
  }

  private static void figure(StringBuilder html, String caption, String svg) {
    html.append("<figure><figcaption>")
        .append(escape(caption))
        .append("</figcaption>\n")
        .append(svg)
        .append("</figure>\n");
  }

  private static String rulesChart(RunSummary summary) {
    List<SvgChart.Bar> bars = new ArrayList<>();
    summary
        .removedByMethod()
        .forEach(
            (rule, removed) -> {
              if (removed > 0 || summary.report(rule).isPresent()) {
                bars.add(new SvgChart.Bar(rule, removed, count(removed) + " rows"));
              }
            });
    return SvgChart.bars("chart-rules", "Removals per rule", bars);
  }

  /**
   * A histogram of the scores of the removals decided by a similarity (rules with a threshold), in
   * bins of {@link #SCORE_BIN}, with each threshold marked; the exact decisions (score 1 by
   * definition) are counted in the caption's note, not drawn, or their bar would flatten the
   * others.
   */
  private static String scoreChart(DeletionPlan plan, Map<String, Double> thresholds) {
    double low = 1;
    for (int i = 0; i < plan.size(); i++) {
      if (thresholds.containsKey(plan.rule(i).last())) {
        low = Math.min(low, plan.score(i));
      }
    }
    for (double threshold : thresholds.values()) {
      low = Math.min(low, threshold);
    }
    low = Math.max(0, Math.floor(low / SCORE_BIN) * SCORE_BIN - SCORE_BIN);
    int bins = Math.max(1, (int) Math.round((1 - low) / SCORE_BIN) + 1); // the last bin holds 1.0
    long[] counts = new long[bins];
    for (int i = 0; i < plan.size(); i++) {
      if (thresholds.containsKey(plan.rule(i).last())) {
        counts[
            Math.min(
                bins - 1,
                Math.max(0, (int) Math.floor((plan.score(i) - low) / SCORE_BIN + 1e-9)))]++;
      }
    }
    List<SvgChart.Bar> columns = new ArrayList<>();
    for (int b = 0; b < bins; b++) {
      double from = low + b * SCORE_BIN;
      columns.add(
          new SvgChart.Bar(
              String.format(Locale.ROOT, "%.2f", from),
              counts[b],
              count(counts[b])
                  + " removals scored "
                  + String.format(Locale.ROOT, "%.2f-%.2f", from, from + SCORE_BIN)));
    }
    List<SvgChart.Marker> markers = new ArrayList<>();
    thresholds.forEach(
        (method, threshold) ->
            markers.add(
                new SvgChart.Marker(
                    threshold,
                    String.format(Locale.ROOT, "%s threshold %.2f", method, threshold))));
    return SvgChart.columns(
        "chart-scores",
        "Score distribution",
        columns,
        low,
        low + bins * SCORE_BIN,
        markers,
        HtmlText::count);
  }

  /**
   * The caption's note on the removals the score chart leaves out: those of rules without a
   * threshold.
   */
  private static String unscored(DeletionPlan plan, Map<String, Double> thresholds) {
    long exact = 0;
    for (int i = 0; i < plan.size(); i++) {
      if (!thresholds.containsKey(plan.rule(i).last())) {
        exact++;
      }
    }
    return thresholds.isEmpty()
        ? " (no similarity pass ran: every removal is an exact copy, score 1)"
        : exact == 0 ? "" : " (" + count(exact) + " exact copies, score 1, not drawn)";
  }

  private static String monthsChart(Map<String, Long> perMonth) {
    List<SvgChart.Bar> columns = new ArrayList<>();
    perMonth.forEach(
        (month, removed) ->
            columns.add(new SvgChart.Bar(month, removed, count(removed) + " rows")));
    return SvgChart.columns(
        "chart-months", "Removals per month", columns, 0, 1, List.of(), HtmlText::count);
  }

  private static String stagesChart(RunSummary summary) {
    List<SvgChart.Bar> bars = new ArrayList<>();
    summary
        .seconds()
        .forEach(
            (stage, s) -> {
              if (!stage.equals("total")) {
                bars.add(new SvgChart.Bar(stage, s, seconds(s)));
              }
            });
    return SvgChart.bars("chart-stages", "Time per stage", bars);
  }

  private static Map<String, Long> removedPerMonth(
      Handle handle, RunSummary summary, DeletionPlan plan, TableSpec spec) {
    Map<String, Long> perMonth = new TreeMap<>();
    // A date with a zero month ('0000-00-00', '2024-00-00') counts as no time, as in
    // RecordSource.readTime.
    String time = TableSpec.quote(spec.timeColumn());
    String month = "IF(MONTH(" + time + ") = 0, NULL, DATE_FORMAT(" + time + ", '%Y-%m'))";
    String id = TableSpec.quote(spec.idColumn());
    if (summary.applied()) {
      handle
          .createQuery(
              "SELECT "
                  + month
                  + ", COUNT(*) FROM "
                  + TableSpec.quote(spec.removedTable())
                  + " WHERE dedup_run_id = ? GROUP BY 1")
          .bind(0, summary.runId())
          .map(
              (rs, ctx) ->
                  Map.entry(rs.getString(1) == null ? "no time" : rs.getString(1), rs.getLong(2)))
          .forEach(e -> perMonth.merge(e.getKey(), e.getValue(), Long::sum));
      return perMonth;
    }
    long[] ids = plan.removedIdsSorted();
    for (int from = 0; from < ids.length; from += 1000) {
      List<Long> batch = new ArrayList<>();
      for (int i = from; i < Math.min(ids.length, from + 1000); i++) {
        batch.add(ids[i]);
      }
      handle
          .createQuery(
              "SELECT "
                  + month
                  + ", COUNT(*) FROM "
                  + TableSpec.quote(spec.table())
                  + " WHERE "
                  + id
                  + " IN (<ids>) GROUP BY 1")
          .bindList("ids", batch)
          .map(
              (rs, ctx) ->
                  Map.entry(rs.getString(1) == null ? "no time" : rs.getString(1), rs.getLong(2)))
          .forEach(e -> perMonth.merge(e.getKey(), e.getValue(), Long::sum));
    }
    return perMonth;
  }
}
