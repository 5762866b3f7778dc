package org.xiaochong.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.xiaochong.archive.ApartTable;
import org.xiaochong.archive.RunLog;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code dedup apart list|add|remove}: the rows marked as not duplicates, as pairs ({@code
 * dedup_apart}, by hand) and as groups ({@code dedup_apart_group}, by {@code restore}). These
 * commands show the marks, add a pair before an apply, and forget a pair or a whole group.
 */
@Command(
    name = "apart",
    mixinStandardHelpOptions = true,
    description = {
      "Rows marked as not duplicates: no run, check or apply removes one of a pair or of a group in",
      "favour of another. `restore` marks each group of rows it puts back (the rows and the row they",
      "had been removed for) as a group; `apart add` marks a pair by hand."
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
      description = "Lists the marks of the table: the pairs, then the restored groups.")
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
        ApartTable.Counts counts = marks.counts();
        out.printf("%,d pairs of %s marked apart%n", counts.pairs(), config.table().table());
        for (ApartTable.Mark m : marks.list(limit)) {
          out.printf(
              "  %d %d  %s%s  %s%n",
              m.idA(),
              m.idB(),
              m.reason(),
              m.runId() == null ? "" : " (run " + m.runId() + ")",
              m.createdAt().toString().replace('T', ' '));
        }
        out.printf(
            "%,d restored groups of %s marked apart (%,d rows)%n",
            counts.groups(), config.table().table(), counts.groupRows());
        for (ApartTable.Group g : marks.groups(limit)) {
          out.printf(
              "  group %d: %,d rows, %s (run %d), removed for %d  %s%n",
              g.id(),
              g.rows(),
              g.reason(),
              g.runId(),
              g.anchorId(),
              g.createdAt().toString().replace('T', ' '));
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

  /** {@code dedup apart remove ID1 ID2} or {@code dedup apart remove --group G}. */
  @Command(
      name = "remove",
      mixinStandardHelpOptions = true,
      description = {
        "Forgets the mark of two rows, or with --group a whole restored group: the next run may",
        "find them duplicates again."
      })
  static final class RemoveMark implements Callable<Integer> {
    @Mixin ExitCodes.Help exitCodes;
    @Mixin ConfigOptions options;

    @Parameters(arity = "0..2", paramLabel = "ID", description = "The two rows of a marked pair.")
    List<Long> ids = new ArrayList<>();

    @Option(
        names = "--group",
        paramLabel = "G",
        description = "Forget restored group G (`dedup apart list` shows the groups).")
    Long group;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      if ((group == null) == (ids.size() != 2)) {
        throw new BadInputException(
            "apart remove: give two row ids or --group G, not "
                + (group == null ? ids.size() + " ids" : "both"));
      }
      DedupConfig config = options.load();
      String table = config.table().table();
      PrintWriter out = spec.commandLine().getOut();
      try (Database database = ConfigOptions.openDatabase(config)) {
        ApartTable marks = new ApartTable(database, table);
        if (group != null) {
          int rows = marks.removeGroup(group);
          if (rows == 0) {
            throw new BadInputException(
                "apart remove: no group " + group + " on " + table + " (see `dedup apart list`)");
          }
          marks.saveSnapshot(config.indexDir());
          out.printf("forgot group %d of %s (%,d rows)%n", group, table, rows);
          return ExitCodes.OK;
        }
        long idA = ids.get(0);
        long idB = ids.get(1);
        boolean removed = marks.remove(idA, idB);
        marks.saveSnapshot(config.indexDir());
        if (!removed) {
          List<Long> shared = marks.sharedGroups(idA, idB);
          throw new BadInputException(
              "apart remove: "
                  + idA
                  + " and "
                  + idB
                  + (shared.isEmpty()
                      ? " are not marked apart on " + table + " (see `dedup apart list`)"
                      : " are apart as rows of restored group "
                          + shared.get(0)
                          + " on "
                          + table
                          + "; `dedup apart remove --group "
                          + shared.get(0)
                          + "` forgets the whole group"));
        }
        out.printf("forgot the mark of %d and %d on %s%n", idA, idB, table);
      }
      return ExitCodes.OK;
    }
  }
}
