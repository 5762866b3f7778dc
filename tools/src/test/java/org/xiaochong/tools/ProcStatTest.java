package org.xiaochong.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcStatTest {
  @Test
  void cpuSeconds_ownAndChildren_counted_fromTheFieldsAfterACommandWithSpacesAndParentheses(
      @TempDir Path dir) throws Exception {
    Path stat = dir.resolve("stat");
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
    // cutime cstime …
    Files.writeString(
        stat, "4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 10 0 0 0 150 50 30 20 20 0\n");

    assertThat(ProcStat.cpuSeconds(stat)).isCloseTo(2.00, within(1e-9));
    assertThat(ProcStat.childrenCpuSeconds(stat)).isCloseTo(0.50, within(1e-9));
  }

  @Test
  void cpuSeconds_aProcessGone_isNaN(@TempDir Path dir) {
    assertThat(ProcStat.cpuSeconds(dir.resolve("no-such-stat"))).isNaN();
    assertThat(ProcStat.childrenCpuSeconds(dir.resolve("no-such-stat"))).isNaN();
  }
}
