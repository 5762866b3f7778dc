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
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.xiaochong.cli.ConfigOptions;
import org.xiaochong.cli.ConsoleProgress;
import org.xiaochong.cli.DedupConfig;
import org.xiaochong.cli.ExitCodes;
import org.xiaochong.fingerprint.NearKeyTimes;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.method.near.NearMethod;
import org.xiaochong.method.near.NearStats;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.posts.GroundTruth;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.run.RunSummary;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code dedup bench}: generate → load → index → run --apply on generated posts, and beside it, on
 * a copy of the same table in the same server, the same exact dedup done in SQL (an
 * MD5(CONCAT_WS(…)) column, an index on it, a SELECT of the rows with a newer twin, a DELETE).
 * Prints rows/s per stage, peak heap, and the ratio of the two; with the near pass, the figures of
 * issue 22's targets (near candidates per examined record, near pass and near index build times,
 * near precision and recall, hard-negative merges by kind, whole run time). Writes them to {@code
 * bench.json} in the data folder.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Benchmarks a whole exact run (index + run --apply) on generated posts against the same dedup",
      "done in SQL by MariaDB, in one run on one server. Run with JAVA_OPTS=-Xmx1g to check the heap target."
    },
    subcommands = ServeBenchCommand.class)
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
        database
            .jdbi()
            .useHandle(
                h -> {
                  h.execute("DROP TABLE IF EXISTS supply_demand_sqlbench");
                  h.execute("CREATE TABLE supply_demand_sqlbench LIKE supply_demand");
                  h.execute("INSERT INTO supply_demand_sqlbench SELECT * FROM supply_demand");
                });
      }

      printQuiesce(out, "before our run", ServerQuiesce.waitUntilIdle(database, QUIESCE_MAX));
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        pool.resetPeakUsage();
      }
      System.gc();
      DedupRunner.Outcome outcome;
      try (FingerprintIndex index = ConfigOptions.openIndex(config, true)) {
        DedupRunner runner =
            ConfigOptions.runner(
                config, database, index, progress, spec.commandLine().getOut()::println);
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
        printKeyFamilies(out, n.keyTimes(), config.threads(), summary.totalSeconds());
        json.put("near", printNearFigures(out, summary, n, all, peakHeap));
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
        printQuiesce(out, "before the SQL way", ServerQuiesce.waitUntilIdle(database, QUIESCE_MAX));
        Map<String, Double> sql = sqlBaseline(database, config.table());
        double sqlTotal = sql.values().stream().mapToDouble(Double::doubleValue).sum();
        out.println();
        out.printf("MariaDB doing the same exact dedup in SQL on a copy of the table:%n");
        for (Map.Entry<String, Double> stage : sql.entrySet()) {
          out.printf("  %-12s %7.2f s%n", stage.getKey(), stage.getValue());
        }
        out.printf("  total        %7.2f s%n", sqlTotal);
        long sqlRemoved =
            database
                .jdbi()
                .withHandle(
                    h ->
                        h.createQuery("SELECT COUNT(*) FROM sqlbench_doomed")
                            .mapTo(Long.class)
                            .one());
        out.printf(
            "  removed %,d (byte-identical fields only: SQL has no normalization)%n", sqlRemoved);
        out.println();
        out.printf(
            "ratio: xiaochong %.2f s / SQL %.2f s = %.2f%n",
            summary.totalSeconds(), sqlTotal, summary.totalSeconds() / sqlTotal);
        database
            .jdbi()
            .useHandle(
                h -> {
                  h.execute("DROP TABLE IF EXISTS supply_demand_sqlbench");
                  h.execute("DROP TABLE IF EXISTS sqlbench_doomed");
                });
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

  /**
   * The figures issue 22's targets name, one line each, and the same as a map for bench.json. Near
   * candidates per examined record: kept records compared, per record of the window the near pass
   * looked up (the exact pass's removals are not looked up).
   */
  static Map<String, Object> printNearFigures(
      PrintWriter out, RunSummary summary, NearStats n, GroundTruth.NearCheck all, long peakHeap) {
    long lookedUp = Math.max(0, n.examined() - n.skippedExact());
    double perRecord = lookedUp == 0 ? 0.0 : (double) n.candidates() / lookedUp;
    double nearSeconds = summary.seconds().getOrDefault("near", 0.0);
    double nearIndexSeconds = summary.seconds().getOrDefault("near_index", 0.0);
    out.println("  targets (issue 22):");
    out.printf(
        "    near candidates compared per examined record %10.2f  (%,d candidates, %,d records examined)%n",
        perRecord, n.candidates(), lookedUp);
    out.printf("    near pass                                    %10.2f s%n", nearSeconds);
    out.printf("    near index build (segmentation)              %10.2f s%n", nearIndexSeconds);
    out.printf(
        "    whole run                                    %10.2f s%n", summary.totalSeconds());
    out.printf("    peak heap                                    %,10d MB%n", peakHeap >> 20);
    out.printf(
        "    near precision                               %10.4f  (%,d right, %,d wrong; %,d of them not of a"
            + " hard negative and its model)%n",
        all.nearPrecision(), all.nearCorrect(), all.nearWrong(), all.nearWrongElsewhere());
    out.printf(
        "    near recall                                  %10.4f  (of %,d near variants)%n",
        all.nearRecall(), all.expectedNear());
    out.printf(
        "    hard-negative merges (hard negatives joined with the post they were made against / all):%n");
    Map<String, Object> byKind = new LinkedHashMap<>();
    all.hardNegatives()
        .forEach(
            (kind, count) -> {
              long merges = all.hardNegativeMergesByKind().getOrDefault(kind, 0L);
              out.printf("      %-36s %,8d of %,d%n", kind, merges, count);
              Map<String, Long> figures = new LinkedHashMap<>();
              figures.put("merges", merges);
              figures.put("hard_negatives", count);
              byKind.put(kind.name(), figures);
            });
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("candidates", n.candidates());
    json.put("records_examined", lookedUp);
    json.put("candidates_per_examined_record", perRecord);
    json.put("near_seconds", nearSeconds);
    json.put("near_index_seconds", nearIndexSeconds);
    json.put("removed", summary.removed("near"));
    json.put("near_precision", all.nearPrecision());
    json.put("near_recall", all.nearRecall());
    json.put("precision", all.precision());
    json.put("recall", all.recall());
    json.put("hard_negative_merges", all.hardNegativeMerges());
    json.put("hard_negative_merges_by_kind", byKind);
    json.put("near_wrong_not_hard_negative", all.nearWrongElsewhere());
    return json;
  }

  /**
   * The near index build's fingerprinting time per near key family: thread-seconds (summed over the
   * sync's threads), and the share of the run's wall time they stand for (thread-seconds / threads
   * / total, the threads running at once).
   */
  static void printKeyFamilies(
      PrintWriter out, NearKeyTimes.Snapshot times, int threads, double totalSeconds) {
    if (times.posts() == 0) {
      return;
    }
    double perRun = totalSeconds > 0 ? 100 / (threads * totalSeconds) : 0;
    out.printf(
        "  near key families (near index build, %,d posts; thread-seconds over %d threads, %% of the run):%n",
        times.posts(), threads);
    out.printf(
        "    words (smartcn) %7.2f s %5.1f%%  (sentence cache: %.1f%% of %,d sentences known)%n",
        times.words(),
        times.words() * perRun,
        100 * times.sentenceHitRate(),
        times.sentenceHits() + times.sentenceMisses());
    out.printf("    q-grams         %7.2f s %5.1f%%%n", times.grams(), times.grams() * perRun);
    out.printf(
        "    shingles        %7.2f s %5.1f%%%n", times.shingles(), times.shingles() * perRun);
    double other = Math.max(0, times.total() - times.words() - times.grams() - times.shingles());
    out.printf("    other (normalization, fields) %7.2f s %5.1f%%%n", other, other * perRun);
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

  /** The SQL way, stage by stage, on supply_demand_sqlbench. */
  private static Map<String, Double> sqlBaseline(Database database, TableSpec spec) {
    Map<String, Double> seconds = new LinkedHashMap<>();
    String fields =
        spec.exactFields().stream().map(TableSpec::quote).collect(Collectors.joining(", "));
    try (Handle h = database.jdbi().open()) {
      h.execute("ALTER TABLE supply_demand_sqlbench ADD COLUMN md5 CHAR(32)");
      long t = System.nanoTime();
      h.execute("UPDATE supply_demand_sqlbench SET md5 = MD5(CONCAT_WS(0x1F, " + fields + "))");
      seconds.put("md5 update", (System.nanoTime() - t) / 1e9);
      t = System.nanoTime();
      h.execute("CREATE INDEX sqlbench_md5 ON supply_demand_sqlbench (md5)");
      seconds.put("index", (System.nanoTime() - t) / 1e9);
      t = System.nanoTime();
      h.execute("DROP TABLE IF EXISTS sqlbench_doomed");
      // A row goes when a twin is kept over it.
      h.execute(
          "CREATE TABLE sqlbench_doomed (id BIGINT PRIMARY KEY) ENGINE=InnoDB AS"
              + " SELECT DISTINCT a.id FROM supply_demand_sqlbench a JOIN supply_demand_sqlbench b ON a.md5 = b.md5"
              + " AND "
              + KeepPolicy.latest("reg_time").sqlPreferred("b", "a", "id", java.util.Set.of()));
      seconds.put("select", (System.nanoTime() - t) / 1e9);
      t = System.nanoTime();
      h.execute("DELETE s FROM supply_demand_sqlbench s JOIN sqlbench_doomed d ON s.id = d.id");
      seconds.put("delete", (System.nanoTime() - t) / 1e9);
    }
    return seconds;
  }

  /** The exact pass's index lookups, as in {@code summary.json}. */
  private static long exactLookups(RunSummary summary) {
    Object exact = summary.toJson().get("exact");
    return exact instanceof Map<?, ?> section && section.get("lookups") instanceof Number n
        ? n.longValue()
        : 0;
  }
}
