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
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.source.Database;
import org.xiaochong.spark.read.JobConfig;
import org.xiaochong.spark.run.SparkRun;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dedup-spark bench}: runs {@code dedup run --full} (a fresh index) and the Spark job on the
 * configured table, dry, and prints each stage's seconds side by side and whether the decisions are
 * the same. The table is the user's own, or generated posts loaded with {@code dedup generate} and
 * {@code dedup load}: the generator is not part of the job.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Times a dry `dedup run --full` (index built from empty) and the Spark job on the configured table,",
      "per stage, and compares their decisions. For generated posts: `dedup generate --records N",
      "--vocabulary realistic --out posts.jsonl`, then `dedup load posts.jsonl --table T --format jsonl`."
    })
public final class SparkBenchCommand implements Callable<Integer> {
  @picocli.CommandLine.Mixin ExitCodes.Help exitCodes;

  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      required = true,
      description =
          "Java properties file; db.url must name a server. The table is read, not changed; the"
              + " index at index.dir is built from empty (give it a scratch folder).")
  java.nio.file.Path config;

  @Option(names = "--verbose", description = "Print stack traces of errors.")
  boolean verbose;

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

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    JobConfig job = JobConfig.load(config, System.getenv());
    DedupConfig dedup = job.config();
    try (Database database = Database.open(dedup.db())) {
      DedupRunner.Outcome single;
      long t = System.nanoTime();
      try (FingerprintIndex index = ConfiguredIndex.open(dedup, true)) {
        single =
            ConfigOptions.runner(dedup, database, index, Progress.NONE, note -> {})
                .run(new DedupRunner.Options(method, null, null, false, true, false));
      }
      double singleWall = seconds(t);
      t = System.nanoTime();
      boolean ownSession = SparkSession.getDefaultSession().isEmpty();
      SparkSession spark = Sessions.open(master);
      String sparkMaster = spark.sparkContext().master();
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
        if (ownSession) { // a session of the caller's (a test's) stays open
          spark.stop();
        }
      }
      double sparkWall = seconds(t);
      print(out, single.summary().seconds(), job2.summary().seconds(), start);
      out.printf(
          "wall (start-up included): single machine %.1f s, Spark %s %.1f s (%.2fx)%n",
          singleWall, sparkMaster, sparkWall, sparkWall / singleWall);
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
