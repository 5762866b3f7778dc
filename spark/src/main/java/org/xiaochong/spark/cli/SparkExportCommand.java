package org.xiaochong.spark.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.spark.read.JobConfig;
import org.xiaochong.spark.read.ParquetExport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dedup-spark export}: the columns a run reads, as a Parquet export for {@code --parquet}.
 */
@Command(
    name = "export",
    mixinStandardHelpOptions = true,
    description = {
      "Writes the columns a run reads (id, time, the fields of the config) to a Parquet export, read from the",
      "replica of db.read-url when the config names one. `dedup-spark run --parquet DIR` then decides on that",
      "snapshot without reading the database; its apply re-checks every row on the live table."
    })
public final class SparkExportCommand implements Callable<Integer> {
  @picocli.CommandLine.Mixin ExitCodes.Help exitCodes;

  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      required = true,
      description = "Java properties file (keys: see config/dedup.properties).")
  Path config;

  @Option(
      names = "--parquet",
      paramLabel = "DIR",
      required = true,
      description =
          "Folder to write (must not exist; a path Spark writes to: local, hdfs://, s3a://).")
  String parquet;

  @Option(names = "--master", paramLabel = "URL", description = "Spark master (as for run).")
  String master;

  @Option(
      names = "--partitions",
      paramLabel = "N",
      defaultValue = "0",
      description = "Id ranges to read (and files to write); 0 (default): as for run.")
  int partitions;

  @Option(names = "--verbose", description = "Print stack traces of errors.")
  boolean verbose;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    JobConfig job = JobConfig.load(config, System.getenv());
    boolean ownSession = SparkSession.getDefaultSession().isEmpty();
    SparkSession spark = Sessions.open(master);
    try {
      long rows = ParquetExport.export(spark, job, parquet, partitions);
      spec.commandLine().getOut().printf("exported %,d rows to %s%n", rows, parquet);
    } finally {
      if (ownSession) {
        spark.stop();
      }
    }
    return ExitCodes.OK;
  }
}
