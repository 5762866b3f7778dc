package org.xiaochong.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RunCommandTest {
  @Test
  void oneLine_lineBreaksTabsAndControls_escapedOnOneLine() {
    assertThat(RunCommand.oneLine("  求购生猪14499吨\n", 40)).isEqualTo("  求购生猪14499吨\\n");
    assertThat(RunCommand.oneLine("a\r\nb\tc\u0000d\u0085", 40))
        .isEqualTo("a\\r\\nb\\tc\\u0000d\\u0085");
  }

  @Test
  void oneLine_longText_cutAtCodePointsNotInsideAPair() {
    String apples = "🍎".repeat(50); // two chars each
    assertThat(RunCommand.oneLine(apples, 40)).isEqualTo("🍎".repeat(40) + "…");
    assertThat(RunCommand.oneLine("供应红富士苹果", 40)).isEqualTo("供应红富士苹果");
    assertThat(RunCommand.oneLine("x".repeat(40), 40)).isEqualTo("x".repeat(40));
    assertThat(RunCommand.oneLine("", 40)).isEmpty();
  }
}
