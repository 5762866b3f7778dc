package org.xiaochong.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.util.concurrent.Callable;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.FSDirectory;
import org.xiaochong.archive.ApartTable;
import org.xiaochong.archive.ArchiveTables;
import org.xiaochong.archive.RunLog;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code dedup stats}: rows in the table, the archive and the index, and the latest runs. */
@Command(
    name = "stats",
    mixinStandardHelpOptions = true,
    description = "Shows rows in the table, the archive and the index, and the latest runs.")
final class StatsCommand implements Callable<Integer> {
  @Mixin ExitCodes.Help exitCodes;
  @Mixin ConfigOptions options;
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    DedupConfig config = options.load();
    PrintWriter out = spec.commandLine().getOut();
    try (Database database = ConfigOptions.openDatabase(config)) {
      RecordSource source = new RecordSource(database, config.table());
      ArchiveTables archive = ArchiveTables.ensure(database, config.table(), source.checkSchema());
      out.printf(
          "table %s: %,d rows; archive %s: %,d rows%n",
          config.table().table(),
          source.count(),
          config.table().removedTable(),
          archive.archivedRows());
      if (Files.isDirectory(config.indexDir())) {
        try (FSDirectory dir = FSDirectory.open(config.indexDir())) {
          if (DirectoryReader.indexExists(dir)) {
            try (DirectoryReader reader = DirectoryReader.open(dir)) {
              out.printf("index %s: %,d records%n", config.indexDir(), reader.numDocs());
            }
          }
        }
      } else {
        out.printf("index %s: not built yet (run `dedup index`)%n", config.indexDir());
      }
      ApartTable.Counts marks = new ApartTable(database, config.table().table()).counts();
      out.printf(
          "marks: %,d pairs and %,d rows in %,d restored groups kept apart (`dedup apart list`)%n",
          marks.pairs(), marks.groupRows(), marks.groups());
      out.println("latest runs:");
      out.printf(
          "  %6s  %-10s  %-8s  %-9s  %10s  %-23s  %s%n",
          "id", "method", "applied", "status", "records", "started (UTC)", "removed per rule");
      for (RunLog.RunRow r : new RunLog(database, config.table().table()).runs(10)) {
        String removed =
            r.removedByMethod().entrySet().stream()
                .map(e -> String.format("%s %,d", e.getKey(), e.getValue()))
                .collect(java.util.stream.Collectors.joining(", "));
        out.printf(
            "  %6d  %-10s  %-8s  %-9s  %,10d  %-23s  %s%n",
            r.id(), r.method(), r.applied(), r.status(), r.recordsRead(), r.startedAt(), removed);
      }
    }
    return ExitCodes.OK;
  }
}
