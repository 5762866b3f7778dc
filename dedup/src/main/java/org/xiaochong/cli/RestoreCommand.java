package org.xiaochong.cli;

import java.util.concurrent.Callable;
import org.xiaochong.archive.ApartTable;
import org.xiaochong.archive.ArchiveTables;
import org.xiaochong.archive.Restorer;
import org.xiaochong.archive.RowsMovedException;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.ConfiguredIndex;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.TableLock;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code dedup restore --run ID}: puts the rows a run removed back into the table. */
@Command(
    name = "restore",
    mixinStandardHelpOptions = true,
    description = {
      "Moves the rows that run ID archived in <table>_removed back into the table, with their",
      "original ids and values, and re-indexes them (the near index too, when a near run built it).",
      "Each row put back is marked apart from the row it had been removed for and from the rows removed",
      "with it (`dedup apart list`), so later runs do not remove it again."
    })
final class RestoreCommand implements Callable<Integer> {
  @Mixin ExitCodes.MovesRows exitCodes;
  @Mixin ConfigOptions options;

  @Option(
      names = "--run",
      required = true,
      paramLabel = "ID",
      description = "The run to undo (see `dedup stats`).")
  long runId;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    DedupConfig config = options.load();
    try (Database database = ConfigOptions.openDatabase(config);
        TableLock lock =
            TableLock.acquire(database, config.table(), "restore --run " + runId)
                .onLoss(spec.commandLine().getOut()::println);
        FingerprintIndex index =
            ConfiguredIndex.openHandedOver(config, false, spec.commandLine().getErr()::println)) {
      RecordSource source =
          new RecordSource(database, config.table()).withChunkRows(config.readChunkRows());
      ArchiveTables archive = ArchiveTables.ensure(database, config.table(), source.checkSchema());
      Restorer.Restored restored =
          new Restorer(archive)
              .withSettings(config.apply())
              .withLockCheck(lock::requireHeld)
              .restoreRun(runId);
      new ApartTable(database, config.table().table())
          .saveSnapshot(config.indexDir()); // its marks, for check
      try {
        ConfigOptions.runner(
                config, database, index, Progress.NONE, spec.commandLine().getErr()::println)
            .syncIndexesInStep(source);
      } catch (RuntimeException e) {
        if (restored.rows() == 0) {
          throw e;
        }
        throw new RowsMovedException(
            String.format(
                "restore of run %d put back %,d rows (done; the next run brings"
                    + " the index up to date)",
                runId, restored.rows()),
            restored.rows(),
            e);
      }
      spec.commandLine()
          .getOut()
          .printf(
              "restored %,d rows of run %d into %s%n",
              restored.rows(), runId, config.table().table());
      if (restored.childRows() + restored.childRowsLeft() > 0) {
        spec.commandLine()
            .getOut()
            .printf(
                "restored %,d child rows that the run had re-pointed to the kept rows%s%n",
                restored.childRows(),
                restored.childRowsLeft() == 0
                    ? ""
                    : String.format(
                        "; %,d left as they are" + " (changed or deleted since)",
                        restored.childRowsLeft()));
      }
    }
    return ExitCodes.OK;
  }
}
