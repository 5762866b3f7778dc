package org.xiaochong.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class VersionProviderTest {
  @Test
  void version_printsTheBuildsVersionAndTheJavaRuntime() {
    StringWriter out = new StringWriter();
    int code =
        DedupCommand.commandLine(
                new PrintWriter(out, true), new PrintWriter(new StringWriter(), true))
            .execute("--version");
    String expected = System.getProperty("xiaochong.version");
    assertThat(expected).as("the build passes its version to the tests").isNotBlank();
    assertThat(code).isZero();
    assertThat(out.toString())
        .startsWith("xiaochong " + expected + System.lineSeparator())
        .contains("Java " + System.getProperty("java.version"));
  }
}
