package org.xiaochong.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.xiaochong.cli.DedupCommand;
import org.xiaochong.command.ExitCodes;
import picocli.CommandLine;
import picocli.CommandLine.Model.UsageMessageSpec;

/** The tools' commands on the dedup command line, as bin/dedup runs it. */
class ToolCommandsTest {
  @TempDir Path dir;

  record Run(int exitCode, String out, String err) {}

  static Run dedup(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        DedupCommand.commandLine(new PrintWriter(out, true), new PrintWriter(err, true))
            .execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void help_topLevel_listsTheToolsAfterTheProductCommands() {
    Run run = dedup("--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .containsPattern(
            "(?s)\\brun\\b.*\\bdemo\\b.*\\bgenerate\\b.*\\beval\\b.*\\bbench\\b"
                + ".*\\bzone-bench\\b.*\\bhelp\\b");
  }

  @Test
  void help_demo_listsExitCodes() {
    Run run = dedup("demo", "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out().replaceAll("\\s+", " "))
        .contains("Exit codes: 0 success 1 unexpected error")
        .contains("2 usage or configuration error");
  }

  @ParameterizedTest
  @ValueSource(strings = {"generate", "eval", "bench", "zone-bench"})
  void help_eachTool_exitsZero(String command) {
    assertThat(dedup(command, "--help").exitCode()).isZero();
  }

  /**
   * Every command of bin/dedup, its subcommands too, ends its --help with one of the lists of
   * {@link ExitCodes}, and none with a list of its own: the codes and their meanings are written
   * once.
   */
  @Test
  void help_everyCommand_listsTheSharedExitCodes() {
    List<Map<String, String>> shared =
        Stream.of(new ExitCodes.Help(), new ExitCodes.SkipsInput(), new ExitCodes.MovesRows())
            .map(list -> new CommandLine(list).getCommandSpec().usageMessage().exitCodeList())
            .toList();
    CommandLine cli =
        DedupCommand.commandLine(
            new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
    List<CommandLine> commands = new ArrayList<>(List.of(cli));
    for (int i = 0; i < commands.size(); i++) {
      commands.get(i).getSubcommands().values().stream()
          .filter(c -> !c.getCommandName().equals("help"))
          .forEach(commands::add);
    }

    assertThat(commands).hasSizeGreaterThan(15);
    for (CommandLine command : commands) {
      UsageMessageSpec usage = command.getCommandSpec().usageMessage();
      assertThat(shared)
          .as(command.getCommandSpec().qualifiedName())
          .contains(usage.exitCodeList());
      assertThat(usage.footer()).as(command.getCommandSpec().qualifiedName()).isEmpty();
    }
  }

  @Test
  void zoneBench_withoutSharedData_skipsCleanly() {
    StringWriter out = new StringWriter();
    int code =
        DedupCommand.commandLine(
                new PrintWriter(out, true), new PrintWriter(new StringWriter(), true))
            .execute(
                "zone-bench",
                "--shared-data",
                dir.resolve("absent").toString(),
                "--dir",
                dir.resolve("scratch").toString());
    assertThat(code).isZero();
    assertThat(out.toString()).startsWith("zone-bench: skipped, no snapshot ").hasLineCount(1);
  }
}
