package org.xiaochong.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.xiaochong.run.StageClock;
import org.xiaochong.source.Database;

/**
 * Where a run's seconds go: per stage, its wall time, the CPU of this JVM, of the database server
 * (when it runs on this machine) and of every other process, the time the cores waited for the
 * disk, and this JVM's garbage collection. Sampled every {@value #SAMPLE_MILLIS} ms (Linux's {@code
 * /proc}: the machine's {@code stat}, the server's {@code <pid>/stat}) and interpolated at the
 * stages' ends, which the run reports ({@link StageClock.Listener}).
 *
 * <p>"Cores busy" is all the machine's CPU in the stage over its wall time: on {@code n} cores a
 * stage at {@code n} is bound by the CPU, one well under it waits (for the server's answers, the
 * disk, or one thread). Elsewhere than Linux only the wall time, the JVM's CPU and its GC are
 * known.
 */
final class StageProfile implements StageClock.Listener, AutoCloseable {
  static final int SAMPLE_MILLIS = 50;

  /** The CPU counters of /proc count ticks of this many nanoseconds. */
  private static final long NANOS_PER_TICK = Math.round(ProcStat.SECONDS_PER_TICK * 1e9);

  /** One stage: seconds of wall time, CPU and waiting; a figure not known is NaN. */
  record Stage(
      String name,
      double wall,
      double jvmCpu,
      double serverCpu,
      double otherCpu,
      double diskWait,
      double gc) {
    double coresBusy() {
      return (jvmCpu + known(serverCpu) + known(otherCpu)) / wall;
    }

    private static double known(double seconds) {
      return Double.isNaN(seconds) ? 0 : seconds;
    }
  }

  private record Sample(
      long nanos, long jvmCpu, long serverCpu, long machineBusy, long machineIowait, long gc) {}

  private record Span(String stage, long start, long end) {}

  private final com.sun.management.OperatingSystemMXBean os =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private final List<GarbageCollectorMXBean> collectors =
      ManagementFactory.getGarbageCollectorMXBeans();
  private final Path serverStat;
  private final boolean machineKnown = Files.isReadable(Path.of("/proc/stat"));
  private final List<Sample> samples = new ArrayList<>();
  private final List<Span> spans = new ArrayList<>();
  private final ScheduledExecutorService sampler =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread thread = new Thread(r, "stage-profile");
            thread.setDaemon(true);
            return thread;
          });

  /** Starts sampling, the server's CPU from {@code serverStat} (null: not sampled). */
  StageProfile(Path serverStat) {
    this.serverStat = serverStat;
    sample();
    sampler.scheduleAtFixedRate(this::sample, SAMPLE_MILLIS, SAMPLE_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** Starts sampling; the server's CPU is sampled when {@code database} runs on this machine. */
  static StageProfile start(Database database) {
    return new StageProfile(serverStat(database));
  }

  @Override
  public synchronized void ended(String stage, long startNanos, long endNanos) {
    spans.add(new Span(stage, startNanos, endNanos));
  }

  /** Stops sampling (the stages ended so far can still be read). */
  @Override
  public void close() {
    sampler.shutdownNow();
    try {
      sampler.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sample();
  }

  /** The stages that ended, in order, the run's "total" last. */
  synchronized List<Stage> stages() {
    List<Stage> stages = new ArrayList<>();
    for (Span span : spans) {
      Sample from = at(span.start);
      Sample to = at(span.end);
      double wall = (span.end - span.start) / 1e9;
      double jvm = (to.jvmCpu - from.jvmCpu) / 1e9;
      double server = serverStat == null ? Double.NaN : (to.serverCpu - from.serverCpu) / 1e9;
      double other =
          machineKnown
              ? Math.max(
                  0,
                  (to.machineBusy - from.machineBusy) / 1e9
                      - jvm
                      - (Double.isNaN(server) ? 0 : server))
              : Double.NaN;
      double wait = machineKnown ? (to.machineIowait - from.machineIowait) / 1e9 : Double.NaN;
      stages.add(new Stage(span.stage, wall, jvm, server, other, wait, (to.gc - from.gc) / 1e3));
    }
    return stages;
  }

  /** Prints the stages as a table, for {@code cores} cores. */
  void print(PrintWriter out, int cores) {
    out.printf(
        "  where the seconds go (CPU seconds per stage, %d cores; busy = all processes' CPU / wall):%n",
        cores);
    out.printf(
        "    %-11s %7s %8s %8s %8s %8s %6s %6s%n",
        "stage", "wall", "JVM", "server", "other", "io wait", "GC", "busy");
    for (Stage s : stages()) {
      out.printf(
          "    %-11s %7.2f %8.2f %8s %8s %8s %6.2f %6.2f%n",
          s.name(),
          s.wall(),
          s.jvmCpu(),
          figure(s.serverCpu()),
          figure(s.otherCpu()),
          figure(s.diskWait()),
          s.gc(),
          s.coresBusy());
    }
    if (serverStat == null) {
      out.println(
          "    (the server's CPU is counted in \"other\" when it runs here: its pid file was not readable)");
    }
  }

  /** The stages for bench.json. */
  List<Map<String, Object>> toJson() {
    List<Map<String, Object>> json = new ArrayList<>();
    for (Stage s : stages()) {
      Map<String, Object> stage = new LinkedHashMap<>();
      stage.put("stage", s.name());
      stage.put("wall", s.wall());
      stage.put("jvm_cpu", s.jvmCpu());
      stage.put("server_cpu", Double.isNaN(s.serverCpu()) ? null : s.serverCpu());
      stage.put("other_cpu", Double.isNaN(s.otherCpu()) ? null : s.otherCpu());
      stage.put("io_wait", Double.isNaN(s.diskWait()) ? null : s.diskWait());
      stage.put("gc", s.gc());
      json.add(stage);
    }
    return json;
  }

  private static String figure(double seconds) {
    return Double.isNaN(seconds) ? "n/a" : String.format("%.2f", seconds);
  }

  private synchronized void sample() {
    long gc = 0;
    for (GarbageCollectorMXBean collector : collectors) {
      gc += Math.max(0, collector.getCollectionTime());
    }
    long[] machine = machineTicks();
    samples.add(
        new Sample(
            System.nanoTime(),
            os.getProcessCpuTime(),
            serverStat == null ? 0 : serverCpuNanos(),
            machine[0] * NANOS_PER_TICK,
            machine[1] * NANOS_PER_TICK,
            gc));
  }

  /** The counters at {@code nanos}, interpolated between the samples around it. */
  private Sample at(long nanos) {
    Sample before = samples.get(0);
    for (Sample after : samples) {
      if (after.nanos >= nanos) {
        if (after.nanos == before.nanos) {
          return after;
        }
        double f = (double) (nanos - before.nanos) / (after.nanos - before.nanos);
        return new Sample(
            nanos,
            between(before.jvmCpu, after.jvmCpu, f),
            between(before.serverCpu, after.serverCpu, f),
            between(before.machineBusy, after.machineBusy, f),
            between(before.machineIowait, after.machineIowait, f),
            between(before.gc, after.gc, f));
      }
      before = after;
    }
    return before;
  }

  private static long between(long a, long b, double f) {
    return a + Math.round((b - a) * f);
  }

  /** All cores' busy and I/O-wait ticks (the first line of /proc/stat), or zeros. */
  private long[] machineTicks() {
    if (!machineKnown) {
      return new long[2];
    }
    try {
      String line = Files.readAllLines(Path.of("/proc/stat")).get(0);
      String[] f = line.trim().split("\\s+"); // cpu user nice system idle iowait irq softirq …
      long busy =
          Long.parseLong(f[1])
              + Long.parseLong(f[2])
              + Long.parseLong(f[3])
              + Long.parseLong(f[6])
              + Long.parseLong(f[7]);
      return new long[] {busy, Long.parseLong(f[5])};
    } catch (IOException | RuntimeException e) {
      return new long[2];
    }
  }

  /** The server's CPU so far, 0 when its process is gone. */
  private long serverCpuNanos() {
    double seconds = ProcStat.cpuSeconds(serverStat);
    return Double.isNaN(seconds) ? 0 : Math.round(seconds * 1e9);
  }

  /**
   * The server's /proc/PID/stat when it runs on this machine: its pid file is readable here and
   * names a running mysqld or mariadbd. Null otherwise.
   */
  private static Path serverStat(Database database) {
    try (Connection c = database.openConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT @@pid_file, @@datadir")) {
      if (!r.next() || r.getString(1) == null) {
        return null;
      }
      Path pidFile = Path.of(r.getString(1));
      if (!pidFile.isAbsolute() && r.getString(2) != null) {
        pidFile = Path.of(r.getString(2)).resolve(pidFile);
      }
      if (!Files.isReadable(pidFile)) {
        return null;
      }
      String pid = Files.readString(pidFile).trim();
      Path proc = Path.of("/proc", pid);
      String command = Files.readString(proc.resolve("comm")).trim();
      return command.contains("mysqld") || command.contains("mariadbd")
          ? proc.resolve("stat")
          : null;
    } catch (SQLException | IOException | RuntimeException e) {
      return null;
    }
  }
}
