package org.xiaochong.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.cli.DedupCommand;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.load.TableLoader;
import picocli.CommandLine;

class GenerateCommandTest {
  private static final List<String> COLUMNS =
      List.of(
          "id",
          "title",
          "category",
          "product",
          "region",
          "price",
          "contact",
          "phone",
          "content",
          "reg_time");

  @TempDir Path dir;

  private static byte[] generate(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    StringWriter err = new StringWriter();
    int code = new CommandLine(new GenerateCommand(out)).setErr(new PrintWriter(err)).execute(args);
    assertThat(code).as("exit code, stderr: %s", err).isZero();
    return out.toByteArray();
  }

  @Test
  void call_records_linesParseWithTheSampleColumnsAndIdsOneToN() throws Exception {
    String text = new String(generate("--records", "1234", "--seed", "7"), StandardCharsets.UTF_8);
    assertThat(text).endsWith("\n");
    String[] lines = text.split("\n");
    assertThat(lines).hasSize(1234);
    ObjectMapper json = new ObjectMapper();
    int withTime = 0;
    for (int i = 0; i < lines.length; i++) {
      JsonNode node = json.readTree(lines[i]);
      List<String> keys = new ArrayList<>();
      node.fieldNames().forEachRemaining(keys::add);
      assertThat(keys).isEqualTo(COLUMNS);
      assertThat(node.get("id").isIntegralNumber()).isTrue();
      assertThat(node.get("id").asLong()).isEqualTo(i + 1);
      assertThat(node.get("title").asText()).isNotBlank();
      JsonNode time = node.get("reg_time");
      if (!time.isNull()) {
        assertThat(time.asText()).matches("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}");
        assertThat(TableLoader.parseTime(time.asText())).isNotNull(); // what `load` accepts
        withTime++;
      }
    }
    assertThat(withTime).isGreaterThan(1200);
  }

  @Test
  void call_sameSeed_sameBytes_otherSeed_otherBytes() {
    byte[] a = generate("--records", "3000", "--seed", "42");
    assertThat(generate("--records", "3000", "--seed", "42")).isEqualTo(a);
    assertThat(generate("--records", "3000", "--seed", "43")).isNotEqualTo(a);
    assertThat(generate("--records", "3000", "--seed", "42", "--exact-share", "0.9"))
        .isNotEqualTo(a);
  }

  @Test
  void call_vocabularyRealistic_otherPostsOfTheBoundedVocabulary_legacyIsTheDefault() {
    byte[] legacy = generate("--records", "2000", "--seed", "42");
    assertThat(generate("--records", "2000", "--seed", "42", "--vocabulary", "legacy"))
        .isEqualTo(legacy);
    byte[] realistic = generate("--records", "2000", "--seed", "42", "--vocabulary", "realistic");
    assertThat(realistic).isNotEqualTo(legacy);
    assertThat(generate("--records", "2000", "--seed", "42", "--vocabulary", "realistic"))
        .isEqualTo(realistic);
    String[] lines = new String(realistic, StandardCharsets.UTF_8).split("\n");
    assertThat(lines).hasSize(2000);
  }

  @Test
  void call_unknownVocabulary_usageErrorNamingTheChoices() {
    StringWriter err = new StringWriter();
    int code =
        DedupCommand.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(err))
            .execute("generate", "--records", "10", "--vocabulary", "real");
    assertThat(code).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("--vocabulary must be legacy or realistic, not 'real'");
  }

  @Test
  void call_out_writesTheSameBytesToTheFile() throws Exception {
    Path file = dir.resolve("posts.jsonl");
    assertThat(generate("--records", "500", "--out", file.toString())).isEmpty();
    assertThat(Files.readAllBytes(file)).isEqualTo(generate("--records", "500"));
  }

  @Test
  void call_badExactShare_usageError() {
    StringWriter err = new StringWriter();
    int code =
        DedupCommand.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(err))
            .execute("generate", "--records", "10", "--exact-share", "1.5");
    assertThat(code).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("--exact-share");
  }
}
