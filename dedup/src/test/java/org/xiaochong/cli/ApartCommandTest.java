package org.xiaochong.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.xiaochong.command.ExitCodes;

/** The argument checks of {@code dedup apart}, which fail before any database is opened. */
class ApartCommandTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int execute(String... args) {
    return DedupCommand.commandLine(new PrintWriter(out, true), new PrintWriter(err, true))
        .execute(args);
  }

  @Test
  void apart_withoutSubcommand_usageAndExitCode2() {
    assertThat(execute("apart")).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("list").contains("add").contains("remove");
  }

  @Test
  void add_oneIdOrNotANumber_exitCode2NamingTheArgument() {
    assertThat(execute("apart", "add", "12")).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("ID2");

    assertThat(execute("apart", "remove", "12", "x")).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("'x'");
  }

  @Test
  void list_negativeLimit_exitCode2() {
    assertThat(execute("apart", "list", "--limit", "-1")).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("--limit must be at least 0, not -1");
  }
}
