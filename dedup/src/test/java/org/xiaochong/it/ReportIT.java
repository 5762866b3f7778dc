package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.posts.PostGenerator;
import org.xiaochong.posts.PostLoader;

/** report.html: its numbers equal summary.json, it has the sections, and it renders in Chromium. */
@Tag("db")
class ReportIT extends DbTestSupport {
  private static final Pattern CELL = Pattern.compile("data-key=\"([^\"]+)\">([^<]*)</td>");

  @TempDir Path dir;
  private Path report;

  @BeforeEach
  void runWithReport() {
    PostLoader.reload(database(), 5L, 2_000, null, n -> {}, p -> {});
    Path config = writeConfig(dir, "supply_demand", dir.resolve("index"), Map.of());
    report = dir.resolve("report");
    CliRun run = cli("run", "--config", config.toString(), "--method", "both", "--apply", "--report", report.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
  }

  private static Map<String, String> flatten(String prefix, JsonNode node, Map<String, String> into) {
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
    Map<String, String> json = flatten("", new ObjectMapper().readTree(report.resolve("summary.json").toFile()), new LinkedHashMap<>());
    Map<String, String> cells = new LinkedHashMap<>();
    Matcher m = CELL.matcher(html);
    while (m.find()) {
      cells.put(m.group(1), m.group(2));
    }
    assertThat(cells.keySet()).contains("run_id", "records_read", "exact.removed", "near.removed", "seconds.total");
    for (String key : cells.keySet()) {
      assertThat(json).as("summary.json has %s", key).containsKey(key);
      String inHtml = cells.get(key);
      String inJson = json.get(key);
      if (inJson.matches("-?[0-9.eE+-]+")) {
        assertThat(Double.parseDouble(inHtml)).as(key).isEqualTo(Double.parseDouble(inJson));
      } else {
        assertThat(inHtml.replace(" ", "")).as(key).isEqualTo(inJson.replace("\"", "").replace(" ", ""));
      }
    }
    assertThat(Long.parseLong(cells.get("exact.removed"))).isPositive();
    assertThat(Long.parseLong(cells.get("near.removed"))).isPositive();
    assertThat(html).contains("<h2>Removed per rule</h2>", "<h2>Duplicates over time</h2>",
        "<h2>Similarity of the removed records to their kept record</h2>", "<h2>Sample pairs</h2>");
    assertThat(html).containsPattern("<h3>near, score 0\\.\\d{3}: removed #\\d+, kept #\\d+</h3>");
    assertThat(html).contains("<mark>");
  }

  @Test
  void reportHtml_rendersInHeadlessChromiumWithoutConsoleErrors() throws Exception {
    Path chromium = Path.of("/usr/bin/chromium");
    Assumptions.assumeTrue(Files.isExecutable(chromium),
        "skipped: /usr/bin/chromium is not installed (apt-get install chromium; .ci/run installs it)");
    Path profile = Files.createDirectories(dir.resolve("chromium-profile"));
    Process process = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0", "--dump-dom",
        report.resolve("report.html").toUri().toString())
        .redirectError(dir.resolve("chromium.err").toFile()).start();
    String dom = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String errors = Files.readString(dir.resolve("chromium.err"), StandardCharsets.UTF_8);
    assertThat(dom).contains("id=\"summary\"").contains("data-key=\"exact.removed\"").contains("<mark>");
    assertThat(errors).doesNotContain("Uncaught").doesNotContainPattern("CONSOLE\\(\\d+\\)");
  }
}
