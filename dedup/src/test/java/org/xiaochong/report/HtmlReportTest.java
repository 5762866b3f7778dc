package org.xiaochong.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.method.MethodReport;
import org.xiaochong.method.PairEvidence;
import org.xiaochong.run.RunSummary;
import org.xiaochong.source.TableSpec;

class HtmlReportTest {
  @Test
  void count_underAnyDefaultLocale_commaSeparated() {
    Locale before = Locale.getDefault();
    try {
      Locale.setDefault(Locale.GERMANY); // would write 89.476
      assertThat(HtmlText.count(89_476)).isEqualTo("89,476");
      assertThat(HtmlText.count(200_000)).isEqualTo("200,000");
      assertThat(HtmlText.count(7)).isEqualTo("7");
    } finally {
      Locale.setDefault(before);
    }
  }

  @Test
  void headline_applied_perMethodWithSeparators_exactPlusNearCountedAsExact_andTheUndoCommand() {
    RunSummary summary =
        summary(
            7,
            true,
            Map.of("exact", 50_000L, "near", 33_238L, "simhash", 0L, "exact+near", 6_238L));

    assertThat(HtmlReport.headline(summary, TABLE, "--config 'my dedup.properties'"))
        .isEqualTo(
            "<b>89,476</b> of 200,000 rows removed: 56,238 exact, 33,238 near; all archived in"
                + " <code>supply_demand_removed</code>; undo with <code>bin/dedup restore --config &#39;my"
                + " dedup.properties&#39; --run 7</code>");
  }

  @Test
  void headline_dryRun_saysNothingChangedAndHowToApply() {
    RunSummary summary = summary(0, false, Map.of("exact", 1_200L, "near", 0L));

    assertThat(HtmlReport.headline(summary, TABLE, ""))
        .isEqualTo(
            "<b>1,200</b> of 200,000 rows would be removed:"
                + " 1,200 exact; a dry run: nothing changed yet; apply with <code>bin/dedup run --method exact,near"
                + " --apply</code>");
  }

  private static final TableSpec TABLE =
      new TableSpec(
          "supply_demand",
          "id",
          "reg_time",
          TableSpec.SAMPLE_TEXT_COLUMNS,
          List.of("phone"),
          Map.of("fields.near", List.of("title", "product", "content")));

  private static RunSummary summary(long runId, boolean applied, Map<String, Long> removed) {
    return summary(runId, applied, removed, Map.of());
  }

  private static RunSummary summary(
      long runId, boolean applied, Map<String, Long> removed, Map<String, MethodReport> reports) {
    Map<String, Long> ordered = new LinkedHashMap<>();
    for (String rule : List.of("exact", "near", "simhash", "exact+near")) {
      if (removed.containsKey(rule)) {
        ordered.put(rule, removed.get(rule));
      }
    }
    return new RunSummary(
        runId,
        "exact,near",
        applied,
        200_000,
        200_000,
        0,
        0,
        0,
        ordered,
        reports,
        List.of(),
        0,
        0,
        Map.of("total", 10.0),
        List.of(),
        null,
        "all records",
        0,
        Map.of(),
        0);
  }

  @Test
  void seconds_withUnitAndSensiblePrecision() {
    assertThat(HtmlText.seconds(0.068)).isEqualTo("0.07 s");
    assertThat(HtmlText.seconds(14.51471)).isEqualTo("14.5 s");
    assertThat(HtmlText.seconds(245.4)).isEqualTo("4 min 05 s");
  }

  @Test
  void shellQuote_plainPathAsIs_otherwiseOneSingleQuotedWord() {
    assertThat(HtmlReport.shellQuote("data/demo/demo.properties"))
        .isEqualTo("data/demo/demo.properties");
    assertThat(HtmlReport.shellQuote("/home/me/my config.properties"))
        .isEqualTo("'/home/me/my config.properties'");
    assertThat(HtmlReport.shellQuote("it's $HOME")).isEqualTo("'it'\\''s $HOME'");
    assertThat(HtmlReport.shellQuote("")).isEqualTo("''");
  }

  @Test
  void command_leavesOutAnEmptyConfigOption() {
    assertThat(HtmlText.command("restore", "", "--run 7")).isEqualTo("bin/dedup restore --run 7");
    assertThat(HtmlText.command("apart add", "--config a.properties", "12 34"))
        .isEqualTo("bin/dedup apart add --config a.properties 12 34");
  }

  @Test
  void thresholds_ofTheMethodsThatDecideByAScore_onlyForMethodsThatRan() {
    Map<String, MethodReport> reports = new LinkedHashMap<>();
    reports.put("exact", report(OptionalDouble.empty()));
    reports.put("near", report(OptionalDouble.of(0.5)));
    reports.put("simhash", report(OptionalDouble.of(61 / 64.0)));
    reports.put("pairs", MethodReport.notRun());

    assertThat(HtmlReport.thresholds(summary(0, false, Map.of("exact", 1L), reports)))
        .containsExactly(Map.entry("near", 0.5), Map.entry("simhash", 61 / 64.0));
    assertThat(HtmlReport.thresholds(summary(0, false, Map.of("exact", 1L)))).isEmpty();
  }

  private static MethodReport report(OptionalDouble threshold) {
    return new MethodReport() {
      @Override
      public long examined() {
        return 10;
      }

      @Override
      public Map<String, Object> json(long removed) {
        return Map.of("removed", removed);
      }

      @Override
      public String consoleLine(long removed, boolean applied) {
        return "";
      }

      @Override
      public OptionalDouble scoreThreshold() {
        return threshold;
      }
    };
  }

  @Test
  void reviewOrder_closestToTheThresholdFirst_exactCopiesLast_tiesByRemovedId() {
    DeletionPlan plan = new DeletionPlan();
    plan.add(1, 100, DeletionPlan.Rule.of("exact"), 1.0);
    plan.add(2, 100, DeletionPlan.Rule.of("near"), 0.95);
    plan.add(3, 100, DeletionPlan.Rule.of("near"), 0.52);
    plan.add(4, 100, DeletionPlan.Rule.of("exact").then(DeletionPlan.Rule.of("near")), 0.61);
    plan.add(6, 100, DeletionPlan.Rule.of("near"), 0.70);
    plan.add(5, 100, DeletionPlan.Rule.of("near"), 0.70);

    int[] order = ReviewPairs.order(plan, Map.of("near", 0.5));

    long[] removed = new long[order.length];
    for (int i = 0; i < order.length; i++) {
      removed[i] = plan.removedId(order[i]);
    }
    assertThat(removed).containsExactly(3, 4, 5, 6, 2, 1);
  }

  @Test
  void weights_aBarPerColumnScaledToTheWidest_againstLeftForRight_levelsEscaped() {
    StringBuilder html = new StringBuilder();
    ReviewPairs.weights(
        html,
        new PairEvidence.Chart(
            -8.0,
            List.of(
                new PairEvidence.Column("surname", "exact", 12.0),
                new PairEvidence.Column("phone", "<else>", -4.0),
                new PairEvidence.Column("fax", "empty", 0.0)),
            0.0588));
    String out = html.toString();
    assertThat(out)
        .contains(
            "<tr><td>prior</td><td></td><td class=\"l bar\"><i class=\"against\""
                + " style=\"width:67%\"></i></td><td class=\"bar\"></td><td class=\"n\">-8.0</td></tr>")
        .contains(
            "<tr><td>surname</td><td>exact</td><td class=\"l bar\"></td><td class=\"bar\"><i"
                + " class=\"for\" style=\"width:100%\"></i></td><td class=\"n\">+12.0</td></tr>")
        .contains("<td>phone</td><td>&lt;else&gt;</td>")
        .contains("style=\"width:33%\"></i></td><td class=\"bar\"></td><td class=\"n\">-4.0</td>")
        .contains("<td>fax</td><td>empty</td>")
        .contains("<td>sum</td><td>match probability 0.0588</td>")
        .contains("<td class=\"n\">+0.0</td>");
  }

  @Test
  void svgLabels_fromTheData_escaped() {
    String svg =
        SvgChart.bars(
            "chart-x",
            "a <title>",
            List.of(new SvgChart.Bar("</svg><script>x()</script>", 3, "3 & more")));
    assertThat(svg)
        .doesNotContain("<script>")
        .contains("&lt;/svg&gt;&lt;script&gt;x()&lt;/script&gt;")
        .contains("3 &amp; more")
        .contains("a &lt;title&gt;");
    String columns =
        SvgChart.columns(
            "chart-y",
            "t",
            List.of(new SvgChart.Bar("<b>", 1, "1")),
            0,
            1,
            List.of(new SvgChart.Marker(0.5, "near \"threshold\"")),
            Long::toString);
    assertThat(columns)
        .doesNotContain("<b>")
        .contains("&lt;b&gt;")
        .contains("near &quot;threshold&quot;");
  }
}
