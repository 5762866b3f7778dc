package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.xiaochong.spark.cli.SparkCommand;

/**
 * The two runs the Spark ITs compare, as a user starts them: {@code dedup run --full} and {@code
 * dedup-spark run --master local[2]}, each writing a report folder of its own.
 */
final class SparkRuns {
  private SparkRuns() {}

  /** {@code dedup-spark} with {@code args}, its exit code and output. */
  static DbTestSupport.CliRun spark(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        SparkCommand.commandLine(new PrintWriter(out, true), new PrintWriter(err, true))
            .execute(args);
    return new DbTestSupport.CliRun(code, out.toString(), err.toString());
  }

  /** A dry {@code dedup run --full} with a report under {@code dir}; the report folder. */
  static Path single(Path dir, Path config, String method, String... options) {
    Path report = dir.resolve("single-" + System.nanoTime());
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "--config",
                config.toString(),
                "--method",
                method,
                "--full",
                "--report",
                report.toString()));
    args.addAll(List.of(options));
    DbTestSupport.CliRun run = DbTestSupport.cli(args.toArray(new String[0]));
    assertThat(run.exitCode()).as(run.err()).isZero();
    return report;
  }

  /** A {@code dedup-spark run} (dry unless {@code options} apply) under {@code dir}; its report. */
  static Path job(Path dir, Path config, String method, String... options) {
    Path report = dir.resolve("spark-" + System.nanoTime());
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "--config",
                config.toString(),
                "--master",
                "local[2]",
                "--verbose",
                "--method",
                method,
                "--report",
                report.toString()));
    args.addAll(List.of(options));
    DbTestSupport.CliRun run = spark(args.toArray(new String[0]));
    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    return report;
  }

  /** The {@code decisions.jsonl} of a report folder. */
  static String decisions(Path report) throws IOException {
    return Files.readString(report.resolve("decisions.jsonl"));
  }
}
