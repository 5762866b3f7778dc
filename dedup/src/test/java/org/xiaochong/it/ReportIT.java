package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.report.HtmlReport;

/** report.html: its numbers equal summary.json, it has the sections, and it renders in Chromium. */
@Tag("db")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReportIT extends DbTestSupport {
  private static final Pattern CELL = Pattern.compile("data-key=\"([^\"]+)\">([^<]*)</td>");

  private static final Pattern PAIR =
      Pattern.compile(
          "<h3>(?:exact\\+)?near, score (\\d\\.\\d{3}) \\(threshold (\\d\\.\\d{2})\\): removed #(\\d+), kept #(\\d+)</h3>");
  private static final Pattern APART = Pattern.compile("Not duplicates\\? <code>([^<]+)</code>");

  @TempDir static Path dir;
  private Path report;
  private Path config;

  /** One run for all tests (they only read its report; the apart test's mark changes no report). */
  @BeforeAll
  void runWithReport() {
    PostLoader.reload(database(), 5L, 2_000, null, n -> {}, p -> {});
    config = writeConfig(dir, "supply_demand", dir.resolve("index"), Map.of());
    report = dir.resolve("report");
    CliRun run =
        cli(
            "run",
            "--config",
            config.toString(),
            "--method",
            "both",
            "--apply",
            "--report",
            report.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
  }

  private static Map<String, String> flatten(
      String prefix, JsonNode node, Map<String, String> into) {
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        flatten(prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), e.getValue(), into);
      }
    } else {
      into.put(prefix, node.isTextual() ? node.asText() : node.toString());
    }
    return into;
  }

  @Test
  void reportHtml_numbersEqualSummaryJson_andHasEverySection() throws IOException {
    String html = Files.readString(report.resolve("report.html"), StandardCharsets.UTF_8);
    Map<String, String> json =
        flatten(
            "",
            new ObjectMapper().readTree(report.resolve("summary.json").toFile()),
            new LinkedHashMap<>());
    Map<String, String> cells = new LinkedHashMap<>();
    Matcher m = CELL.matcher(html);
    while (m.find()) {
      cells.put(m.group(1), m.group(2));
    }
    assertThat(cells.keySet())
        .contains("run_id", "records_read", "exact.removed", "near.removed", "seconds.total");
    for (String key : cells.keySet()) {
      assertThat(json).as("summary.json has %s", key).containsKey(key);
      String inHtml = cells.get(key);
      String inJson = json.get(key);
      if (inJson.matches("-?[0-9.eE+-]+")) {
        assertThat(Double.parseDouble(inHtml)).as(key).isEqualTo(Double.parseDouble(inJson));
      } else {
        assertThat(inHtml.replace(" ", ""))
            .as(key)
            .isEqualTo(inJson.replace("\"", "").replace(" ", ""));
      }
    }
    assertThat(Long.parseLong(cells.get("exact.removed"))).isPositive();
    assertThat(Long.parseLong(cells.get("near.removed"))).isPositive();
    // In reading order: headline, the charts, the review, and the raw keys last, folded.
    int headline = html.indexOf("<p class=\"headline\" id=\"headline\">");
    int rules = html.indexOf("<svg id=\"chart-rules\"");
    int scores = html.indexOf("<svg id=\"chart-scores\"");
    int months = html.indexOf("<svg id=\"chart-months\"");
    int stages = html.indexOf("<svg id=\"chart-stages\"");
    int review = html.indexOf("<h2 id=\"review\">");
    int raw = html.indexOf("<details id=\"raw\"><summary>");
    assertThat(List.of(headline, rules, scores, months, stages, review, raw))
        .doesNotContain(-1)
        .isSorted();
    assertThat(html.indexOf("<table id=\"summary\">")).isGreaterThan(raw);
    assertThat(html.substring(scores, months))
        .contains("class=\"marker\"")
        .contains("near threshold 0.50");
    assertThat(html).contains("<mark>");
    assertThat(html)
        .doesNotContainPattern(
            "(?i)<script|https?://(?!www\\.w3\\.org/2000/svg)"); // one file, offline
  }

  @Test
  void headline_countsWithSeparators_perMethod_andTheUndoCommand() throws IOException {
    String html = Files.readString(report.resolve("report.html"), StandardCharsets.UTF_8);
    JsonNode json = new ObjectMapper().readTree(report.resolve("summary.json").toFile());
    JsonNode byRule = json.get("removed_by_method");
    long exact =
        byRule.get("exact").asLong()
            + byRule.get("exact+near").asLong(); // exact copies, wherever kept
    long near = byRule.get("near").asLong();
    assertThat(near).isPositive();
    assertThat(json.get("records_read").asLong()).isGreaterThan(999); // a separator to show
    assertThat(html)
        .contains(
            "<p class=\"headline\" id=\"headline\"><b>"
                + String.format(
                    Locale.ROOT,
                    "%,d</b> of %,d rows removed: %,d exact, %,d near; all archived in ",
                    exact + near,
                    json.get("records_read").asLong(),
                    exact,
                    near)
                + "<code>supply_demand_removed</code>; undo with <code>bin/dedup restore --config "
                + config
                + " --run "
                + json.get("run_id").asLong()
                + "</code></p>");
  }

  @Test
  void review_pairsClosestToTheThresholdFirst_eachWithAnApartCommandThatWorks() throws IOException {
    String html = Files.readString(report.resolve("report.html"), StandardCharsets.UTF_8);
    List<Double> shown = new ArrayList<>();
    Matcher pair = PAIR.matcher(html);
    while (pair.find()) {
      shown.add(Math.abs(Double.parseDouble(pair.group(1)) - Double.parseDouble(pair.group(2))));
    }
    // The closest of all near decisions, as decisions.jsonl has them (scores to 4 digits, the
    // page's to 3).
    List<Double> all = new ArrayList<>();
    for (String line : Files.readAllLines(report.resolve("decisions.jsonl"))) {
      JsonNode decision = new ObjectMapper().readTree(line);
      if (decision.get("rule").asText().endsWith("near")) {
        all.add(Math.abs(decision.get("score").asDouble() - 0.5));
      }
    }
    all.sort(null);
    assertThat(all.size()).isGreaterThan(HtmlReport.REVIEW_PAIRS);
    assertThat(shown).hasSize(HtmlReport.REVIEW_PAIRS);
    for (int i = 0; i < shown.size(); i++) {
      assertThat(shown.get(i)).as("pair %d", i).isCloseTo(all.get(i), within(0.001));
    }

    Matcher command = APART.matcher(html);
    assertThat(command.find()).isTrue();
    Matcher first = PAIR.matcher(html);
    assertThat(first.find()).isTrue();
    String line = command.group(1);
    assertThat(line)
        .isEqualTo(
            "bin/dedup apart add --config " + config + " " + first.group(3) + " " + first.group(4));
    CliRun add = cli(line.substring("bin/dedup ".length()).split(" "));
    assertThat(add.exitCode()).as(add.err()).isZero();
    CliRun list = cli("apart", "list", "--config", config.toString());
    assertThat(list.out())
        .containsPattern(
            "\\b("
                + first.group(3)
                + " "
                + first.group(4)
                + "|"
                + first.group(4)
                + " "
                + first.group(3)
                + ")\\b");
  }

  @Test
  void reportHtml_textOfThePosts_escaped() throws IOException {
    createPostsTable("report_hostile");
    String hostile = "<script>alert('x')</script> & \"quoted\" </td></table></svg>";
    LocalDateTime t = LocalDateTime.of(2024, 3, 1, 8, 0);
    insert("report_hostile", 1, "供应苹果 <b>", "苹果", "13800000000", hostile, t);
    insert("report_hostile", 2, "供应苹果 <b>", "苹果", "13800000000", hostile, t.plusDays(1));
    Path hostileConfig = writeConfig(dir, "report_hostile", dir.resolve("hostile-index"), Map.of());
    Path hostileReport = dir.resolve("hostile-report");
    CliRun run =
        cli(
            "run",
            "--config",
            hostileConfig.toString(),
            "--method",
            "both",
            "--apply",
            "--report",
            hostileReport.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();

    String html = Files.readString(hostileReport.resolve("report.html"), StandardCharsets.UTF_8);
    assertThat(html)
        .contains("removed #1, kept #2")
        .contains(
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot; &lt;/td&gt;&lt;/table&gt;"
                + "&lt;/svg&gt;")
        .contains("供应苹果 &lt;b&gt;")
        .doesNotContain("<script>")
        .doesNotContain("<b>供应");
  }

  @Test
  void reportHtml_rendersInHeadlessChromiumWithoutConsoleErrors() throws Exception {
    String dom = chromium(report.resolve("report.html"), "--dump-dom");
    assertThat(dom)
        .contains("id=\"headline\"")
        .contains("<svg id=\"chart-rules\"")
        .contains("id=\"summary\"")
        .contains("data-key=\"exact.removed\"")
        .contains("<mark>");
    String errors = Files.readString(dir.resolve("chromium.err"), StandardCharsets.UTF_8);
    assertThat(errors).doesNotContain("Uncaught").doesNotContainPattern("CONSOLE\\(\\d+\\)");
  }

  /**
   * The first screen of a 1400x900 window holds the headline and the charts of the first row: their
   * boxes as Chromium lays them out (a copy of the page with a script that writes them into the
   * DOM), and a screenshot of that window with the bars' colour in it.
   */
  @Test
  void firstScreen_1400x900_holdsTheHeadlineAndCharts() throws Exception {
    String html = Files.readString(report.resolve("report.html"), StandardCharsets.UTF_8);
    Path measured = dir.resolve("measured.html");
    Files.writeString(
        measured,
        html.replace(
            "</body>",
            """
        <script>
        const box = id => { const r = document.getElementById(id).getBoundingClientRect();
          return [r.left, r.top, r.right, r.bottom].map(Math.round).join(','); };
        const layout = document.createElement('pre');
        layout.id = 'layout';
        layout.textContent = 'viewport=' + innerWidth + 'x' + innerHeight + ';headline=' + box('headline')
          + ';chart-rules=' + box('chart-rules') + ';chart-scores=' + box('chart-scores');
        document.body.appendChild(layout);
        </script></body>"""),
        StandardCharsets.UTF_8);
    Matcher layout =
        Pattern.compile("<pre id=\"layout\">viewport=(\\d+)x(\\d+);(.*)</pre>")
            .matcher(chromium(measured, "--dump-dom"));
    assertThat(layout.find()).isTrue();
    // The page's layout depends on the width alone (no unit of the viewport's height): a window
    // 1400
    // wide lays it out as the 1400x900 screen does, whatever height Chromium's window gives the
    // page.
    assertThat(layout.group(1)).isEqualTo("1400");
    for (String element : layout.group(3).split(";")) {
      String[] box = element.split("[=,]");
      int left = Integer.parseInt(box[1]);
      int top = Integer.parseInt(box[2]);
      int right = Integer.parseInt(box[3]);
      int bottom = Integer.parseInt(box[4]);
      assertThat(bottom - top).as(box[0] + " has a height").isPositive();
      assertThat(left).as(box[0]).isNotNegative();
      assertThat(top).as(box[0]).isNotNegative();
      assertThat(right).as(box[0] + " within the first screen").isLessThanOrEqualTo(1400);
      assertThat(bottom).as(box[0] + " within the first screen").isLessThanOrEqualTo(900);
    }

    Path shot = dir.resolve("first-screen.png");
    chromium(report.resolve("report.html"), "--screenshot=" + shot);
    BufferedImage image = ImageIO.read(shot.toFile());
    assertThat(image.getWidth()).isEqualTo(1400);
    assertThat(image.getHeight()).isEqualTo(900);
    int bars = 0;
    int ink = 0;
    int barColour = Integer.parseInt(HtmlReport.BAR_COLOUR.substring(1), 16);
    for (int y = 0; y < image.getHeight(); y++) {
      for (int x = 0; x < image.getWidth(); x++) {
        int rgb = image.getRGB(x, y) & 0xffffff;
        bars += rgb == barColour ? 1 : 0;
        ink += rgb != 0xffffff ? 1 : 0;
      }
    }
    assertThat(bars).as("pixels of the charts' bars on the first screen").isGreaterThan(5_000);
    assertThat(ink).as("pixels that are not blank").isGreaterThan(bars + 5_000);
  }

  /**
   * Runs headless Chromium on {@code page} in a 1400x900 window; its stdout (the DOM for
   * --dump-dom).
   */
  private String chromium(Path page, String action) throws Exception {
    Path chromium = Path.of("/usr/bin/chromium");
    Assumptions.assumeTrue(
        Files.isExecutable(chromium),
        "skipped: /usr/bin/chromium is not installed (apt-get install chromium; .ci/run installs it)");
    Path profile = Files.createDirectories(dir.resolve("chromium-profile"));
    Process process =
        new ProcessBuilder(
                chromium.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--window-size=1400,900",
                "--user-data-dir=" + profile,
                "--enable-logging=stderr",
                "--v=0",
                action,
                page.toUri().toString())
            .redirectError(dir.resolve("chromium.err").toFile())
            .start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return out;
  }
}
