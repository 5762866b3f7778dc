package org.xiaochong.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's CPU seconds from Linux's {@code /proc/<pid>/stat}: its own (user + system) and those
 * of its children it waited for. Linux counts them in ticks of 1/100 s (USER_HZ) on every
 * architecture we run on.
 */
final class ProcStat {
  /** Seconds per tick of the CPU counters in {@code /proc}. */
  static final double SECONDS_PER_TICK = 0.01;

  private ProcStat() {}

  /** The process's own CPU seconds (utime + stime, fields 14 and 15); NaN when not readable. */
  static double cpuSeconds(Path stat) {
    return ticks(stat, 14);
  }

  /**
   * The CPU seconds of the process's waited-for children (cutime + cstime, fields 16 and 17); NaN
   * when not readable.
   */
  static double childrenCpuSeconds(Path stat) {
    return ticks(stat, 16);
  }

  /** Fields {@code first} and {@code first + 1} (1-based, the pid first) summed, in seconds. */
  private static double ticks(Path stat, int first) {
    try {
      String line = Files.readString(stat);
      // The command, in parentheses, may hold spaces: count the fields from the state (field 3).
      String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(fields[first - 3]) + Long.parseLong(fields[first - 2]))
          * SECONDS_PER_TICK;
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }
}
