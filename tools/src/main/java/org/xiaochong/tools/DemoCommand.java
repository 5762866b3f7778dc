package org.xiaochong.tools;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.xiaochong.cli.ConfigOptions;
import org.xiaochong.cli.ConsoleProgress;
import org.xiaochong.cli.DedupConfig;
import org.xiaochong.cli.ExitCodes;
import org.xiaochong.cli.RunCommand;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.posts.GroundTruth;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.progress.Progress;
import org.xiaochong.report.ReportWriter;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.source.Database;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code dedup demo}: generated posts in an embedded MariaDB, deduplicated end to end. */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Generates Chinese agricultural supply/demand posts with known duplicates, loads them into an embedded",
      "MariaDB (data in --data-dir), runs index + run --apply --report, and checks the result against the truth."
    })
final class DemoCommand implements Callable<Integer> {
  @Mixin ExitCodes.Help exitCodes;
  @Option(names = "--records", defaultValue = "100000", description = "How many posts to generate (default ${DEFAULT-VALUE}).")
  long records;

  @Option(names = "--seed", defaultValue = "20081118", description = "Random seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--data-dir", defaultValue = "data/demo", description = "Where the demo database, index and report go (default ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(names = "--method", defaultValue = "exact", paramLabel = "exact|near|both",
      description = "Passes to run (default ${DEFAULT-VALUE}; both adds the near-duplicate pass, ~1 ms per post more).")
  String method;

  @Option(names = "--vocabulary", defaultValue = "legacy", paramLabel = "legacy|realistic",
      description = "Words of the generated posts (default ${DEFAULT-VALUE}); see `dedup generate --help`.")
  String vocabulary;

  @Option(names = "--verbose", description = "Print stack traces of errors.")
  boolean verbose;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    if (records < 1 || records > 50_000_000) {
      throw new IllegalArgumentException("--records (" + records + ") must be in [1, 50000000]");
    }
    var methods = ConfigOptions.methods(method);
    var words = GenerateCommand.vocabulary(vocabulary);
    var out = spec.commandLine().getOut();
    DedupConfig config = DedupConfig.forDataDir(dataDir);
    try (Database database = Database.open(config.db())) {
      out.printf("generating and loading %,d posts into %s ...%n", records, database.displayUrl());
      long t = System.nanoTime();
      GroundTruth truth = new GroundTruth();
      Progress progress = ConsoleProgress.forThisProcess();
      long loaded;
      try (Progress.Stage stage = progress.start("load", records)) {
        loaded = PostLoader.reload(database, seed, records, words, dataDir.resolve("truth.csv"), stage,
            truth::add);
      }
      out.printf("loaded %,d rows in %.1f s; ground truth in %s%n", loaded, (System.nanoTime() - t) / 1e9,
          dataDir.resolve("truth.csv"));
      try (FingerprintIndex index = ConfigOptions.openIndex(config, true)) {
        DedupRunner runner = ConfigOptions.runner(config, database, index, progress,
            spec.commandLine().getOut()::println);
        DedupRunner.Outcome outcome = runner.run(new DedupRunner.Options(methods, null, null, true, true, false));
        RunCommand.print(out, outcome.summary(), database, config.table());
        Path report = dataDir.resolve("report");
        ReportWriter.write(report, outcome);
        org.xiaochong.report.HtmlReport.write(report.resolve("report.html"), outcome.summary(), outcome.plan(), database,
            config.table());
        GroundTruth.ExactCheck check = truth.checkExact(PlanRemovals.of(outcome.plan()));
        out.printf("ground truth: %,d exact duplicates in the data, %,d removed correctly, %,d wrongly "
                + "(precision %.4f, recall %.4f)%n", check.expected(), check.correct(), check.wrong(), check.precision(),
            check.recall());
        // The generator's truth knows near variants: checked when the near method ran.
        if (outcome.summary().report("near").isPresent()) {
          GroundTruth.NearCheck all = truth.checkAll(PlanRemovals.of(outcome.plan()));
          out.printf("ground truth, all removals: %,d duplicates in the data (%,d near variants), %,d removed correctly,"
                  + " %,d wrongly (%,d hard-negative merges); precision %.4f, recall %.4f, near precision %.4f,"
                  + " near recall %.4f%s%n", all.expected(), all.expectedNear(), all.correct(), all.wrong(),
              all.hardNegativeMerges(), all.precision(), all.recall(), all.nearPrecision(), all.nearRecall(),
              methods.size() == 1 ? " (near alone also removes exact copies: read the recall over all)" : "");
          StringBuilder kinds = new StringBuilder("hard negatives joined with the post they were made against:");
          all.hardNegatives().forEach((kind, count) -> kinds.append(String.format(" %s %,d/%,d;", kind,
              all.hardNegativeMergesByKind().getOrDefault(kind, 0L), count)));
          out.println(kinds);
        }
        out.println("report: " + report.toAbsolutePath() + " (summary.json, decisions.jsonl, report.html)");
        out.println("undo with: echo data.dir=" + dataDir + " > demo.properties && bin/dedup restore --config demo.properties --run "
            + outcome.summary().runId());
      }
    }
    return ExitCodes.OK;
  }
}
