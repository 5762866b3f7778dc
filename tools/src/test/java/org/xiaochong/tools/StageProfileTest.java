package org.xiaochong.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class StageProfileTest {
  /** This JVM stands in for the server: its own /proc stat is the "server" sampled. */
  private static final Path SELF = Path.of("/proc/self/stat");

  @Test
  void stages_aStageThatBurnsCpu_showsItInTheJvmAndTheServerSampled() throws Exception {
    assumeTrue(Files.isReadable(SELF), "Linux /proc");
    StageProfile profile = new StageProfile(SELF);
    long start = System.nanoTime();
    burnCpu(300);
    long burnt = System.nanoTime();
    Thread.sleep(300);
    long slept = System.nanoTime();
    profile.ended("burn", start, burnt);
    profile.ended("sleep", burnt, slept);
    profile.close();

    List<StageProfile.Stage> stages = profile.stages();

    assertThat(stages).extracting(StageProfile.Stage::name).containsExactly("burn", "sleep");
    StageProfile.Stage burn = stages.get(0);
    StageProfile.Stage sleep = stages.get(1);
    // 0.3 s of this thread's CPU, less what one sample interval at each end can misplace.
    assertThat(burn.wall()).isGreaterThanOrEqualTo(0.3);
    assertThat(burn.jvmCpu()).isGreaterThan(0.2);
    assertThat(burn.serverCpu()).isGreaterThan(0.2);
    assertThat(burn.otherCpu()).isGreaterThanOrEqualTo(0.0);
    assertThat(burn.coresBusy()).isGreaterThan(0.5);
    assertThat(sleep.wall()).isGreaterThanOrEqualTo(0.3);
    assertThat(sleep.jvmCpu()).isLessThan(burn.jvmCpu());
  }

  @Test
  void print_aRowPerStage_andNaForTheServerNotSampled() {
    StageProfile profile = new StageProfile(null);
    long start = System.nanoTime();
    profile.ended("index", start, start + 1_000_000);
    profile.close();
    StringWriter text = new StringWriter();

    profile.print(new PrintWriter(text, true), 2);

    assertThat(text.toString())
        .contains("where the seconds go (CPU seconds per stage, 2 cores")
        .containsPattern("index +0\\.00 +\\d+\\.\\d\\d +n/a ")
        .contains("its pid file was not readable");
    assertThat(profile.toJson())
        .singleElement()
        .satisfies(s -> assertThat(s).containsEntry("server_cpu", null));
  }

  private static void burnCpu(long millis) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long until = threads.getCurrentThreadCpuTime() + millis * 1_000_000;
    long x = 1;
    while (threads.getCurrentThreadCpuTime() < until) {
      for (int i = 0; i < 100_000; i++) {
        x = x * 6364136223846793005L + 1442695040888963407L;
      }
    }
    assertThat(x).isNotZero();
  }
}
