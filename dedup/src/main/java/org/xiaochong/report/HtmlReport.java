package org.xiaochong.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.run.RunSummary;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.TableSpec;

/**
 * {@code report.html}: what a curator opens to judge a run. On the first screen a headline sentence
 * (how many rows of how many went, per method, where they are archived, the command that undoes it)
 * and the charts as inline SVG ({@link SvgChart}): removals per rule, the score distribution with
 * each threshold marked, removals per month of their time, seconds per stage. Then the decisions a
 * person should check: the pairs closest to their rule's threshold first, side by side with the
 * differing characters highlighted, each with the {@code dedup apart add} command that marks it
 * "not duplicates". Last, folded, the raw numbers of {@code summary.json} (each cell tagged with
 * its JSON path in {@code data-key}). One file of HTML, CSS and SVG, no script, no external
 * resource: it opens anywhere, offline. Every text from the table or the config is escaped.
 * Stateless.
 */
public final class HtmlReport {
  /** Pairs shown for review, closest to their threshold first. */
  public static final int REVIEW_PAIRS = 20;

  /** The colour of the charts' bars and columns. */
  public static final String BAR_COLOUR = SvgChart.BAR_COLOUR;

  /** Longer texts are shown without highlighting (the diff is quadratic). */
  private static final int DIFF_LIMIT = 2000;

  /** Width of a score bin of the distribution chart. */
  private static final double SCORE_BIN = 0.02;

  private HtmlReport() {}

  /**
   * The report of a run.
   *
   * @param configOption how the commands the report prints name the run's database, already quoted
   *     for a shell, e.g. {@code --config my.properties} ({@link #shellQuote}); empty for the
   *     built-in defaults
   */
  public static void write(
      Path file,
      RunSummary summary,
      DeletionPlan plan,
      Database database,
      TableSpec spec,
      String configOption) {
    Map<String, Object> json = summary.toJson();
    Map<String, Double> thresholds = thresholds(json);
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
      html.append("<section class=\"charts\" id=\"charts\">\n");
      figure(html, "Removals per rule", rulesChart(summary));
      figure(
          html,
          "Score of each removal to its kept row" + unscored(plan, thresholds),
          scoreChart(plan, thresholds));
      figure(
          html,
          "Removals per month of " + spec.timeColumn(),
          monthsChart(removedPerMonth(handle, summary, plan, spec)));
      figure(
          html,
          "Time per stage (" + seconds(summary.totalSeconds()) + " in all)",
          stagesChart(summary));
      html.append("</section>\n");
      if (summary.applied()) {
        applyTable(html, summary);
      }
      review(html, handle, summary, plan, spec, thresholds, configOption);
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
   * "8,839 of 20,000 rows removed: 5,299 exact, 3,540 near; all archived in t_removed; undo with
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
          count(summary.apart().marks()) + " pairs",
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
        HtmlReport::count);
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
        "chart-months", "Removals per month", columns, 0, 1, List.of(), HtmlReport::count);
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
   * The threshold of each method that decides by a similarity, from its section of summary.json:
   * near's {@code min_similarity}; simhash's likeness at {@code max_distance}, (64 - d) / 64.
   */
  static Map<String, Double> thresholds(Map<String, Object> json) {
    Map<String, Double> thresholds = new LinkedHashMap<>();
    json.forEach(
        (method, section) -> {
          if (section instanceof Map<?, ?> values && values.containsKey("examined")) {
            if (values.get("min_similarity") instanceof Number n) {
              thresholds.put(method, n.doubleValue());
            } else if (values.get("max_distance") instanceof Number d) {
              thresholds.put(method, (64 - d.doubleValue()) / 64);
            }
          }
        });
    return thresholds;
  }

  /**
   * The decisions to check, closest to their rule's threshold first (ties by removed id, so the
   * same data gives the same page); rules without a threshold (exact copies) after them.
   */
  static int[] reviewOrder(DeletionPlan plan, Map<String, Double> thresholds) {
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

  private static void review(
      StringBuilder html,
      Handle handle,
      RunSummary summary,
      DeletionPlan plan,
      TableSpec spec,
      Map<String, Double> thresholds,
      String configOption) {
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
    for (int i : reviewOrder(plan, thresholds)) {
      if (shown == REVIEW_PAIRS) {
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
      Double threshold = thresholds.get(plan.rule(i).last());
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
        String[] marked = highlight(nullToEmpty(removed.get(field)), nullToEmpty(kept.get(field)));
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
      html.append("</table>\n<p class=\"command\">Not duplicates? <code>")
          .append(escape(command("apart add", configOption, removedId + " " + keptId)))
          .append("</code></p></article>\n");
    }
    if (shown == 0) {
      html.append("<p>No removals to review.</p>\n");
    }
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

  /**
   * Both texts, escaped, with the characters outside their longest common subsequence in {@code
   * <mark>}. Plain dynamic programming, O(n·m): texts longer than {@link #DIFF_LIMIT} are shown as
   * is.
   */
  static String[] highlight(String a, String b) {
    if (a.length() > DIFF_LIMIT || b.length() > DIFF_LIMIT || a.equals(b)) {
      return new String[] {escape(a), escape(b)};
    }
    int[][] lcs = new int[a.length() + 1][b.length() + 1];
    for (int i = a.length() - 1; i >= 0; i--) {
      for (int j = b.length() - 1; j >= 0; j--) {
        lcs[i][j] =
            a.charAt(i) == b.charAt(j)
                ? lcs[i + 1][j + 1] + 1
                : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    boolean[] inA = new boolean[a.length()];
    boolean[] inB = new boolean[b.length()];
    for (int i = 0, j = 0; i < a.length() && j < b.length(); ) {
      if (a.charAt(i) == b.charAt(j)) {
        inA[i++] = true;
        inB[j++] = true;
      } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
        i++;
      } else {
        j++;
      }
    }
    return new String[] {marked(a, inA), marked(b, inB)};
  }

  private static String marked(String text, boolean[] common) {
    StringBuilder out = new StringBuilder();
    boolean open = false;
    for (int i = 0; i < text.length(); i++) {
      if (!common[i] && !open) {
        out.append("<mark>");
        open = true;
      } else if (common[i] && open) {
        out.append("</mark>");
        open = false;
      }
      out.append(escape(String.valueOf(text.charAt(i))));
    }
    if (open) {
      out.append("</mark>");
    }
    return out.toString();
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }

  /**
   * A command line of bin/dedup: the command, then its options and arguments, leaving out empty
   * ones.
   */
  static String command(String... words) {
    StringBuilder line = new StringBuilder("bin/dedup");
    for (String word : words) {
      if (!word.isEmpty()) {
        line.append(' ').append(word);
      }
    }
    return line.toString();
  }

  /** {@code n} with thousands separators, whatever the JVM's locale: 89,476. */
  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** Seconds for people: "0.35 s", "12.3 s", "4 min 05 s". */
  static String seconds(double s) {
    if (s < 1) {
      return String.format(Locale.ROOT, "%.2f s", s);
    }
    if (s < 60) {
      return String.format(Locale.ROOT, "%.1f s", s);
    }
    long whole = Math.round(s);
    return String.format(Locale.ROOT, "%d min %02d s", whole / 60, whole % 60);
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

  static String escape(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
