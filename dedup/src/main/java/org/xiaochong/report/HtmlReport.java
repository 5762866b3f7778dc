package org.xiaochong.report;

import static org.xiaochong.report.HtmlText.command;
import static org.xiaochong.report.HtmlText.count;
import static org.xiaochong.report.HtmlText.escape;
import static org.xiaochong.report.HtmlText.seconds;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.method.PairEvidence;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.run.RunSummary;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;

/**
 * {@code report.html}: what a curator opens to judge a run. On the first screen a headline sentence
 * (how many rows of how many went, per method, where they are archived, the command that undoes it)
 * and the charts as inline SVG ({@link RunCharts}): removals per rule, the score distribution with
 * each threshold marked, removals per month of their time, seconds per stage. Then the decisions a
 * person should check ({@link ReviewPairs}): the pairs closest to their rule's threshold first,
 * side by side with the differing characters highlighted, each with the {@code dedup apart add}
 * command that marks it "not duplicates". Last, folded, the raw numbers of {@code summary.json}
 * (each cell tagged with its JSON path in {@code data-key}). One file of HTML, CSS and SVG, no
 * script, no external resource: it opens anywhere, offline. Every text from the table or the config
 * is escaped. Stateless.
 */
public final class HtmlReport {
  /** Pairs shown for review, closest to their threshold first. */
  public static final int REVIEW_PAIRS = 20;

  /** The colour of the charts' bars and columns. */
  public static final String BAR_COLOUR = SvgChart.BAR_COLOUR;

  private HtmlReport() {}

  /**
   * The report of a run.
   *
   * @param configOption how the commands the report prints name the run's database, already quoted
   *     for a shell, e.g. {@code --config my.properties} ({@link #shellQuote}); empty for the
   *     built-in defaults
   * @param evidence the pair charts of the run's methods that weigh columns ({@link
   *     DedupRunner.Outcome#evidence}), drawn under their review pairs
   */
  public static void write(
      Path file,
      RunSummary summary,
      DeletionPlan plan,
      Database database,
      TableSpec spec,
      String configOption,
      Map<String, PairEvidence> evidence) {
    Map<String, Object> json = summary.toJson();
    Map<String, Double> thresholds = thresholds(summary);
    StringBuilder html = new StringBuilder(64 * 1024);
    html.append(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>xiaochong ")
        .append(summary.applied() ? "run " + summary.runId() : "dry run")
        .append(" on ")
        .append(escape(spec.table()))
        .append("</title>\n<style>\n")
        .append(
            "body{font-family:system-ui,'Noto Sans CJK SC',sans-serif;margin:1.2em 2em;color:#222;max-width:1320px}\n")
        .append(
            "h1{font-size:1.1em;font-weight:normal;color:#555;margin:0 0 .3em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em}\n")
        .append(
            ".headline{font-size:1.5em;line-height:1.35;margin:.2em 0 .6em}.headline code{font-size:.8em}\n")
        .append(
            ".figures{display:flex;gap:2.5em;margin:0 0 1em;padding:0}.figures li{list-style:none}\n")
        .append(
            ".figures b{display:block;font-size:1.3em;font-variant-numeric:tabular-nums}.figures span{color:#666;font-size:.9em}\n")
        .append(
            ".charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(600px,1fr));gap:.6em 2em}\n")
        .append(
            "figure{margin:0}figcaption{font-weight:bold;margin:.2em 0}svg{max-width:100%;height:auto}\n")
        .append(
            "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}\n")
        .append("td.n{text-align:right;font-variant-numeric:tabular-nums}\n")
        .append(
            "mark{background:#ffd966}.pair{margin:0 0 1.8em}.pair h3{margin:.2em 0;font-size:1em}\n")
        .append(
            ".pair table{width:100%;table-layout:fixed;margin:.3em 0}.pair td{font-size:.9em;white-space:pre-wrap;word-break:break-all}\n")
        .append(
            ".weights{margin:.2em 0 .4em}.weights td{border:none;padding:.05em .5em;font-size:.85em}.weights td.l{text-align:right;width:9em}.weights td.bar{width:12em;padding:0}.weights td.l+td.bar{border-left:1px solid #888}\n")
        .append(
            ".weights i{display:inline-block;height:.75em}.weights .for{background:#3a8f5c}.weights .against{background:#c2453d}\n")
        .append(
            "code{background:#f3f3f3;padding:0 .25em}.command{margin:.2em 0}details{margin:1em 0}summary{cursor:pointer;font-weight:bold}\n")
        .append("</style></head><body>\n");
    html.append("<h1>xiaochong ")
        .append(summary.applied() ? "run " + summary.runId() + " (applied)" : "dry run")
        .append(" on <code>")
        .append(escape(spec.table()))
        .append("</code>, method ")
        .append(escape(summary.method()))
        .append(", ")
        .append(escape(summary.window()))
        .append("</h1>\n");
    html.append("<p class=\"headline\" id=\"headline\">")
        .append(headline(summary, spec, configOption))
        .append("</p>\n");
    figures(html, summary);

    try (Handle handle = database.jdbi().open()) {
      ReportedRun run = new ReportedRun(summary, plan, spec, thresholds, evidence);
      RunCharts.write(html, handle, run);
      if (summary.applied()) {
        applyTable(html, summary);
      }
      ReviewPairs.write(html, handle, run, configOption);
    }

    html.append(
        "<details id=\"raw\"><summary>All numbers of summary.json</summary>\n<table id=\"summary\"><tr><th>key</th><th>value</th></tr>\n");
    for (Map.Entry<String, Object> e : flatten("", json).entrySet()) {
      html.append("<tr><td>")
          .append(escape(e.getKey()))
          .append("</td><td class=\"n\" data-key=\"")
          .append(escape(e.getKey()))
          .append("\">")
          .append(escape(String.valueOf(e.getValue())))
          .append("</td></tr>\n");
    }
    html.append("</table>\n</details>\n</body></html>\n");
    try {
      Files.writeString(file, html, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /**
   * "8,875 of 20,000 rows removed: 5,299 exact, 3,576 near; all archived in t_removed; undo with
   * …", escaped HTML. The removals are counted by the method that found them first: a combined rule
   * ({@code exact+near}, an exact copy of a row the near pass removed) counts as exact.
   */
  static String headline(RunSummary summary, TableSpec spec, String configOption) {
    Map<String, Long> byMethod = new LinkedHashMap<>();
    summary
        .removedByMethod()
        .forEach(
            (rule, removed) -> {
              if (removed > 0) {
                byMethod.merge(DeletionPlan.Rule.of(rule).first(), removed, Long::sum);
              }
            });
    String perMethod =
        byMethod.entrySet().stream()
            .map(e -> count(e.getValue()) + " " + e.getKey())
            .collect(Collectors.joining(", "));
    long removed = summary.removedTotal();
    StringBuilder line = new StringBuilder();
    line.append("<b>")
        .append(count(removed))
        .append("</b> of ")
        .append(count(summary.recordsRead()))
        .append(summary.recordsRead() == 1 ? " row " : " rows ")
        .append(summary.applied() ? "removed" : "would be removed")
        .append(removed == 0 ? "" : ": " + escape(perMethod))
        .append("; ");
    if (summary.applied()) {
      long kept = summary.applyTotal().kept();
      line.append("all archived in <code>").append(escape(spec.removedTable())).append("</code>");
      if (kept > 0) {
        line.append(" (")
            .append(count(kept))
            .append(" planned rows stayed: changed since the plan or referenced)");
      }
      line.append("; undo with <code>")
          .append(escape(command("restore", configOption, "--run " + summary.runId())))
          .append("</code>");
    } else {
      line.append("a dry run: nothing changed yet; apply with <code>")
          .append(escape(command("run", configOption, "--method " + summary.method() + " --apply")))
          .append("</code>");
    }
    return line.toString();
  }

  private static void figures(StringBuilder html, RunSummary summary) {
    double total = summary.totalSeconds();
    html.append("<ul class=\"figures\" id=\"figures\">\n");
    figureItem(html, count(summary.recordsRead()) + " rows", "in the table");
    figureItem(html, count(summary.recordsExamined()) + " rows", "examined");
    figureItem(
        html,
        count(summary.removedTotal()) + " rows",
        String.format(
            Locale.ROOT,
            "%s (%.1f %%)",
            summary.applied() ? "removed" : "to remove",
            summary.recordsRead() == 0
                ? 0.0
                : 100.0 * summary.removedTotal() / summary.recordsRead()));
    figureItem(html, seconds(total), "in all");
    figureItem(
        html,
        total <= 0 ? "-" : count(Math.round(summary.recordsRead() / total)) + " rows/s",
        "throughput");
    if (summary.apart().marks() > 0) {
      figureItem(
          html,
          count(summary.apart().marks()) + " marks",
          "marked apart, " + count(summary.apart().honoured()) + " kept apart in this run");
    }
    html.append("</ul>\n");
  }

  private static void figureItem(StringBuilder html, String value, String what) {
    html.append("<li><b>")
        .append(escape(value))
        .append("</b><span>")
        .append(escape(what))
        .append("</span></li>\n");
  }

  private static void applyTable(StringBuilder html, RunSummary summary) {
    // What the apply did with the plan: a planned row is moved, or stays (and why), or was gone.
    html.append(
        "<h2>Planned, moved and kept per rule</h2>\n<table id=\"apply\"><tr><th>rule</th><th>planned</th>"
            + "<th>moved</th><th>kept: changed since the plan</th><th>kept: referenced by other tables</th>"
            + "<th>gone from the table</th></tr>\n");
    summary
        .applyCounts()
        .forEach(
            (method, c) -> {
              html.append("<tr><td>").append(escape(method)).append("</td>");
              for (long n :
                  new long[] {
                    c.planned(), c.moved(), c.keptChanged(), c.keptReferenced(), c.gone()
                  }) {
                html.append("<td class=\"n\">").append(count(n)).append("</td>");
              }
              html.append("</tr>\n");
            });
    html.append("</table>\n");
  }

  /**
   * The threshold of each method of the run that decides by a similarity ({@link
   * org.xiaochong.method.MethodReport#scoreThreshold}), by method name.
   */
  static Map<String, Double> thresholds(RunSummary summary) {
    Map<String, Double> thresholds = new LinkedHashMap<>();
    summary
        .reports()
        .forEach(
            (method, report) -> report.scoreThreshold().ifPresent(t -> thresholds.put(method, t)));
    return thresholds;
  }

  /** The JSON summary as dotted paths (run_id, exact.removed, seconds.total …). */
  static Map<String, Object> flatten(String prefix, Map<String, Object> json) {
    Map<String, Object> flat = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : json.entrySet()) {
      String key = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
      if (e.getValue() instanceof Map<?, ?> nested) {
        @SuppressWarnings("unchecked")
        Map<String, Object> inner = (Map<String, Object>) nested;
        flat.putAll(flatten(key, inner));
      } else {
        flat.put(key, e.getValue());
      }
    }
    return flat;
  }

  /**
   * {@code text} as one shell word: as is when it holds only characters no shell interprets, else
   * in single quotes (a single quote inside as {@code '\''}).
   */
  public static String shellQuote(String text) {
    if (!text.isEmpty() && text.matches("[A-Za-z0-9_./:=@%+,-]+")) {
      return text;
    }
    return "'" + text.replace("'", "'\\''") + "'";
  }
}
