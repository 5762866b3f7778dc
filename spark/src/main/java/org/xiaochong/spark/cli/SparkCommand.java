package org.xiaochong.spark.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.xiaochong.archive.RowsMovedException;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.source.BadInputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code dedup-spark} command line: the dedup run as an Apache Spark job. */
@Command(
    name = "dedup-spark",
    mixinStandardHelpOptions = true,
    version = "xiaochong dedup-spark 0.1.0",
    description = {
      "Runs `dedup run` as an Apache Spark job: the same config, fingerprints, rules and keep policy, the same",
      "decisions, applied through the same archive (restore with `bin/dedup restore`)."
    },
    subcommands = {
      SparkRunCommand.class,
      SparkExportCommand.class,
      SparkBenchCommand.class,
      CommandLine.HelpCommand.class
    })
public final class SparkCommand implements Callable<Integer> {
  @picocli.CommandLine.Mixin ExitCodes.MovesRows exitCodes;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return ExitCodes.USAGE;
  }

  public static void main(String[] args) {
    org.xiaochong.index.LuceneSetup.quietVectorizationNote();
    int code =
        commandLine(new PrintWriter(System.out, true), new PrintWriter(System.err, true))
            .execute(args);
    System.exit(code);
  }

  /** A command line writing to the given streams, as the tests use it. */
  public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
    CommandLine cli = new CommandLine(new SparkCommand());
    cli.setOut(out);
    cli.setErr(err);
    cli.setExitCodeExceptionMapper(
        e ->
            e instanceof RowsMovedException
                ? ExitCodes.ROWS_MOVED
                : e instanceof BadInputException
                        || e instanceof IllegalArgumentException
                        || e instanceof CommandLine.ParameterException
                    ? ExitCodes.USAGE
                    : ExitCodes.INTERNAL);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          boolean verbose =
              parseResult.subcommands().stream().anyMatch(p -> p.hasMatchedOption("--verbose"));
          PrintWriter errors = commandLine.getErr();
          if (e instanceof BadInputException || e instanceof IllegalArgumentException) {
            errors.println("dedup-spark: " + oneLine(e.getMessage()));
          } else {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
              root = root.getCause();
            }
            errors.println(
                "dedup-spark: "
                    + (e instanceof RowsMovedException
                        ? oneLine(e.getMessage())
                        : "unexpected error: " + oneLine(String.valueOf(root.getMessage())))
                    + (verbose ? "" : " (run with --verbose for details)"));
          }
          if (verbose) {
            e.printStackTrace(errors);
          }
          errors.flush();
          return commandLine.getExitCodeExceptionMapper().getExitCode(e);
        });
    return cli;
  }

  private static String oneLine(String message) {
    return message == null ? "" : message.lines().findFirst().orElse("");
  }
}
