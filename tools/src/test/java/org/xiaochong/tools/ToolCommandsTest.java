package org.xiaochong.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.xiaochong.cli.DedupCommand;

/** The tools' commands on the dedup command line, as bin/dedup runs it. */
class ToolCommandsTest {
  @TempDir Path dir;

  record Run(int exitCode, String out, String err) {}

  static Run dedup(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = DedupCommand.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void help_topLevel_listsTheToolsAfterTheProductCommands() {
    Run run = dedup("--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).containsPattern("(?s)\\brun\\b.*\\bdemo\\b.*\\bgenerate\\b.*\\beval\\b.*\\bbench\\b"
        + ".*\\bzone-bench\\b.*\\bhelp\\b");
  }

  @Test
  void help_demo_listsExitCodes() {
    Run run = dedup("demo", "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out().replaceAll("\\s+", " "))
        .contains("Exit codes: 0 success, 1 unexpected error").contains("2 usage or configuration error");
  }

  @ParameterizedTest
  @ValueSource(strings = {"generate", "eval", "bench", "zone-bench"})
  void help_eachTool_exitsZero(String command) {
    assertThat(dedup(command, "--help").exitCode()).isZero();
  }

  @Test
  void zoneBench_withoutSharedData_skipsCleanly() {
    StringWriter out = new StringWriter();
    int code = DedupCommand.commandLine(new PrintWriter(out, true), new PrintWriter(new StringWriter(), true))
        .execute("zone-bench", "--shared-data", dir.resolve("absent").toString(), "--dir", dir.resolve("scratch").toString());
    assertThat(code).isZero();
    assertThat(out.toString()).startsWith("zone-bench: skipped, no snapshot ").hasLineCount(1);
  }
}
