package org.xiaochong.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
 * {@code report.html}: what a curator opens to judge a run. The counts (the same numbers as {@code
 * summary.json}, each cell tagged with its JSON path in {@code data-key}), removals per rule, removed
 * records per month of their time, a histogram of the similarity scores, and sample removed/kept pairs
 * side by side with the differing characters highlighted. Plain HTML and CSS, no script: it opens
 * anywhere, offline. Stateless.
 */
public final class HtmlReport {
  private static final int SAMPLES_PER_RULE = 10;
  /** Longer texts are shown without highlighting (the diff is quadratic). */
  private static final int DIFF_LIMIT = 2000;

  private HtmlReport() {}

  public static void write(Path file, RunSummary summary, DeletionPlan plan, Database database, TableSpec spec) {
    StringBuilder html = new StringBuilder(64 * 1024);
    html.append("<!DOCTYPE html>\n<html lang=\"zh\"><head><meta charset=\"utf-8\">\n<title>xiaochong run ")
        .append(summary.runId()).append(" on ").append(escape(spec.table())).append("</title>\n<style>\n")
        .append("body{font-family:system-ui,'Noto Sans CJK SC',sans-serif;margin:2em;color:#222;max-width:1200px}\n")
        .append("table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}\n")
        .append("td.n{text-align:right;font-variant-numeric:tabular-nums}.bar{background:#4a7fb5;height:1em;display:inline-block}\n")
        .append("mark{background:#ffd966}.pair td{width:50%;font-size:.9em;white-space:pre-wrap;word-break:break-all}\n")
        .append("h2{border-bottom:1px solid #ddd;padding-bottom:.2em}</style></head><body>\n");
    html.append("<h1>xiaochong ").append(summary.applied() ? "run " + summary.runId() + " (applied)" : "dry run")
        .append(" on <code>").append(escape(spec.table())).append("</code></h1>\n");
    html.append("<p>Method <b>").append(escape(summary.method())).append("</b>. Every removed row is archived in <code>")
        .append(escape(spec.removedTable())).append("</code>").append(summary.applied()
            ? " and can be put back with <code>dedup restore --run " + summary.runId() + "</code>." : "; this dry run changed nothing.")
        .append("</p>\n");

    html.append("<h2>Summary</h2>\n<table id=\"summary\"><tr><th>key</th><th>value</th></tr>\n");
    for (Map.Entry<String, Object> e : flatten("", summary.toJson()).entrySet()) {
      html.append("<tr><td>").append(escape(e.getKey())).append("</td><td class=\"n\" data-key=\"").append(escape(e.getKey()))
          .append("\">").append(escape(String.valueOf(e.getValue()))).append("</td></tr>\n");
    }
    html.append("</table>\n");

    html.append("<h2>Removed per rule</h2>\n<table id=\"rules\"><tr><th>rule</th><th>removed</th><th></th></tr>\n");
    long maxRule = Math.max(1, summary.removedByMethod().values().stream().mapToLong(Long::longValue).max().orElse(1));
    summary.removedByMethod().forEach((method, removed) -> bar(html, method, removed, maxRule));
    html.append("</table>\n");
    if (summary.applied()) {
      // What the apply did with the plan: a planned row is moved, or stays (and why), or was gone.
      html.append("<h2>Planned, moved and kept per rule</h2>\n<table id=\"apply\"><tr><th>rule</th><th>planned</th>"
          + "<th>moved</th><th>kept: changed since the plan</th><th>kept: referenced by other tables</th>"
          + "<th>gone from the table</th></tr>\n");
      summary.applyCounts().forEach((method, c) -> {
        html.append("<tr><td>").append(escape(method)).append("</td>");
        for (long n : new long[] {c.planned(), c.moved(), c.keptChanged(), c.keptReferenced(), c.gone()}) {
          html.append("<td class=\"n\">").append(n).append("</td>");
        }
        html.append("</tr>\n");
      });
      html.append("</table>\n");
    }

    try (Handle handle = database.jdbi().open()) {
      Map<String, Long> perMonth = removedPerMonth(handle, summary, plan, spec);
      html.append("<h2>Duplicates over time</h2>\n<p>Removed records per month of their ")
          .append(escape(spec.timeColumn())).append(".</p>\n<table id=\"months\"><tr><th>month</th><th>removed</th><th></th></tr>\n");
      long maxMonth = Math.max(1, perMonth.values().stream().mapToLong(Long::longValue).max().orElse(1));
      perMonth.forEach((month, count) -> bar(html, month, count, maxMonth));
      html.append("</table>\n");

      html.append("<h2>Similarity of the removed records to their kept record</h2>\n<table id=\"similarity\"><tr><th>score</th><th>removed</th><th></th></tr>\n");
      long[] buckets = new long[21];
      for (int i = 0; i < plan.size(); i++) {
        buckets[(int) Math.round(Math.max(0, Math.min(1, plan.score(i))) * 20)]++;
      }
      long maxBucket = 1;
      for (long b : buckets) {
        maxBucket = Math.max(maxBucket, b);
      }
      for (int b = 0; b < buckets.length; b++) {
        if (buckets[b] > 0) {
          bar(html, String.format("%.2f", b / 20.0), buckets[b], maxBucket);
        }
      }
      html.append("</table>\n");

      html.append("<h2>Sample pairs</h2>\n<p>Removed record on the left, the record kept in its place on the right; "
          + "characters that differ are <mark>highlighted</mark>.</p>\n");
      samplePairs(html, handle, summary, plan, spec);
    }
    html.append("</body></html>\n");
    try {
      Files.writeString(file, html, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
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

  private static void bar(StringBuilder html, String label, long count, long max) {
    html.append("<tr><td>").append(escape(label)).append("</td><td class=\"n\">").append(count)
        .append("</td><td><span class=\"bar\" style=\"width:").append(Math.round(400.0 * count / max)).append("px\"></span></td></tr>\n");
  }

  private static Map<String, Long> removedPerMonth(Handle handle, RunSummary summary, DeletionPlan plan, TableSpec spec) {
    Map<String, Long> perMonth = new TreeMap<>();
    // A date with a zero month ('0000-00-00', '2024-00-00') counts as no time, as in RecordSource.readTime.
    String time = TableSpec.quote(spec.timeColumn());
    String month = "IF(MONTH(" + time + ") = 0, NULL, DATE_FORMAT(" + time + ", '%Y-%m'))";
    String id = TableSpec.quote(spec.idColumn());
    if (summary.applied()) {
      handle.createQuery("SELECT " + month + ", COUNT(*) FROM " + TableSpec.quote(spec.removedTable())
              + " WHERE dedup_run_id = ? GROUP BY 1").bind(0, summary.runId())
          .map((rs, ctx) -> Map.entry(rs.getString(1) == null ? "no time" : rs.getString(1), rs.getLong(2)))
          .forEach(e -> perMonth.merge(e.getKey(), e.getValue(), Long::sum));
      return perMonth;
    }
    long[] ids = plan.removedIdsSorted();
    for (int from = 0; from < ids.length; from += 1000) {
      List<Long> batch = new ArrayList<>();
      for (int i = from; i < Math.min(ids.length, from + 1000); i++) {
        batch.add(ids[i]);
      }
      handle.createQuery("SELECT " + month + ", COUNT(*) FROM " + TableSpec.quote(spec.table())
              + " WHERE " + id + " IN (<ids>) GROUP BY 1").bindList("ids", batch)
          .map((rs, ctx) -> Map.entry(rs.getString(1) == null ? "no time" : rs.getString(1), rs.getLong(2)))
          .forEach(e -> perMonth.merge(e.getKey(), e.getValue(), Long::sum));
    }
    return perMonth;
  }

  private static void samplePairs(StringBuilder html, Handle handle, RunSummary summary, DeletionPlan plan, TableSpec spec) {
    List<String> fields = spec.fingerprintColumns();
    Map<DeletionPlan.Rule, Integer> shown = new LinkedHashMap<>();
    int[] order = plan.orderByRemovedId(); // the same samples for the same data (see ReportWriter)
    for (int at = 0; at < order.length; at++) {
      int i = order[at];
      if (shown.getOrDefault(plan.rule(i), 0) >= SAMPLES_PER_RULE) {
        continue;
      }
      Map<String, String> removed = row(handle, summary.applied() ? spec.removedTable() : spec.table(), spec, plan.removedId(i), fields);
      Map<String, String> kept = row(handle, spec.table(), spec, plan.keptId(i), fields);
      if (removed == null || kept == null) {
        continue;
      }
      shown.merge(plan.rule(i), 1, Integer::sum);
      html.append("<h3>").append(plan.rule(i).label).append(", score ").append(String.format("%.3f", plan.score(i)))
          .append(": removed #").append(plan.removedId(i)).append(", kept #").append(plan.keptId(i)).append("</h3>\n")
          .append("<table class=\"pair\"><tr><th>removed #").append(plan.removedId(i)).append(" (")
          .append(escape(timeOf(removed, spec))).append(")</th><th>kept #").append(plan.keptId(i)).append(" (")
          .append(escape(timeOf(kept, spec))).append(")</th></tr>\n");
      for (String field : fields) {
        String[] marked = highlight(nullToEmpty(removed.get(field)), nullToEmpty(kept.get(field)));
        html.append("<tr><td><b>").append(escape(field)).append(":</b> ").append(marked[0]).append("</td><td><b>")
            .append(escape(field)).append(":</b> ").append(marked[1]).append("</td></tr>\n");
      }
      html.append("</table>\n");
    }
  }

  private static String timeOf(Map<String, String> row, TableSpec spec) {
    String time = row.get(spec.timeColumn());
    return time == null ? "no time" : time;
  }

  private static Map<String, String> row(Handle handle, String table, TableSpec spec, long id, List<String> fields) {
    List<String> columns = new ArrayList<>(fields);
    columns.add(spec.timeColumn());
    String sql = "SELECT " + columns.stream().map(TableSpec::quote).collect(Collectors.joining(", ")) + " FROM "
        + TableSpec.quote(table) + " WHERE " + TableSpec.quote(spec.idColumn()) + " = ? LIMIT 1";
    return handle.createQuery(sql).bind(0, id).map((rs, ctx) -> {
      Map<String, String> values = new LinkedHashMap<>();
      for (int c = 0; c < columns.size(); c++) {
        // The time as the pipeline reads it (TIMESTAMP in UTC, a zero date as no time), not in the JVM's zone.
        Object value = c == columns.size() - 1 ? RecordSource.readTime(rs, c + 1) : rs.getObject(c + 1);
        values.put(columns.get(c), value instanceof LocalDateTime t ? t.toString().replace('T', ' ') : value == null ? null : value.toString());
      }
      return values;
    }).findOne().orElse(null);
  }

  /**
   * Both texts, escaped, with the characters outside their longest common subsequence in {@code
   * <mark>}. Plain dynamic programming, O(n·m): texts longer than {@link #DIFF_LIMIT} are shown as is.
   */
  static String[] highlight(String a, String b) {
    if (a.length() > DIFF_LIMIT || b.length() > DIFF_LIMIT || a.equals(b)) {
      return new String[] {escape(a), escape(b)};
    }
    int[][] lcs = new int[a.length() + 1][b.length() + 1];
    for (int i = a.length() - 1; i >= 0; i--) {
      for (int j = b.length() - 1; j >= 0; j--) {
        lcs[i][j] = a.charAt(i) == b.charAt(j) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
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
