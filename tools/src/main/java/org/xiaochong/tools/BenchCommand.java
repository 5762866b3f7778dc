package org.xiaochong.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.xiaochong.cli.ConfigOptions;
import org.xiaochong.cli.ConsoleProgress;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.ConfiguredIndex;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.method.near.NearMethod;
import org.xiaochong.method.near.NearStats;
import org.xiaochong.posts.GroundTruth;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.run.RunSummary;
import org.xiaochong.source.Database;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code dedup bench}: generate → load → index → run --apply on generated posts, and beside it, on
 * a copy of the same table in the same server, the same exact dedup done in SQL (an
 * MD5(CONCAT_WS(…)) column, an index on it, a SELECT of the rows with a newer twin, a DELETE).
 * Prints rows/s per stage, where each stage's seconds go (CPU of the JVM, the server and the rest,
 * disk waits: {@link StageProfile}), peak heap, and the ratio of the two; with the near pass, the
 * figures of issue 22's targets (near candidates per examined record, near pass and near index
 * build times, near precision and recall, hard-negative merges by kind, whole run time). Writes
 * them to {@code bench.json} in the data folder.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Benchmarks a whole exact run (index + run --apply) on generated posts against the same dedup",
      "done in SQL by MariaDB, in one run on one server. Run with JAVA_OPTS=-Xmx1g to check the heap target."
    },
    subcommands = {ServeBenchCommand.class, ApartBenchCommand.class})
final class BenchCommand implements Callable<Integer> {
  @Mixin ExitCodes.Help exitCodes;

  @Option(
      names = "--records",
      defaultValue = "1000000",
      description = "Posts to generate (default ${DEFAULT-VALUE}).")
  long records;

  @Option(
      names = "--method",
      defaultValue = "exact",
      paramLabel = "exact|near|simhash|both",
      description =
          "Passes to run (default ${DEFAULT-VALUE}); near and both also time the near index build (segmentation).")
  String method;

  @Option(
      names = "--seed",
      defaultValue = "20081118",
      description = "Random seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--data-dir",
      defaultValue = "data/bench",
      description = "Scratch folder (default ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(
      names = "--vocabulary",
      defaultValue = "realistic",
      paramLabel = "legacy|realistic",
      description = {
        "Words of the generated posts (default ${DEFAULT-VALUE}): realistic has the bounded vocabulary",
        "of real posts, where a price, quantity or place is held by more posts as the table grows; legacy keeps a",
        "rare stock quantity in every post (the figures of bench/RESULTS.md before issue 22)."
      })
  String vocabulary;

  @Option(names = "--skip-sql", description = "Do not run the SQL baseline.")
  boolean skipSql;

  @Option(
      names = "--incremental",
      description = {
        "After the full run, change 1 %% of the rows (new rows and UPDATEs),",
        "time the nightly run --apply, and check it decides as a full dry run on a copy of the changed table."
      })
  boolean incremental;

  @Option(names = "--verbose", description = "Print stack traces of errors.")
  boolean verbose;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    List<org.xiaochong.method.FingerprintMethod> methods;
    try {
      methods = org.xiaochong.method.FingerprintMethods.parse(method);
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("dedup: bench --method: " + e.getMessage());
      return ExitCodes.USAGE;
    }
    boolean near = methods.stream().anyMatch(m -> m.name().equals("near"));
    org.xiaochong.posts.PostGenerator.Vocabulary words = GenerateCommand.vocabulary(vocabulary);
    PrintWriter out = spec.commandLine().getOut();
    DedupConfig config = DedupConfig.forDataDir(dataDir);
    EvalCommand.deleteTree(config.indexDir());
    try (Database database = Database.open(config.db())) {
      Progress progress = ConsoleProgress.forThisProcess();
      GroundTruth truth = new GroundTruth();
      long t = System.nanoTime();
      long loaded;
      try (Progress.Stage stage = progress.start("load", records)) {
        loaded = PostLoader.reload(database, seed, records, words, null, stage, truth::add);
      }
      double loadSeconds = (System.nanoTime() - t) / 1e9;
      out.printf(
          "generate+load: %,d rows (%s vocabulary, seed %d) in %.1f s (%,.0f rows/s)%n",
          loaded, words.label(), seed, loadSeconds, loaded / loadSeconds);
      if (!skipSql) {
        SqlBaseline.copyTable(database);
      }

      printQuiesce(out, "before our run", ServerQuiesce.waitUntilIdle(database, QUIESCE_MAX));
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        pool.resetPeakUsage();
      }
      System.gc();
      DedupRunner.Outcome outcome;
      StageProfile profile = StageProfile.start(database);
      try (profile;
          FingerprintIndex index = ConfiguredIndex.open(config, true)) {
        DedupRunner runner =
            ConfigOptions.runner(
                    config, database, index, progress, spec.commandLine().getOut()::println)
                .withStageListener(profile);
        outcome = runner.run(new DedupRunner.Options(methods, null, null, true, true, false));
      }
      long peakHeap =
          ManagementFactory.getMemoryPoolMXBeans().stream()
              .filter(p -> p.getType() == MemoryType.HEAP)
              .mapToLong(p -> p.getPeakUsage().getUsed())
              .sum();
      RunSummary summary = outcome.summary();
      GroundTruth.ExactCheck check = truth.checkExact(PlanRemovals.of(outcome.plan()));
      out.println();
      out.printf(
          "xiaochong "
              + method
              + " run --apply on %,d rows (index build included), %d threads, max heap %,d MB:%n",
          summary.recordsRead(),
          config.threads(),
          Runtime.getRuntime().maxMemory() >> 20);
      for (Map.Entry<String, Double> stage : summary.seconds().entrySet()) {
        out.printf(
            "  %-8s %7.2f s  %,12.0f rows/s%n",
            stage.getKey(), stage.getValue(), summary.recordsRead() / stage.getValue());
      }
      // An exact copy of a row the near pass removed is labelled exact+near; it is one of the exact
      // group's removals all the same (GroundTruth.checkExact counts it).
      long repointed = summary.removed("exact+near");
      out.printf(
          "  removed %,d exact duplicates%s (truth: %,d; wrong: %,d); peak heap %,d MB (sum of heap pool peaks)%n",
          summary.removed("exact") + repointed,
          repointed == 0
              ? ""
              : String.format(
                  ", %,d of them exact+near (re-pointed to a near survivor)", repointed),
          check.expected(),
          check.wrong(),
          peakHeap >> 20);
      out.printf(
          "  apply: %,d planned rows decided again on their rows (%,d left in place)%n",
          summary.decidedAgain(), summary.skippedChanged());
      profile.print(out, Runtime.getRuntime().availableProcessors());
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("records", summary.recordsRead());
      json.put("vocabulary", words.label());
      json.put("seed", seed);
      json.put("method", method);
      json.put("threads", config.threads());
      json.put("max_heap_mb", Runtime.getRuntime().maxMemory() >> 20);
      json.put("peak_heap_mb", peakHeap >> 20);
      json.put("run_seconds", summary.totalSeconds());
      json.put("seconds", summary.seconds());
      json.put("profile", profile.toJson());
      Map<String, Object> exact = new LinkedHashMap<>();
      exact.put("removed", summary.removed("exact"));
      exact.put("truth", check.expected());
      exact.put("wrong", check.wrong());
      json.put("exact", exact);
      if (near) {
        GroundTruth.NearCheck all = truth.checkAll(PlanRemovals.of(outcome.plan()));
        NearStats n = summary.report("near").flatMap(NearMethod::stats).orElseThrow();
        out.printf(
            "  near: removed %,d (precision %.4f, near recall %.4f, recall all %.4f, %,d hard-negative merges);"
                + " %,d key lookups, %,d candidates compared, %,d without fingerprints%n",
            summary.removed("near"),
            all.precision(),
            all.nearRecall(),
            all.recall(),
            all.hardNegativeMerges(),
            n.lookups(),
            n.candidates(),
            n.emptyTotal());
        double segmenting = summary.seconds().getOrDefault("near_index", 0.0);
        out.printf(
            "  segmenting (near index build): %.2f s = %.1f%% of the run%n",
            segmenting,
            summary.totalSeconds() > 0 ? 100 * segmenting / summary.totalSeconds() : 0.0);
        NearBenchFigures.printKeyFamilies(
            out, n.keyTimes(), config.threads(), summary.totalSeconds());
        json.put("near", NearBenchFigures.printNearFigures(out, summary, n, all, peakHeap));
      }
      for (org.xiaochong.method.FingerprintMethod other : methods) {
        if (!other.name().equals("exact") && !other.name().equals("near")) {
          GroundTruth.NearCheck all = truth.checkAll(PlanRemovals.of(outcome.plan()));
          out.printf(
              "  %s: removed %,d (precision of all removals %.4f, recall all %.4f)%n",
              other.name(), summary.removed(other.name()), all.precision(), all.recall());
        }
      }
      if (summary.prefilter() != null) {
        RunSummary.PrefilterStats p = summary.prefilter();
        out.printf(
            "  prefilter: %,d index lookups made, %,d skipped; %.1f%% of the lookups for records without a twin"
                + " skipped (%,d false positives), %,d KB%n",
            exactLookups(summary),
            p.skipped(),
            100 * p.uniqueSkipRate(),
            p.falsePositives(),
            p.memoryBytes() >> 10);
      }

      if (!skipSql) {
        SqlBaseline.run(out, database, config.table(), summary.totalSeconds());
      }
      if (incremental) {
        NightlyBench.run(out, database, config, dataDir, summary.totalSeconds());
      }
      Path jsonFile = dataDir.resolve("bench.json");
      new com.fasterxml.jackson.databind.ObjectMapper()
          .writerWithDefaultPrettyPrinter()
          .writeValue(jsonFile.toFile(), json);
      out.printf("%nfigures in %s%n", jsonFile);
    }
    return ExitCodes.OK;
  }

  /** The longest wait for the server to finish the previous step's background work. */
  static final java.time.Duration QUIESCE_MAX = java.time.Duration.ofMinutes(3);

  static void printQuiesce(PrintWriter out, String when, ServerQuiesce.Result wait) {
    out.printf(
        "server idle %s: waited %.1f s for %,d dirty pages and %,d undo logs of purge%s%n",
        when,
        wait.seconds(),
        wait.dirtyPagesBefore(),
        wait.historyBefore(),
        wait.timedOut() ? " (gave up: timed anyway)" : "");
  }

  /** The exact pass's index lookups, as in {@code summary.json}. */
  private static long exactLookups(RunSummary summary) {
    Object exact = summary.toJson().get("exact");
    return exact instanceof Map<?, ?> section && section.get("lookups") instanceof Number n
        ? n.longValue()
        : 0;
  }
}
