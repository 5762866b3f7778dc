package org.xiaochong.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.xiaochong.cli.ConfigOptions;
import org.xiaochong.cli.ConsoleProgress;
import org.xiaochong.cli.VersionProvider;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.ConfiguredIndex;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.posts.GroundTruth;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.progress.Progress;
import org.xiaochong.report.HtmlReport;
import org.xiaochong.report.ReportWriter;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.run.RunSummary;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code dedup demo}: generated posts in an embedded MariaDB, deduplicated end to end by the whole
 * pipeline (index, exact pass, near pass, both with their prefilters, apply), one line per step
 * with what it found, checked against the generator's ground truth, and a report to open.
 *
 * <p>The release archive without the embedded MariaDB (for users with a server of their own) cannot
 * run it: there the demo says in one line where it runs and how to point xiaochong at a server.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Generates Chinese agricultural supply/demand posts with known duplicates, loads them into an embedded",
      "MariaDB (data in --data-dir), runs the whole pipeline (index, exact pass, near pass, apply) with a report,",
      "says what each step found and checks the result against the truth."
    })
final class DemoCommand implements Callable<Integer> {
  @Mixin ExitCodes.Help exitCodes;

  @Option(
      names = "--records",
      defaultValue = "100000",
      description = "How many posts to generate (default ${DEFAULT-VALUE}).")
  long records;

  @Option(
      names = "--seed",
      defaultValue = "20081118",
      description = "Random seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--data-dir",
      defaultValue = "data/demo",
      description =
          "Where the demo database, index, report and demo.properties go (default ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(
      names = "--method",
      defaultValue = "both",
      paramLabel = "both|exact|near",
      description =
          "Passes to run (default ${DEFAULT-VALUE}: the exact pass, then the near pass; exact alone is"
              + " about 1 ms per post quicker).")
  String method;

  @Option(
      names = "--vocabulary",
      defaultValue = "legacy",
      paramLabel = "legacy|realistic",
      description =
          "Words of the generated posts (default ${DEFAULT-VALUE}); see `dedup generate --help`.")
  String vocabulary;

  @Option(names = "--verbose", description = "Print stack traces of errors.")
  boolean verbose;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    if (records < 1 || records > 50_000_000) {
      throw new IllegalArgumentException("--records (" + records + ") must be in [1, 50000000]");
    }
    if (!Database.embeddedServerBundled()) {
      String version = VersionProvider.version();
      throw new BadInputException(
          "demo runs on the embedded MariaDB, which this archive leaves out: run it from"
              + " xiaochong-"
              + version
              + "-with-mariadb (.tar.gz or .zip); for your own MySQL or MariaDB server, set db.url in"
              + " a config file and run bin/dedup run --config FILE (README: Point it at your MySQL"
              + " or MariaDB table)");
    }
    var methods = ConfigOptions.methods(method);
    var words = GenerateCommand.vocabulary(vocabulary);
    var out = spec.commandLine().getOut();
    DedupConfig config = DedupConfig.forDataDir(dataDir);
    Path configFile = writeConfig();
    String configOption = "--config " + HtmlReport.shellQuote(configFile.toString());
    String passes = methods.stream().map(m -> m.name() + " pass").collect(Collectors.joining(", "));
    out.printf(
        "xiaochong demo: %,d generated posts through the pipeline (generate, load, index, %s, apply, check)"
            + " in %s%n",
        records, passes, dataDir);
    try (Database database = Database.open(config.db())) {
      long t = System.nanoTime();
      GroundTruth truth = new GroundTruth();
      Progress progress = ConsoleProgress.forThisProcess();
      long loaded;
      try (Progress.Stage stage = progress.start("load", records)) {
        loaded =
            PostLoader.reload(
                database, seed, records, words, dataDir.resolve("truth.csv"), stage, truth::add);
      }
      double loadSeconds = (System.nanoTime() - t) / 1e9;
      try (FingerprintIndex index = ConfiguredIndex.open(config, true)) {
        DedupRunner runner = ConfigOptions.runner(config, database, index, progress, out::println);
        DedupRunner.Outcome outcome =
            runner.run(new DedupRunner.Options(methods, null, null, true, true, false));
        Path report = dataDir.resolve("report");
        ReportWriter.write(report, outcome);
        HtmlReport.write(
            report.resolve("report.html"),
            outcome.summary(),
            outcome.plan(),
            database,
            config.table(),
            configOption,
            outcome.evidence());
        GroundTruth.NearCheck all = truth.checkAll(PlanRemovals.of(outcome.plan()));
        GroundTruth.ExactCheck exact = truth.checkExact(PlanRemovals.of(outcome.plan()));
        out.println();
        out.println("what each step found:");
        steps(
            out, outcome.summary(), loaded, loadSeconds, all, exact, config.table().removedTable());
        out.println();
        out.printf(
            "in all: %,d of %,d posts removed in %.1f s%n",
            outcome.summary().removedTotal(),
            outcome.summary().recordsRead(),
            outcome.summary().totalSeconds());
        out.println(
            "report: open "
                + report.resolve("report.html").toAbsolutePath()
                + " in a browser (summary.json and decisions.jsonl beside it)");
        out.println(
            "undo with: bin/dedup restore " + configOption + " --run " + outcome.summary().runId());
      }
    }
    return ExitCodes.OK;
  }

  /**
   * data/demo/demo.properties: the demo's database for the commands the demo and its report name.
   */
  private Path writeConfig() throws IOException {
    Files.createDirectories(dataDir);
    Path file = dataDir.resolve("demo.properties");
    Properties properties = new Properties();
    properties.setProperty("data.dir", dataDir.toAbsolutePath().toString());
    try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      properties.store(writer, "the database of `dedup demo`: bin/dedup stats --config " + file);
    }
    return file;
  }

  /** One numbered line per step of the run, with what it found. */
  private void steps(
      PrintWriter out,
      RunSummary summary,
      long loaded,
      double loadSeconds,
      GroundTruth.NearCheck all,
      GroundTruth.ExactCheck exact,
      String archive) {
    Map<String, Object> json = summary.toJson();
    Map<String, Double> seconds = summary.seconds();
    int step = 0;
    out.printf(
        "  %d. generate and load: %,d posts with %,d planted duplicates (%,d exact copies, %,d near variants)"
            + " into the embedded MariaDB, %.1f s; their truth in %s%n",
        ++step,
        loaded,
        all.expected(),
        all.expected() - all.expectedNear(),
        all.expectedNear(),
        loadSeconds,
        dataDir.resolve("truth.csv"));
    out.printf(
        "  %d. index: %,d posts fingerprinted into the Lucene index, %.1f s%n",
        ++step,
        summary.indexAdded(),
        seconds.getOrDefault("index", 0.0) + seconds.getOrDefault("near_index", 0.0));
    Map<String, Object> prefilter = section(json, "prefilter");
    if (summary.report("exact").isPresent()) {
      Map<String, Object> e = section(json, "exact");
      out.printf(
          "  %d. exact pass: %,d groups of posts equal after normalization, %,d copies to remove; the prefilter"
              + " (a counting Bloom filter) spared %,d of %,d index lookups, %.1f s%n",
          ++step,
          number(e, "groups"),
          number(e, "removed") + summary.removed("exact+near"),
          number(prefilter, "skipped"),
          number(prefilter, "lookups"),
          seconds.getOrDefault("exact", 0.0) + seconds.getOrDefault("prefilter", 0.0));
    }
    if (summary.report("near").isPresent()) {
      Map<String, Object> n = section(json, "near");
      Map<String, Object> nearFilter = section(prefilter, "near");
      out.printf(
          "  %d. near pass: %,d posts looked up by their keys (%,d lookups spared by the key counts), %,d"
              + " candidates scored, %,d near duplicates (similarity >= %.2f) to remove, %.1f s%n",
          ++step,
          number(n, "examined"),
          number(nearFilter, "skipped"),
          number(n, "candidates"),
          number(n, "removed"),
          ((Number) n.getOrDefault("min_similarity", 0.0)).doubleValue(),
          seconds.getOrDefault("near", 0.0));
    }
    out.printf(
        "  %d. apply: %,d rows archived in %s and deleted, %.1f s%n",
        ++step,
        summary.applyTotal().moved(),
        archive,
        seconds.getOrDefault("apply", 0.0) + seconds.getOrDefault("plan", 0.0));
    if (summary.report("near").isPresent()) {
      out.printf(
          "  %d. check against the truth: %,d removed correctly, %,d wrongly: precision %.4f, recall %.4f"
              + " (exact copies %.4f/%.4f, near variants %.4f/%.4f; %,d of %,d hard negatives merged)%n",
          ++step,
          all.correct(),
          all.wrong(),
          all.precision(),
          all.recall(),
          exact.precision(),
          exact.recall(),
          all.nearPrecision(),
          all.nearRecall(),
          all.hardNegativeMerges(),
          all.hardNegatives().values().stream().mapToLong(Long::longValue).sum());
    } else {
      out.printf(
          "  %d. check against the truth: %,d exact copies removed correctly, %,d wrongly: precision %.4f,"
              + " recall %.4f (the near variants stay: --method both removes them)%n",
          ++step, exact.correct(), exact.wrong(), exact.precision(), exact.recall());
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> section(Map<String, Object> json, String key) {
    return json == null || !(json.get(key) instanceof Map<?, ?> map)
        ? Map.of()
        : (Map<String, Object>) map;
  }

  private static long number(Map<String, Object> json, String key) {
    return json.get(key) instanceof Number n ? n.longValue() : 0;
  }
}
