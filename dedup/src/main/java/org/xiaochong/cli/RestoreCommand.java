package org.xiaochong.cli;

import java.util.concurrent.Callable;
import org.xiaochong.archive.ArchiveTables;
import org.xiaochong.archive.Restorer;
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
    description = {"Moves the rows that run ID archived in <table>_removed back into the table, with their",
        "original ids and values, and re-indexes them (the near index too, when a near run built it)."},
    footer = {"", "Exit codes: 0 success, 1 unexpected error (details with --verbose), 2 usage or configuration error."})
final class RestoreCommand implements Callable<Integer> {
  @Mixin ConfigOptions options;

  @Option(names = "--run", required = true, paramLabel = "ID", description = "The run to undo (see `dedup stats`).")
  long runId;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    DedupConfig config = options.load();
    try (Database database = ConfigOptions.openDatabase(config);
        TableLock lock = TableLock.acquire(database, config.table(), "restore --run " + runId);
        FingerprintIndex index = ConfigOptions.openIndex(config, false)) {
      RecordSource source = new RecordSource(database, config.table()).withChunkRows(config.readChunkRows());
      ArchiveTables archive = ArchiveTables.ensure(database, config.table(), source.checkSchema());
      long restored = new Restorer(archive).withSettings(config.apply()).withLockCheck(lock::requireHeld)
          .restore(runId);
      ConfigOptions.runner(config, database, index, Progress.NONE, spec.commandLine().getErr()::println)
          .syncIndexesInStep(source);
      spec.commandLine().getOut().printf("restored %,d rows of run %d into %s%n", restored, runId, config.table().table());
    }
    return ExitCodes.OK;
  }
}
