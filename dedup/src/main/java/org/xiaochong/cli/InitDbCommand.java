package org.xiaochong.cli;

import java.util.concurrent.Callable;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.source.Database;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code dedup init-db}: creates the sample table (when missing) and the bookkeeping tables. */
@Command(
    name = "init-db",
    mixinStandardHelpOptions = true,
    description = {
      "Creates the sample table supply_demand (sql/schema.sql) if it does not exist, and the",
      "bookkeeping tables dedup_run and dedup_plan (sql/dedup.sql)."
    })
final class InitDbCommand implements Callable<Integer> {
  @Mixin ExitCodes.Help exitCodes;
  @Mixin ConfigOptions options;
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    DedupConfig config = options.load();
    try (Database database = ConfigOptions.openDatabase(config)) {
      boolean exists =
          !database
              .jdbi()
              .withHandle(
                  h ->
                      h.createQuery(
                              "SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'supply_demand'")
                          .mapTo(Integer.class)
                          .list())
              .isEmpty();
      if (!exists) {
        database.runScript("/sql/schema.sql");
      }
      org.xiaochong.archive.RunLog.ensureTables(database);
      spec.commandLine()
          .getOut()
          .println(
              (exists ? "supply_demand exists; " : "created supply_demand; ")
                  + "dedup_run and dedup_plan ready in "
                  + database.displayUrl());
    }
    return ExitCodes.OK;
  }
}
