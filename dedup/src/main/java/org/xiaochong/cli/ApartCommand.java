package org.xiaochong.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.xiaochong.archive.ApartTable;
import org.xiaochong.archive.RunLog;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code dedup apart list|add|remove}: the pairs of rows marked as not duplicates ({@code
 * dedup_apart}). {@code restore} marks the rows it puts back; these commands show the marks, add
 * one before an apply, and forget one.
 */
@Command(
    name = "apart",
    mixinStandardHelpOptions = true,
    description = {
      "Pairs of rows marked as not duplicates: no run, check or apply removes one of a pair in favour",
      "of the other. `restore` marks each row it puts back apart from the row it had been removed for."
    },
    subcommands = {
      ApartCommand.ListMarks.class,
      ApartCommand.AddMark.class,
      ApartCommand.RemoveMark.class
    })
final class ApartCommand implements Callable<Integer> {
  @Mixin ExitCodes.Help exitCodes;
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** Without a subcommand: the usage, and the usage error's exit code. */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCodes.USAGE;
  }

  /** {@code dedup apart list}. */
  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "Lists the marks of the table, by pair.")
  static final class ListMarks implements Callable<Integer> {
    @Mixin ExitCodes.Help exitCodes;
    @Mixin ConfigOptions options;

    @Option(
        names = "--limit",
        defaultValue = "1000",
        paramLabel = "N",
        description = "Show at most N marks (default ${DEFAULT-VALUE}).")
    int limit;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      if (limit < 0) {
        throw new BadInputException("--limit must be at least 0, not " + limit);
      }
      DedupConfig config = options.load();
      PrintWriter out = spec.commandLine().getOut();
      try (Database database = ConfigOptions.openDatabase(config)) {
        ApartTable marks = new ApartTable(database, config.table().table());
        out.printf("%,d pairs of %s marked apart%n", marks.count(), config.table().table());
        for (ApartTable.Mark m : marks.list(limit)) {
          out.printf(
              "  %d %d  %s%s  %s%n",
              m.idA(),
              m.idB(),
              m.reason(),
              m.runId() == null ? "" : " (run " + m.runId() + ")",
              m.createdAt().toString().replace('T', ' '));
        }
      }
      return ExitCodes.OK;
    }
  }

  /** {@code dedup apart add ID1 ID2}. */
  @Command(
      name = "add",
      mixinStandardHelpOptions = true,
      description = {
        "Marks two rows as not duplicates, so that no later run removes one in favour of the other.",
        "Each id must be a row of the table or of its archive."
      })
  static final class AddMark implements Callable<Integer> {
    @Mixin ExitCodes.Help exitCodes;
    @Mixin ConfigOptions options;

    @Parameters(index = "0", paramLabel = "ID1")
    long idA;

    @Parameters(index = "1", paramLabel = "ID2")
    long idB;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      DedupConfig config = options.load();
      try (Database database = ConfigOptions.openDatabase(config)) {
        TableSpec table = config.table();
        RunLog.ensureTables(database);
        requireRow(database, table, idA);
        requireRow(database, table, idB);
        ApartTable marks = new ApartTable(database, table.table());
        boolean added = marks.add(idA, idB);
        marks.saveSnapshot(config.indexDir());
        spec.commandLine()
            .getOut()
            .printf(
                added
                    ? "marked %d and %d apart on %s%n"
                    : "%d and %d were already marked apart on %s%n",
                idA,
                idB,
                table.table());
      }
      return ExitCodes.OK;
    }

    /** A typo in an id would make a mark that keeps nothing apart: the id must name a row. */
    private static void requireRow(Database database, TableSpec table, long id) {
      boolean found =
          database
              .jdbi()
              .withHandle(
                  h -> {
                    String idColumn = TableSpec.quote(table.idColumn());
                    if (!h.createQuery(
                            "SELECT 1 FROM "
                                + TableSpec.quote(table.table())
                                + " WHERE "
                                + idColumn
                                + " = ?")
                        .bind(0, id)
                        .mapTo(Integer.class)
                        .list()
                        .isEmpty()) {
                      return true;
                    }
                    boolean archive =
                        !h.createQuery(
                                "SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE()"
                                    + " AND table_name = ?")
                            .bind(0, table.removedTable())
                            .mapTo(Integer.class)
                            .list()
                            .isEmpty();
                    return archive
                        && !h.createQuery(
                                "SELECT 1 FROM "
                                    + TableSpec.quote(table.removedTable())
                                    + " WHERE "
                                    + idColumn
                                    + " = ? LIMIT 1")
                            .bind(0, id)
                            .mapTo(Integer.class)
                            .list()
                            .isEmpty();
                  });
      if (!found) {
        throw new BadInputException(
            "apart add: no row with "
                + table.idColumn()
                + " "
                + id
                + " in "
                + table.table()
                + " or "
                + table.removedTable());
      }
    }
  }

  /** {@code dedup apart remove ID1 ID2}. */
  @Command(
      name = "remove",
      mixinStandardHelpOptions = true,
      description = "Forgets the mark of two rows: the next run may find them duplicates again.")
  static final class RemoveMark implements Callable<Integer> {
    @Mixin ExitCodes.Help exitCodes;
    @Mixin ConfigOptions options;

    @Parameters(index = "0", paramLabel = "ID1")
    long idA;

    @Parameters(index = "1", paramLabel = "ID2")
    long idB;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      DedupConfig config = options.load();
      try (Database database = ConfigOptions.openDatabase(config)) {
        ApartTable marks = new ApartTable(database, config.table().table());
        boolean removed = marks.remove(idA, idB);
        marks.saveSnapshot(config.indexDir());
        if (!removed) {
          throw new BadInputException(
              "apart remove: "
                  + idA
                  + " and "
                  + idB
                  + " are not marked apart on "
                  + config.table().table()
                  + " (see `dedup apart list`)");
        }
        spec.commandLine()
            .getOut()
            .printf("forgot the mark of %d and %d on %s%n", idA, idB, config.table().table());
      }
      return ExitCodes.OK;
    }
  }
}
