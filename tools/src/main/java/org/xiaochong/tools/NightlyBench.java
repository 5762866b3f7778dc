package org.xiaochong.tools;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.cli.ConfigOptions;
import org.xiaochong.config.ConfiguredIndex;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.run.RunSummary;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;

/**
 * {@code bench --incremental}: a day's changes, the nightly run on them, and a full dry run to
 * compare.
 */
final class NightlyBench {
  private NightlyBench() {}

  /**
   * The table a full dry run reads in {@code --incremental}: the changed table as the nightly run
   * finds it.
   */
  private static final String FULL_COPY = "supply_demand_full";

  /**
   * {@code --incremental}: changes 1 % of the rows as a day of a site would, copies the table,
   * times the nightly run --apply (the records indexed since the full run, against the whole
   * index), then a full dry run with a fresh index on the copy, and compares their (removed, kept)
   * pairs.
   */
  static void run(
      PrintWriter out, Database database, DedupConfig config, Path dataDir, double fullSeconds) {
    Map<String, Long> changes = changeOnePercent(database, config.table());
    database
        .jdbi()
        .useHandle(
            h -> {
              h.execute("DROP TABLE IF EXISTS " + FULL_COPY);
              h.execute("CREATE TABLE " + FULL_COPY + " LIKE supply_demand");
              h.execute("INSERT INTO " + FULL_COPY + " SELECT * FROM supply_demand");
            });
    out.println();
    out.printf("changed the table: %s%n", changes);

    BenchCommand.printQuiesce(
        out,
        "before the nightly run",
        ServerQuiesce.waitUntilIdle(database, BenchCommand.QUIESCE_MAX));
    DedupRunner.Outcome nightly;
    try (FingerprintIndex index = ConfiguredIndex.open(config, false)) {
      nightly =
          ConfigOptions.runner(config, database, index, Progress.NONE, note -> {})
              .run(new DedupRunner.Options("exact", null, null, true, false, true));
    }
    RunSummary n = nightly.summary();

    Properties props = new Properties();
    props.setProperty("data.dir", dataDir.toString());
    props.setProperty("source.table", FULL_COPY);
    props.setProperty("index.dir", dataDir.resolve("index-full").toString());
    DedupConfig fullConfig = DedupConfig.fromProperties(props, Map.of());
    EvalCommand.deleteTree(fullConfig.indexDir());
    BenchCommand.printQuiesce(
        out,
        "before the full dry run",
        ServerQuiesce.waitUntilIdle(database, BenchCommand.QUIESCE_MAX));
    DedupRunner.Outcome full;
    try (FingerprintIndex index = ConfiguredIndex.open(fullConfig, true)) {
      full =
          ConfigOptions.runner(fullConfig, database, index, Progress.NONE, note -> {})
              .run(new DedupRunner.Options("exact", null, null, false, false, false));
    }
    EvalCommand.deleteTree(fullConfig.indexDir());
    database.jdbi().useHandle(h -> h.execute("DROP TABLE IF EXISTS " + FULL_COPY));

    Set<String> nightlyPairs = pairs(nightly.plan());
    Set<String> fullPairs = pairs(full.plan());
    out.println();
    out.printf(
        "nightly run --apply (%s): %,d records examined of %,d; index: %,d added, %,d changed, %,d dropped;"
            + " %,d removed%n",
        n.window(),
        n.recordsExamined(),
        n.recordsRead(),
        n.indexAdded(),
        n.indexChanged(),
        n.indexDeleted(),
        n.removed("exact"));
    for (Map.Entry<String, Double> stage : n.seconds().entrySet()) {
      out.printf("  %-8s %7.2f s%n", stage.getKey(), stage.getValue());
    }
    out.printf(
        "full dry run on a copy, fresh index: %.2f s, %,d removed%n",
        full.summary().totalSeconds(), full.summary().removed("exact"));
    out.printf(
        "decisions: %s (nightly %,d pairs, full %,d pairs)%n",
        nightlyPairs.equals(fullPairs) ? "identical" : "DIFFERENT",
        nightlyPairs.size(),
        fullPairs.size());
    if (!nightlyPairs.equals(fullPairs)) {
      Set<String> onlyNightly = new TreeSet<>(nightlyPairs);
      onlyNightly.removeAll(fullPairs);
      Set<String> onlyFull = new TreeSet<>(fullPairs);
      onlyFull.removeAll(nightlyPairs);
      out.printf("  only nightly: %s%n  only full: %s%n", first(onlyNightly), first(onlyFull));
    }
    out.printf(
        "incremental ratio: nightly %.2f s / full run --apply %.2f s = %.3f%n",
        n.totalSeconds(), fullSeconds, n.totalSeconds() / fullSeconds);
  }

  private static String first(Set<String> pairs) {
    return pairs.stream().limit(10).collect(Collectors.joining(", "))
        + (pairs.size() > 10 ? ", …" : "");
  }

  private static Set<String> pairs(DeletionPlan plan) {
    Set<String> pairs = new HashSet<>();
    for (int i = 0; i < plan.size(); i++) {
      pairs.add(plan.removedId(i) + "->" + plan.keptId(i));
    }
    return pairs;
  }

  /**
   * Changes about 1 % of the rows, in four equal parts picked by id modulo: new rows that copy an
   * existing post with today's time (its old copy must go), new posts (an existing post with its id
   * appended to title and content), posts rewritten into a copy of the next row, and posts re-dated
   * to now (a "refresh": the re-dated post is now the one to keep). Returns the rows each part
   * touched.
   */
  private static Map<String, Long> changeOnePercent(Database database, TableSpec spec) {
    Map<String, Long> touched = new LinkedHashMap<>();
    try (Handle h = database.jdbi().open()) {
      long rows = h.createQuery("SELECT COUNT(*) FROM supply_demand").mapTo(Long.class).one();
      long maxId =
          h.createQuery("SELECT COALESCE(MAX(id), 0) FROM supply_demand").mapTo(Long.class).one();
      long modulo = Math.max(8, rows / Math.max(1, rows / 400)); // each part ~rows/400: 1 % in all
      String columns = String.join(", ", TableSpec.SAMPLE_TEXT_COLUMNS);
      touched.put(
          "copies",
          (long)
              h.createUpdate(
                      "INSERT INTO supply_demand (id, "
                          + columns
                          + ", reg_time) SELECT id + "
                          + maxId
                          + ", "
                          + columns
                          + ", NOW() FROM supply_demand WHERE id % "
                          + modulo
                          + " = 3")
                  .execute());
      String renamed =
          TableSpec.SAMPLE_TEXT_COLUMNS.stream()
              .map(c -> c.equals("title") || c.equals("content") ? "CONCAT(" + c + ", ' ', id)" : c)
              .collect(Collectors.joining(", "));
      touched.put(
          "new posts",
          (long)
              h.createUpdate(
                      "INSERT INTO supply_demand (id, "
                          + columns
                          + ", reg_time) SELECT id + "
                          + maxId
                          + ", "
                          + renamed
                          + ", reg_time FROM supply_demand WHERE id % "
                          + modulo
                          + " = 4")
                  .execute());
      String copied =
          TableSpec.SAMPLE_TEXT_COLUMNS.stream()
              .map(c -> "t." + c + " = s." + c)
              .collect(Collectors.joining(", "));
      touched.put(
          "rewritten",
          (long)
              h.createUpdate(
                      "UPDATE supply_demand t JOIN supply_demand s ON s.id = t.id + 1 SET "
                          + copied
                          + " WHERE t.id % "
                          + modulo
                          + " = 5 AND t.id <= "
                          + maxId)
                  .execute());
      touched.put(
          "re-dated",
          (long)
              h.createUpdate(
                      "UPDATE supply_demand SET reg_time = NOW() WHERE id % "
                          + modulo
                          + " = 6 AND id <= "
                          + maxId)
                  .execute());
    }
    return touched;
  }
}
