package org.xiaochong.cli;

import java.util.concurrent.Callable;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.ConfiguredIndex;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSync;
import org.xiaochong.run.TableLock;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code dedup index}: brings the fingerprint index up to date with the table. */
@Command(
    name = "index",
    mixinStandardHelpOptions = true,
    description = {
      "Adds the rows not yet indexed and drops ids that left the table (`run` does this itself).",
      "--rebuild starts from an empty index (after changing fields.* or upgrading); `check` and",
      "`serve` read the index it replaces until the rebuilt one is complete."
    })
final class IndexCommand implements Callable<Integer> {
  @Mixin ExitCodes.Help exitCodes;
  @Mixin ConfigOptions options;

  @Option(names = "--rebuild", description = "Rebuild the index from scratch.")
  boolean rebuild;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    DedupConfig config = options.load();
    try (Database database = ConfigOptions.openDatabase(config);
        TableLock lock =
            TableLock.acquire(database, config.table(), rebuild ? "index --rebuild" : "index");
        FingerprintIndex index =
            ConfiguredIndex.openHandedOver(config, rebuild, spec.commandLine().getErr()::println)) {
      RecordSource source =
          new RecordSource(database, config.table()).withChunkRows(config.readChunkRows());
      source.checkSchema();
      IndexSync.Result result =
          ConfigOptions.runner(
                  config,
                  database,
                  index,
                  ConsoleProgress.forThisProcess(),
                  spec.commandLine().getOut()::println)
              .syncIndex(source);
      spec.commandLine()
          .getOut()
          .printf(
              "index %s: %,d rows in the table, %,d added, %,d changed, %,d dropped in %.1f s (%,.0f rows/s)%n",
              config.indexDir(),
              result.tableRows(),
              result.added(),
              result.changed(),
              result.deleted(),
              result.seconds(),
              result.seconds() > 0 ? result.tableRows() / result.seconds() : 0.0);
    }
    return ExitCodes.OK;
  }
}
