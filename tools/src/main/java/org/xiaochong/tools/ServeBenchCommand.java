package org.xiaochong.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.xiaochong.check.Deduplicator;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.serve.DedupService;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code dedup bench serve}: the service under load against the CLI. Generates {@code --records} +
 * {@code --checks} posts into the embedded database, takes the last {@code --checks} rows out of
 * the table as the records to check (JSON lines, their ids and times kept), builds the indexes with
 * {@code run --method exact,near} on the rest, then times:
 *
 * <ol>
 *   <li>{@code dedup check} as a whole process (JVM start included) on the records, as a user runs
 *       it;
 *   <li>the service (in this JVM, loopback HTTP), {@code --clients} clients sending arrays of
 *       {@code --batch} records: records per second;
 *   <li>the same clients sending one record per request: latency percentiles, once cold and once
 *       warm (the JIT has compiled the request path, as in a service that has run for minutes);
 *   <li>with {@code --beside}, the same again while another dedup process (a rebuild, a run)
 *       commits to the index beside the service and the service reopens on its commits, over and
 *       over until that process has run {@code --beside-times} times: latency percentiles and
 *       reopens.
 * </ol>
 *
 * Both service passes must give every record the CLI's verdict (all fields), or the command fails.
 * Figures go to {@code bench-serve.json} in the data folder.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Load test of `dedup serve` (concurrent clients, arrays and single records) against `dedup check`",
      "on the same records and index; checks that both give the same verdicts (exit 1 when they differ)."
    })
final class ServeBenchCommand implements Callable<Integer> {
  @Mixin ExitCodes.Help exitCodes;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** This process's /proc stat: the CPU of the `check` CLI it runs and waits for. */
  private static final Path SELF = Path.of("/proc/self/stat");

  @Option(
      names = "--records",
      defaultValue = "200000",
      description = "Rows of the index (default ${DEFAULT-VALUE}).")
  long records;

  @Option(
      names = "--checks",
      defaultValue = "20000",
      description = "Records to check (default ${DEFAULT-VALUE}).")
  int checks;

  @Option(
      names = "--clients",
      defaultValue = "4",
      description = "Concurrent clients (default ${DEFAULT-VALUE}).")
  int clients;

  @Option(
      names = "--batch",
      defaultValue = "100",
      description = "Records per array request (default ${DEFAULT-VALUE}).")
  int batch;

  @Option(
      names = "--adds",
      defaultValue = "2000",
      description = {
        "Records added last, one per request from the clients, to time durable adds (default ${DEFAULT-VALUE};",
        "0: none): the first half cold, the second warm. They join the index: a later --reuse run checks",
        "against them too."
      })
  int adds;

  @Option(
      names = "--beside",
      description = {
        "A dedup command run beside the service (its --config added), e.g. \"index --rebuild\" or",
        "\"run --method exact,near --rebuild-index\": one-record checks are timed while it commits and",
        "the service reopens. It must leave the verdicts as they were: use it with --adds 0 (a rebuild",
        "drops the records added through the service)."
      })
  String beside;

  @Option(
      names = "--beside-times",
      defaultValue = "2",
      description = "How many times --beside runs, one after the other (default ${DEFAULT-VALUE}).")
  int besideTimes;

  @Option(
      names = "--nightly",
      description = {
        "Issue 34's nightly target instead of the timings: on copies of the data folder, `dedup serve`",
        "takes the held-out posts as adds at --add-rate while `run --apply` runs beside it; checks the",
        "run's exit, the refusals, the adds in the index after and the decisions against the same run",
        "with no service, and a --sample of the table's rows checked against the next run (exit 1 on",
        "any failure)."
      })
  boolean nightly;

  @Option(
      names = "--add-rate",
      defaultValue = "50",
      description = "Adds per second of --nightly (default ${DEFAULT-VALUE}).")
  double addRate;

  @Option(
      names = "--sample",
      defaultValue = "1000",
      description =
          "Rows of the table --nightly checks against the next run (default ${DEFAULT-VALUE}).")
  int sample;

  @Option(
      names = "--run-method",
      defaultValue = "exact,near",
      description = "The --method of --nightly's runs (default ${DEFAULT-VALUE}).")
  String runMethod;

  @Option(
      names = "--before",
      defaultValue = "20",
      description = "Seconds of --nightly's adds before the run starts (default ${DEFAULT-VALUE}).")
  int secondsBefore;

  @Option(
      names = "--after",
      defaultValue = "15",
      description = "Seconds of --nightly's adds after the run ended (default ${DEFAULT-VALUE}).")
  int secondsAfter;

  @Option(
      names = "--seed",
      defaultValue = "20081118",
      description = "Random seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--data-dir",
      defaultValue = "data/bench-serve",
      description = "Scratch folder (default ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(
      names = "--reuse",
      description = "Keep the table, index and records of an earlier bench serve in --data-dir.")
  boolean reuse;

  @Option(
      names = "--dedup",
      defaultValue = "bin/dedup",
      description = "The launcher the CLI is timed with (default ${DEFAULT-VALUE}).")
  Path launcher;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (records < 1 || checks < 1 || clients < 1 || batch < 1) {
      throw new IllegalArgumentException(
          "--records, --checks, --clients and --batch must be at least 1");
    }
    PrintWriter out = spec.commandLine().getOut();
    DedupConfig config = DedupConfig.forDataDir(dataDir);
    Path checkFile = dataDir.resolve("checks.jsonl");
    Path configFile = dataDir.resolve("bench-serve.properties");
    if (!reuse || !Files.exists(checkFile)) {
      ServeBenchSetup.prepare(out, config, checkFile, records, checks, seed);
    }
    Files.writeString(configFile, "data.dir=" + dataDir.toAbsolutePath() + "\n");
    if (nightly) {
      ServeNightly.Settings settings =
          new ServeNightly.Settings(
              launcher, runMethod, addRate, sample, secondsBefore, secondsAfter);
      return new ServeNightly(out, settings).run(dataDir) == 0 ? ExitCodes.OK : 1;
    }
    List<String> lines = Files.readAllLines(checkFile, StandardCharsets.UTF_8);
    List<ObjectNode> input = new ArrayList<>(lines.size());
    for (String line : lines) {
      input.add((ObjectNode) JSON.readTree(line));
    }

    // 1. The CLI as a whole process.
    Path cliOut = dataDir.resolve("check-verdicts.jsonl");
    double childCpuBefore = ProcStat.childrenCpuSeconds(SELF);
    long t = System.nanoTime();
    Process cli =
        new ProcessBuilder(launcher.toString(), "check", "--config", configFile.toString())
            .redirectInput(checkFile.toFile())
            .redirectOutput(cliOut.toFile())
            .redirectError(dataDir.resolve("check.err").toFile())
            .start();
    int cliExit = cli.waitFor();
    double cliSeconds = (System.nanoTime() - t) / 1e9;
    double cliCpu = ProcStat.childrenCpuSeconds(SELF) - childCpuBefore;
    if (cliExit != 0) {
      throw new IllegalStateException(
          "dedup check exited " + cliExit + ": see " + dataDir.resolve("check.err"));
    }
    List<JsonNode> expected = new ArrayList<>();
    for (String line : Files.readAllLines(cliOut, StandardCharsets.UTF_8)) {
      expected.add(JSON.readTree(line));
    }
    Map<String, Long> kinds = new LinkedHashMap<>();
    expected.forEach(
        v ->
            kinds.merge(
                v.get("verdict").asText() + "/keep " + v.get("keep").asText(), 1L, Long::sum));
    out.printf(
        "dedup check (whole process, JVM start included): %,d records in %.2f s = %,.0f records/s;"
            + " %.1f CPU s = %,.0f records per CPU s; %s%n",
        expected.size(),
        cliSeconds,
        expected.size() / cliSeconds,
        cliCpu,
        expected.size() / cliCpu,
        kinds);

    Map<String, Object> json = new LinkedHashMap<>();
    json.put("records", records);
    json.put("checks", input.size());
    json.put("clients", clients);
    json.put("cli_seconds", cliSeconds);
    json.put("cli_records_per_second", expected.size() / cliSeconds);
    json.put("cli_cpu_seconds", cliCpu);
    json.put(
        "load_average_before",
        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    json.put("verdicts", kinds);
    int mismatches = 0;
    java.util.concurrent.atomic.AtomicInteger reopens =
        new java.util.concurrent.atomic.AtomicInteger();
    try (Deduplicator dedup = Deduplicator.open(config, Deduplicator.Options.DEFAULT)) {
      DedupService service =
          new DedupService(
              dedup,
              config.table(),
              DedupService.Settings.defaults("127.0.0.1", 0, null)
                  .withAnonymousAdds(true)
                  .withSizes(16 << 20, 1 << 20, Math.max(1000, batch)),
              line -> {
                if (line.contains("reopened")) {
                  reopens.incrementAndGet();
                }
              });
      int port = service.start();
      try {
        ServeLoad load = new ServeLoad(clients);
        URI uri = URI.create("http://127.0.0.1:" + port + "/v1/check");
        // 2. Arrays, twice: the first pass warms the JIT, as the first minutes of a running service
        // do.
        for (String pass : List.of("cold", "warm")) {
          ServeLoad.Timing arrays = load.run(uri, input, batch);
          mismatches += arrays.mismatches(out, "arrays " + pass, expected);
          out.printf(
              "service, %d clients, arrays of %d (%s): %,d records in %.2f s = %,.0f records/s"
                  + " (%.2fx the CLI); %.1f CPU s (clients included) = %,.0f records per CPU s (%.2fx the CLI);"
                  + " per request p50 %.1f ms, p99 %.1f ms; load %.1f%n",
              clients,
              batch,
              pass,
              input.size(),
              arrays.seconds(),
              input.size() / arrays.seconds(),
              (input.size() / arrays.seconds()) / (expected.size() / cliSeconds),
              arrays.cpuSeconds(),
              input.size() / arrays.cpuSeconds(),
              (input.size() / arrays.cpuSeconds()) / (expected.size() / cliCpu),
              arrays.percentile(50),
              arrays.percentile(99),
              arrays.load());
          json.put("arrays_" + pass, arrays.toJson(input.size()));
        }
        // 3. One record per request, twice: cold, then warm (the figure of a running service).
        for (String pass : List.of("cold", "warm")) {
          ServeLoad.Timing single = load.run(uri, input, 1);
          mismatches += single.mismatches(out, "single " + pass, expected);
          out.printf(
              "service, %d clients, one record per request (%s): %,d records in %.2f s = %,.0f records/s,"
                  + " %.1f CPU s; latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.1f ms; load %.1f%n",
              clients,
              pass,
              input.size(),
              single.seconds(),
              input.size() / single.seconds(),
              single.cpuSeconds(),
              single.percentile(50),
              single.percentile(90),
              single.percentile(99),
              single.percentile(100),
              single.load());
          json.put(pass.equals("warm") ? "single" : "single_cold", single.toJson(input.size()));
        }
        if (beside != null) {
          int reopensBefore = reopens.get();
          BesideTiming during = besidePass(load, uri, input, configFile);
          for (int i = 0; i < during.verdicts().size(); i++) {
            mismatches += during.verdicts().get(i).mismatches(out, "beside", expected);
          }
          ServeLoad.Timing all = during.all();
          out.printf(
              "service, %d clients, one record per request while `%s` ran %d times beside it: %,d"
                  + " requests in %.2f s, %d reopens; latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms,"
                  + " max %.1f ms; load %.1f%n",
              clients,
              beside,
              besideTimes,
              all.latencyMillis().length,
              all.seconds(),
              reopens.get() - reopensBefore,
              all.percentile(50),
              all.percentile(90),
              all.percentile(99),
              all.percentile(100),
              all.load());
          Map<String, Object> besideJson = all.toJson(all.latencyMillis().length);
          besideJson.put("command", beside);
          besideJson.put("times", besideTimes);
          besideJson.put("reopens", reopens.get() - reopensBefore);
          json.put("beside", besideJson);
        }
        if (adds > 0) {
          // 4. Durable adds: copies of the first records under new ids, so that each is kept over
          // its twin and added; each answer waits for the add log's fsync, which concurrent
          // requests share.
          List<ObjectNode> toAdd = new ArrayList<>();
          for (ObjectNode record : input.subList(0, Math.min(adds, input.size()))) {
            ObjectNode copy = record.deepCopy();
            copy.put(
                config.table().idColumn(),
                record.get(config.table().idColumn()).asLong() + 1_000_000_000L);
            toAdd.add(copy);
          }
          // Half of them cold, then the other half warm: each is a new record either way.
          int half = toAdd.size() / 2;
          for (String pass : List.of("cold", "warm")) {
            List<ObjectNode> part =
                pass.equals("cold") ? toAdd.subList(0, half) : toAdd.subList(half, toAdd.size());
            long commitsBefore = dedup.commits();
            ServeLoad.Timing added = load.run(URI.create(uri + "?add=true"), part, 1);
            long commits = dedup.commits() - commitsBefore;
            out.printf(
                "service, %d clients, one record per request with ?add=true (%s): %,d records added in %.2f s"
                    + " = %,.0f records/s, %.1f CPU s; %,d commits (%.1f requests each); latency p50 %.2f ms,"
                    + " p99 %.2f ms; load %.1f%n",
                clients,
                pass,
                part.size(),
                added.seconds(),
                part.size() / added.seconds(),
                added.cpuSeconds(),
                commits,
                part.size() / (double) Math.max(1, commits),
                added.percentile(50),
                added.percentile(99),
                added.load());
            Map<String, Object> addJson = added.toJson(part.size());
            addJson.put("commits", commits);
            json.put(pass.equals("warm") ? "adds" : "adds_cold", addJson);
          }
        }
      } finally {
        service.stop();
      }
    }
    json.put("mismatches", mismatches);
    out.printf(
        "verdicts equal to check's: %s (%,d differ)%n", mismatches == 0 ? "yes" : "NO", mismatches);
    Path jsonFile = dataDir.resolve("bench-serve.json");
    JSON.writerWithDefaultPrettyPrinter().writeValue(jsonFile.toFile(), json);
    out.printf("figures in %s%n", jsonFile);
    return mismatches == 0 ? ExitCodes.OK : 1; // 1: the verdicts differ
  }

  /** The passes of {@link #besidePass}, and all their requests as one timing. */
  private record BesideTiming(List<ServeLoad.Timing> verdicts, ServeLoad.Timing all) {}

  /**
   * One-record passes over {@code input}, one after the other, while {@link #beside} runs {@link
   * #besideTimes} times in a child process; after each run, passes go on for 3 s more, so that the
   * service's reopen on the run's last commit (within a second) is timed too.
   */
  private BesideTiming besidePass(ServeLoad load, URI uri, List<ObjectNode> input, Path configFile)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(launcher.toString());
    command.addAll(List.of(beside.trim().split("\\s+")));
    command.addAll(List.of("--config", configFile.toString()));
    Path log = dataDir.resolve("beside.log");
    Files.deleteIfExists(log);
    List<ServeLoad.Timing> passes = new ArrayList<>();
    long start = System.nanoTime();
    for (int run = 0; run < besideTimes; run++) {
      Process child =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      long settledAt = Long.MAX_VALUE;
      while (System.nanoTime() < settledAt) {
        passes.add(load.run(uri, input, 1));
        if (settledAt == Long.MAX_VALUE && !child.isAlive()) {
          settledAt = System.nanoTime() + 3_000_000_000L;
        }
      }
      if (child.waitFor() != 0) {
        throw new IllegalStateException(
            "`" + beside + "` exited " + child.exitValue() + ": see " + log);
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpu = passes.stream().mapToDouble(ServeLoad.Timing::cpuSeconds).sum();
    double[] latencies =
        passes.stream().flatMapToDouble(p -> java.util.Arrays.stream(p.latencyMillis())).toArray();
    return new BesideTiming(
        passes,
        new ServeLoad.Timing(
            List.of(), seconds, cpu, passes.get(passes.size() - 1).load(), latencies));
  }
}
