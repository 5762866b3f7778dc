package org.xiaochong.tools;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.LongSupplier;
import java.util.stream.LongStream;
import org.xiaochong.archive.ApartClusters;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.archive.ApartTable;
import org.xiaochong.archive.RunLog;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code dedup bench apart}: what the marks of a restored group cost as it grows. For each size n,
 * an archive holding n rows removed for one kept row (only the columns the marks read), then: the
 * restore's marking of them ({@link ApartTable#markRestored}, in batches of 1,000 as {@code
 * restore} moves rows), the load a run, a restore and a Spark driver do ({@link ApartTable#load}),
 * the snapshot load {@code check} and {@code serve} do ({@link ApartPairs#load}), and the exact
 * pass's decision of the group of n + 1 twins ({@link ApartClusters}). Medians of {@code --repeat}
 * timings; the marks' rows per restored row.
 */
@Command(
    name = "apart",
    mixinStandardHelpOptions = true,
    description =
        "Times the marks of a restored group of n rows: restore, load, snapshot, decision.")
final class ApartBenchCommand implements Callable<Integer> {
  @Mixin ExitCodes.Help exitCodes;

  @Option(
      names = "--rows",
      split = ",",
      defaultValue = "1000,10000,100000",
      description = "Restored rows per trial (default ${DEFAULT-VALUE}).")
  List<Integer> sizes;

  @Option(
      names = "--repeat",
      defaultValue = "5",
      description = "Timings per figure; the median is printed (default ${DEFAULT-VALUE}).")
  int repeat;

  @Option(
      names = "--data-dir",
      defaultValue = "data/bench-apart",
      description = "Scratch folder of the embedded server (default ${DEFAULT-VALUE}).")
  Path dataDir;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    DedupConfig config = DedupConfig.forDataDir(dataDir);
    String table = "apart_bench";
    TableSpec tableSpec = new TableSpec(table, "id", "reg_time", List.of("content"), List.of());
    Path snapshot = Files.createDirectories(dataDir).resolve(ApartPairs.FILE);
    try (Database database = Database.open(config.db())) {
      RunLog.ensureTables(database);
      out.printf(
          "%9s  %10s  %12s  %10s  %12s  %12s  %10s%n",
          "restored",
          "mark rows",
          "rows/restored",
          "restore ms",
          "run load ms",
          "check load ms",
          "exact ms");
      for (int n : sizes) {
        database
            .jdbi()
            .useHandle(
                h -> {
                  h.execute("DROP TABLE IF EXISTS " + table + "_removed");
                  h.execute(
                      "CREATE TABLE "
                          + table
                          + "_removed (id BIGINT NOT NULL, dedup_run_id BIGINT NOT NULL,"
                          + " dedup_kept_id BIGINT NOT NULL, PRIMARY KEY (dedup_run_id, id),"
                          + " KEY (dedup_kept_id)) ENGINE=InnoDB");
                  for (int from = 1; from <= n; from += 1_000) {
                    StringBuilder sql =
                        new StringBuilder("INSERT INTO " + table + "_removed VALUES ");
                    for (int id = from; id < Math.min(n + 1, from + 1_000); id++) {
                      sql.append(id == from ? "" : ",").append("(").append(id).append(", 1, 0)");
                    }
                    h.execute(sql.toString());
                  }
                });
        ApartTable marks = new ApartTable(database, table);
        double restoreMs =
            median(
                () -> {
                  clear(database, table);
                  long t = System.nanoTime();
                  for (long lo = 0; lo < n; lo += 1_000) {
                    long from = lo;
                    database
                        .jdbi()
                        .useTransaction(
                            h -> ApartTable.markRestored(h, tableSpec, 1, from, from + 1_000));
                  }
                  return System.nanoTime() - t;
                });
        ApartTable.Counts counts = marks.counts();
        double loadMs = median(() -> timed(marks::load));
        marks.load().save(snapshot);
        double checkMs = median(() -> timed(() -> ApartPairs.load(snapshot)));
        ApartPairs loaded = marks.load();
        long[] ids = LongStream.rangeClosed(0, n).map(i -> n - i).toArray(); // kept row 0 last
        double exactMs = median(() -> timed(() -> ApartClusters.removedFor(ids, loaded)));
        out.printf(
            "%,9d  %,10d  %12.3f  %10.1f  %12.1f  %12.1f  %10.1f%n",
            n,
            counts.groups() + counts.groupRows() + counts.pairs(),
            (counts.groups() + counts.groupRows() + counts.pairs()) / (double) n,
            restoreMs,
            loadMs,
            checkMs,
            exactMs);
        out.flush();
      }
      clear(database, table);
      database.jdbi().useHandle(h -> h.execute("DROP TABLE IF EXISTS " + table + "_removed"));
    }
    return ExitCodes.OK;
  }

  private static void clear(Database database, String table) {
    database
        .jdbi()
        .useHandle(
            h -> {
              h.execute("DELETE FROM dedup_apart_member WHERE source_table = ?", table);
              h.execute("DELETE FROM dedup_apart_group WHERE source_table = ?", table);
            });
  }

  private static long timed(Runnable work) {
    long t = System.nanoTime();
    work.run();
    return System.nanoTime() - t;
  }

  private double median(LongSupplier nanos) {
    List<Long> times = new ArrayList<>();
    for (int i = 0; i < Math.max(1, repeat); i++) {
      times.add(nanos.getAsLong());
    }
    long[] sorted = times.stream().mapToLong(Long::longValue).sorted().toArray();
    return sorted[sorted.length / 2] / 1e6;
  }
}
