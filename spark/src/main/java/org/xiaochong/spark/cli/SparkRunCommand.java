package org.xiaochong.spark.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import org.xiaochong.cli.ConsoleProgress;
import org.xiaochong.cli.RunCommand;
import org.xiaochong.cli.RunOptions;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.pass.Window;
import org.xiaochong.report.HtmlReport;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.run.TableLock;
import org.xiaochong.source.Database;
import org.xiaochong.spark.read.JobConfig;
import org.xiaochong.spark.run.SparkRun;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code dedup-spark run}: {@code dedup run} as a Spark job, with its decisions. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Finds duplicates among the records of the window (--since/--until on the time column; their duplicates",
      "are looked up in the whole table) on Apache Spark and keeps the latest of each group, as `dedup run --full`",
      "decides. Without --apply it only prints the plan. The job keeps no index: every run examines all records",
      "of its window."
    })
public final class SparkRunCommand implements Callable<Integer> {
  @picocli.CommandLine.Mixin ExitCodes.MovesRows exitCodes;
  @picocli.CommandLine.Mixin RunOptions run;

  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      required = true,
      description =
          "Java properties file (keys: see config/dedup.properties); db.url must name a server.")
  Path config;

  @Option(names = "--verbose", description = "Print stack traces of errors.")
  boolean verbose;

  @Option(
      names = "--master",
      paramLabel = "URL",
      description =
          "Spark master, e.g. local[2] or spark://host:7077 (default: spark-submit's, else local[*]).")
  String master;

  @Option(
      names = "--partitions",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "Input partitions (id ranges of the table); 0 (default): one per 200k ids, at least 2 per core.")
  int partitions;

  @Option(
      names = "--parquet",
      paramLabel = "DIR",
      description = {
        "Read the records from this Parquet export (`dedup-spark export`, or any export of the table's columns)",
        "instead of the table; the plan is still applied on db.url, re-checked row by row."
      })
  String parquet;

  @Option(
      names = "--driver-component-size",
      paramLabel = "N",
      defaultValue = "500000",
      description = {
        "Near components of more than N records are decided on the driver, one at a time (default",
        "${DEFAULT-VALUE}); give the driver the memory for the largest (about 1 KB per record)."
      })
  long driverComponentSize;

  @Option(
      names = "--full",
      description =
          "Examine every record (what every Spark run does; accepted as for `dedup run`).")
  boolean full;

  @Option(
      names = "--rebuild-index",
      description = "Accepted as for `dedup run`; the job keeps no index to rebuild.")
  boolean rebuildIndex;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    SparkRun.Options options =
        new SparkRun.Options(
            run.methods(),
            run.since(),
            run.until(),
            run.apply(),
            partitions,
            parquet,
            driverComponentSize);
    Window.of(run.since(), run.until()); // fail on a reversed window before starting anything
    JobConfig job = JobConfig.load(config, System.getenv());
    DedupConfig dedup = job.config();
    boolean ownSession = SparkSession.getDefaultSession().isEmpty();
    SparkSession spark = null;
    try (Database database = Database.open(dedup.db());
        TableLock lock =
            TableLock.acquire(
                database, dedup.table(), run.apply() ? "spark run --apply" : "spark run")) {
      spark = Sessions.open(master);
      DedupRunner.Outcome outcome =
          new SparkRun(
                  spark,
                  job,
                  database,
                  ConsoleProgress.forThisProcess(),
                  spec.commandLine().getOut()::println)
              .withLockCheck(lock::requireHeld)
              .run(options);
      RunCommand.print(spec.commandLine().getOut(), outcome.summary(), database, dedup.table());
      if (run.report() != null) {
        RunCommand.writeReport(
            spec.commandLine().getOut(),
            run.report(),
            outcome,
            database,
            dedup.table(),
            "--config " + HtmlReport.shellQuote(config.toString()));
      }
    } finally {
      if (spark != null && ownSession) {
        spark.stop();
      }
    }
    return ExitCodes.OK;
  }
}
