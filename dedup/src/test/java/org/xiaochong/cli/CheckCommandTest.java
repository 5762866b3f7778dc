package org.xiaochong.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.RecordDocumentMaker;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;
import picocli.CommandLine;

class CheckCommandTest {
  @TempDir Path dir;

  private int execute(
      Path config, String stdin, StringWriter out, StringWriter err, String... args) {
    return execute(config, stdin.getBytes(StandardCharsets.UTF_8), out, err, args);
  }

  private int execute(
      Path config, byte[] stdin, StringWriter out, StringWriter err, String... args) {
    CommandLine cli = new CommandLine(new CheckCommand(new ByteArrayInputStream(stdin)));
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    List<String> all = new ArrayList<>(List.of("--config", config.toString()));
    all.addAll(List.of(args));
    return cli.execute(all.toArray(String[]::new));
  }

  private static String post(long id, String phone, String time) {
    return "{\"id\":"
        + id
        + ",\"title\":\"供应山东烟台红富士苹果\",\"category\":\"供应\",\"product\":\"红富士苹果\","
        + "\"region\":\"山东烟台\",\"price\":\"2.50元/斤\",\"contact\":\"王先生\",\"phone\":\""
        + phone
        + "\",\"content\":\"本人有红富士苹果约3000斤，价格2.50元/斤。\",\"reg_time\":\""
        + time
        + "\"}";
  }

  @Test
  void check_knownNewAndRepeatedRecords_givesVerdictsAndAddsOnlyWithAdd() throws Exception {
    Path config = dir.resolve("c.properties");
    Files.writeString(config, "index.dir=" + dir.resolve("index") + "\n");
    TableSpec spec = TableSpec.sample();
    RecordDocumentMaker maker = new RecordDocumentMaker(spec);
    DedupConfig dedupConfig = DedupConfig.load(config, java.util.Map.of());
    try (FingerprintIndex index =
        FingerprintIndex.open(dedupConfig.indexDir(), dedupConfig.fieldsDigest(), false)) {
      // Record 10 is in the index already (as if `dedup index` had run): same post as the input's
      // first line.
      index.addDocument(
          maker.make(
              new SourceRecord(
                  10,
                  1000,
                  new String[] {
                    "供应山东烟台红富士苹果",
                    "供应",
                    "红富士苹果",
                    "山东烟台",
                    "2.50元/斤",
                    "王先生",
                    "13800138000",
                    "本人有红富士苹果约3000斤，价格2.50元/斤。",
                    null,
                    null,
                    null
                  })));
      index.commit();
    }
    String input =
        post(11, "+86 138-0013-8000", "2025-01-01 08:00:00")
            + "\n"
            + post(12, "13900001111", "2025-01-02 08:00:00")
            + "\n"
            + post(13, "139 0000 1111", "2025-01-03 08:00:00")
            + "\n"
            + "{broken\n";
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = execute(config, input, out, err);
    List<JsonNode> verdicts = new ArrayList<>();
    for (String line : out.toString().split("\n")) {
      verdicts.add(new ObjectMapper().readTree(line));
    }
    assertThat(code).isEqualTo(3); // one line rejected
    assertThat(verdicts).hasSize(4);
    assertThat(verdicts.get(0).get("verdict").asText()).isEqualTo("exact");
    assertThat(verdicts.get(0).get("kept_id").asLong()).isEqualTo(10);
    assertThat(verdicts.get(1).get("verdict").asText()).isEqualTo("new");
    // Without --add, record 12 was not remembered: 13 (same post, other phone format) is new too.
    assertThat(verdicts.get(2).get("verdict").asText()).isEqualTo("new");
    assertThat(verdicts.get(3).get("verdict").asText()).isEqualTo("error");
    assertThat(verdicts.get(3).get("error").asText()).startsWith("invalid JSON");

    StringWriter out2 = new StringWriter();
    int code2 =
        execute(
            config,
            post(12, "13900001111", "2025-01-02 08:00:00")
                + "\n"
                + post(13, "139 0000 1111", "2025-01-03 08:00:00")
                + "\n",
            out2,
            new StringWriter(),
            "--add");
    assertThat(code2).isZero();
    String[] lines = out2.toString().split("\n");
    assertThat(new ObjectMapper().readTree(lines[0]).get("verdict").asText()).isEqualTo("new");
    assertThat(new ObjectMapper().readTree(lines[1]).get("verdict").asText()).isEqualTo("exact");
    assertThat(new ObjectMapper().readTree(lines[1]).get("kept_id").asLong()).isEqualTo(12);
    // 13 is newer than its twin 12: the keep policy keeps it, so it supersedes 12 and joins the
    // index.
    assertThat(new ObjectMapper().readTree(lines[1]).get("keep").asText()).isEqualTo("new");
    assertThat(new ObjectMapper().readTree(lines[1]).get("supersedes").toString())
        .isEqualTo("[12]");
    assertThat(new ObjectMapper().readTree(lines[1]).get("added").asBoolean()).isTrue();

    // The added records are in the index for the next process too; the latest of the two is the
    // twin.
    StringWriter out3 = new StringWriter();
    execute(
        config, post(14, "13900001111", "2025-01-01 08:00:00") + "\n", out3, new StringWriter());
    JsonNode older = new ObjectMapper().readTree(out3.toString().strip());
    assertThat(older.get("kept_id").asLong()).isEqualTo(13);
    // 14 is older than 13: the existing record is the one to keep, and 14 supersedes nothing.
    assertThat(older.get("keep").asText()).isEqualTo("existing");
    assertThat(older.get("supersedes").toString()).isEqualTo("[]");
  }

  /** A config whose index exists and is empty. */
  private Path emptyIndexConfig() throws Exception {
    Path config = dir.resolve("empty.properties");
    Files.writeString(config, "index.dir=" + dir.resolve("empty-index") + "\n");
    DedupConfig dedupConfig = DedupConfig.load(config, java.util.Map.of());
    try (FingerprintIndex index =
        FingerprintIndex.open(dedupConfig.indexDir(), dedupConfig.fieldsDigest(), false)) {
      index.commit();
    }
    return config;
  }

  private static List<JsonNode> verdicts(StringWriter out) throws Exception {
    List<JsonNode> verdicts = new ArrayList<>();
    for (String line : out.toString().split("\n")) {
      verdicts.add(new ObjectMapper().readTree(line));
    }
    return verdicts;
  }

  @Test
  void check_idNotAnInteger_isAnErrorVerdict() throws Exception {
    Path config = emptyIndexConfig();
    String input =
        "{\"id\":5.7,\"title\":\"a\"}\n{\"id\":1e3,\"title\":\"a\"}\n{\"id\":\"abc\",\"title\":\"a\"}\n"
            + "{\"id\":true,\"title\":\"a\"}\n{\"id\":5.0,\"title\":\"a\"}\n{\"id\":99999999999999999999,\"title\":\"a\"}\n"
            + "{\"id\":7,\"title\":\"a\"}\n";
    StringWriter out = new StringWriter();

    int code = execute(config, input, out, new StringWriter());

    List<JsonNode> verdicts = verdicts(out);
    assertThat(code).isEqualTo(3);
    assertThat(verdicts).hasSize(7);
    for (JsonNode verdict : verdicts.subList(0, 6)) {
      assertThat(verdict.get("verdict").asText()).as(verdict.toString()).isEqualTo("error");
      assertThat(verdict.get("error").asText())
          .as(verdict.toString())
          .contains("id", "integer")
          .doesNotContain("\n");
    }
    assertThat(verdicts.get(0).get("error").asText()).contains("5.7");
    assertThat(verdicts.get(6).get("verdict").asText()).isEqualTo("new");
    assertThat(verdicts.get(6).get("id").asLong()).isEqualTo(7);
  }

  @Test
  void check_lineOverTheLimit_isAnErrorAndTheNextLineIsChecked() throws Exception {
    Path config = emptyIndexConfig();
    String input =
        post(1, "13800138000", "2025-01-01 08:00:00")
            + "\n"
            + "{\"id\":2,\"title\":\""
            + "长".repeat(400)
            + "\"}\n" // 1,200 bytes of UTF-8
            + post(3, "13900001111", "2025-01-02 08:00:00")
            + "\r\n"
            + "{\"id\":4,\"content\":\""
            + "x".repeat(5000)
            + "\"\n" // the limit also ends a line with no closing brace
            + post(5, "13700001111", "2025-01-03 08:00:00");
    StringWriter out = new StringWriter();

    int code = execute(config, input, out, new StringWriter(), "--max-line-bytes", "1000");

    List<JsonNode> verdicts = verdicts(out);
    assertThat(code).isEqualTo(3);
    assertThat(verdicts)
        .extracting(v -> v.get("verdict").asText())
        .containsExactly("new", "error", "new", "error", "new");
    assertThat(verdicts.get(1).get("line").asLong()).isEqualTo(2);
    assertThat(verdicts.get(1).get("error").asText())
        .contains("line 2", "longer than 1000 bytes", "--max-line-bytes");
    assertThat(verdicts.get(3).get("line").asLong()).isEqualTo(4);
    assertThat(verdicts)
        .extracting(v -> v.path("id").isIntegralNumber() ? v.get("id").asLong() : null)
        .containsExactly(1L, null, 3L, null, 5L);
  }

  @Test
  void check_lineNotValidUtf8_isAnsweredWithAnErrorNamingItAndTheNextLinesAreChecked()
      throws Exception {
    Path config = dir.resolve("c.properties");
    Files.writeString(config, "index.dir=" + dir.resolve("index") + "\n");
    DedupConfig dedupConfig = DedupConfig.load(config, java.util.Map.of());
    try (FingerprintIndex index =
        FingerprintIndex.open(dedupConfig.indexDir(), dedupConfig.fieldsDigest(), false)) {
      index.commit();
    }
    java.io.ByteArrayOutputStream input = new java.io.ByteArrayOutputStream();
    input.writeBytes(
        (post(11, "13800138000", "2025-01-01 08:00:00") + "\n").getBytes(StandardCharsets.UTF_8));
    // A GBK-encoded title: not UTF-8. Decoded leniently it would be checked as another post.
    byte[] gbk =
        post(12, "13900001111", "2025-01-02 08:00:00")
            .replace("供应山东烟台红富士苹果", "@@")
            .getBytes(StandardCharsets.UTF_8);
    String withGbk = new String(gbk, StandardCharsets.UTF_8);
    int at = withGbk.indexOf("@@");
    input.writeBytes(withGbk.substring(0, at).getBytes(StandardCharsets.UTF_8));
    input.writeBytes("供应苹果".getBytes(java.nio.charset.Charset.forName("GBK")));
    input.writeBytes((withGbk.substring(at + 2) + "\n").getBytes(StandardCharsets.UTF_8));
    input.writeBytes(
        (post(13, "13700001111", "2025-01-03 08:00:00") + "\n").getBytes(StandardCharsets.UTF_8));
    StringWriter out = new StringWriter();

    int code = execute(config, input.toByteArray(), out, new StringWriter());

    List<JsonNode> verdicts = new ArrayList<>();
    for (String line : out.toString().split("\n")) {
      verdicts.add(new ObjectMapper().readTree(line));
    }
    assertThat(code).isEqualTo(3);
    assertThat(verdicts).hasSize(3);
    assertThat(verdicts.get(0).get("verdict").asText()).isEqualTo("new");
    assertThat(verdicts.get(1).get("verdict").asText()).isEqualTo("error");
    assertThat(verdicts.get(1).get("line").asLong()).isEqualTo(2);
    assertThat(verdicts.get(1).get("error").asText()).isEqualTo("line 2: not valid UTF-8");
    assertThat(verdicts.get(2).get("verdict").asText()).isEqualTo("new");
    assertThat(verdicts.get(2).get("id").asLong()).isEqualTo(13);
  }
}
