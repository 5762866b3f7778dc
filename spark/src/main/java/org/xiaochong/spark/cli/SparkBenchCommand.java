package org.xiaochong.spark.cli;

import java.io.PrintWriter;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.cli.ConfigOptions;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.ConfiguredIndex;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.posts.PostGenerator;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.spark.read.JobConfig;
import org.xiaochong.spark.run.SparkRun;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dedup-spark bench}: loads N generated posts, runs {@code dedup run --full} (a fresh index)
 * and the Spark job on them, dry, and prints each stage's seconds side by side and whether the
 * decisions are the same.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Loads N generated posts into supply_demand (recreated) of the configured server, then times a dry",
      "`dedup run --full` (index built from empty) and the Spark job on them, per stage, and compares their",
      "decisions."
    })
public final class SparkBenchCommand implements Callable<Integer> {
  @picocli.CommandLine.Mixin ExitCodes.Help exitCodes;

  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      required = true,
      description =
          "Java properties file; db.url must name a server, source.table must be supply_demand.")
  java.nio.file.Path config;

  @Option(names = "--verbose", description = "Print stack traces of errors.")
  boolean verbose;

  @Option(
      names = "--records",
      required = true,
      paramLabel = "N",
      description = "Posts to generate and load.")
  long records;

  @Option(
      names = "--seed",
      defaultValue = "20081118",
      paramLabel = "S",
      description = "Random seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--vocabulary",
      defaultValue = "realistic",
      paramLabel = "legacy|realistic",
      description = "The generator's words (default ${DEFAULT-VALUE}).")
  String vocabulary;

  @Option(
      names = "--method",
      defaultValue = org.xiaochong.method.FingerprintMethods.DEFAULT,
      paramLabel = "METHOD[,METHOD…]",
      description = "Methods, as for run (default ${DEFAULT-VALUE}).")
  String method;

  @Option(
      names = "--master",
      paramLabel = "URL",
      description = "Spark master (default: spark-submit's, else local[*]).")
  String master;

  @Option(
      names = "--skip-load",
      description = "Use the table as it is (loaded by an earlier bench).")
  boolean skipLoad;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    JobConfig job = JobConfig.load(config, System.getenv());
    DedupConfig dedup = job.config();
    if (!dedup.table().table().equals("supply_demand")) {
      throw new BadInputException(
          "bench loads the generated posts into supply_demand: set source.table=supply_demand");
    }
    if (records < 1) {
      throw new BadInputException("--records must be at least 1");
    }
    try (Database database = Database.open(dedup.db())) {
      if (!skipLoad) {
        long t = System.nanoTime();
        PostLoader.reload(
            database,
            seed,
            records,
            PostGenerator.Vocabulary.parse(vocabulary),
            null,
            n -> {},
            p -> {});
        out.printf("loaded %,d posts in %.1f s%n", records, seconds(t));
      }
      DedupRunner.Outcome single;
      long t = System.nanoTime();
      try (FingerprintIndex index = ConfiguredIndex.open(dedup, true)) {
        single =
            ConfigOptions.runner(dedup, database, index, Progress.NONE, note -> {})
                .run(new DedupRunner.Options(method, null, null, false, true, false));
      }
      double singleWall = seconds(t);
      t = System.nanoTime();
      SparkSession spark = Sessions.open(master);
      double start = seconds(t);
      DedupRunner.Outcome job2;
      try {
        job2 =
            new SparkRun(spark, job, database, Progress.NONE, note -> {})
                .run(
                    new SparkRun.Options(
                        org.xiaochong.cli.ConfigOptions.methods(method),
                        null,
                        null,
                        false,
                        0,
                        null,
                        500_000));
      } finally {
        spark.stop();
      }
      double sparkWall = seconds(t);
      print(out, single.summary().seconds(), job2.summary().seconds(), start);
      out.printf(
          "wall (start-up included): single machine %.1f s, Spark %s %.1f s (%.2fx)%n",
          singleWall, spark.sparkContext().master(), sparkWall, sparkWall / singleWall);
      boolean same = same(single.plan(), job2.plan());
      out.printf(
          "decisions: %,d single machine, %,d Spark, %s%n",
          single.plan().size(), job2.plan().size(), same ? "identical" : "DIFFERENT");
      return same ? ExitCodes.OK : ExitCodes.INTERNAL;
    }
  }

  private static void print(
      PrintWriter out, Map<String, Double> single, Map<String, Double> spark, double start) {
    Set<String> stages = new LinkedHashSet<>(single.keySet());
    stages.addAll(spark.keySet());
    stages.remove("total");
    out.printf("%-16s %10s %10s%n", "stage", "single s", "spark s");
    out.printf("%-16s %10s %10.1f%n", "spark start", "", start);
    for (String stage : stages) {
      out.printf("%-16s %10s %10s%n", stage, cell(single.get(stage)), cell(spark.get(stage)));
    }
    out.printf("%-16s %10s %10s%n", "total", cell(single.get("total")), cell(spark.get("total")));
  }

  private static String cell(Double value) {
    return value == null ? "" : String.format("%.1f", value);
  }

  /** Whether two plans hold the same removals (removed, kept, rule, score to 4 places). */
  static boolean same(DeletionPlan a, DeletionPlan b) {
    if (a.size() != b.size()) {
      return false;
    }
    int[] oa = a.orderByRemovedId();
    int[] ob = b.orderByRemovedId();
    for (int i = 0; i < oa.length; i++) {
      if (a.removedId(oa[i]) != b.removedId(ob[i])
          || a.keptId(oa[i]) != b.keptId(ob[i])
          || a.rule(oa[i]) != b.rule(ob[i])
          || Math.round(a.score(oa[i]) * 10000) != Math.round(b.score(ob[i]) * 10000)) {
        return false;
      }
    }
    return true;
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
