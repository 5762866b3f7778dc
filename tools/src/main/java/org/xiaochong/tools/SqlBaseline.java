package org.xiaochong.tools;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;

/**
 * The baseline of {@code dedup bench}: the same exact dedup done by MariaDB in SQL on a copy of the
 * table ({@code supply_demand_sqlbench}), an MD5(CONCAT_WS(…)) column, an index on it, a SELECT of
 * the rows with a newer twin and a DELETE, each stage timed.
 */
final class SqlBaseline {
  private SqlBaseline() {}

  /** Copies supply_demand to supply_demand_sqlbench (replacing an earlier copy). */
  static void copyTable(Database database) {
    database
        .jdbi()
        .useHandle(
            h -> {
              h.execute("DROP TABLE IF EXISTS supply_demand_sqlbench");
              h.execute("CREATE TABLE supply_demand_sqlbench LIKE supply_demand");
              h.execute("INSERT INTO supply_demand_sqlbench SELECT * FROM supply_demand");
            });
  }

  /**
   * Runs the SQL way on the copy once the server is idle, prints its stages and its ratio to {@code
   * ourSeconds} (xiaochong's run), then drops the copy.
   */
  static void run(PrintWriter out, Database database, TableSpec spec, double ourSeconds) {
    BenchCommand.printQuiesce(
        out, "before the SQL way", ServerQuiesce.waitUntilIdle(database, BenchCommand.QUIESCE_MAX));
    Map<String, Double> sql = stages(database, spec);
    double sqlTotal = sql.values().stream().mapToDouble(Double::doubleValue).sum();
    out.println();
    out.printf("MariaDB doing the same exact dedup in SQL on a copy of the table:%n");
    for (Map.Entry<String, Double> stage : sql.entrySet()) {
      out.printf("  %-12s %7.2f s%n", stage.getKey(), stage.getValue());
    }
    out.printf("  total        %7.2f s%n", sqlTotal);
    long sqlRemoved =
        database
            .jdbi()
            .withHandle(
                h -> h.createQuery("SELECT COUNT(*) FROM sqlbench_doomed").mapTo(Long.class).one());
    out.printf(
        "  removed %,d (byte-identical fields only: SQL has no normalization)%n", sqlRemoved);
    out.println();
    out.printf(
        "ratio: xiaochong %.2f s / SQL %.2f s = %.2f%n",
        ourSeconds, sqlTotal, ourSeconds / sqlTotal);
    database
        .jdbi()
        .useHandle(
            h -> {
              h.execute("DROP TABLE IF EXISTS supply_demand_sqlbench");
              h.execute("DROP TABLE IF EXISTS sqlbench_doomed");
            });
  }

  /** The SQL way, stage by stage, on supply_demand_sqlbench. */
  private static Map<String, Double> stages(Database database, TableSpec spec) {
    Map<String, Double> seconds = new LinkedHashMap<>();
    String fields =
        spec.exactFields().stream().map(TableSpec::quote).collect(Collectors.joining(", "));
    try (Handle h = database.jdbi().open()) {
      h.execute("ALTER TABLE supply_demand_sqlbench ADD COLUMN md5 CHAR(32)");
      long t = System.nanoTime();
      h.execute("UPDATE supply_demand_sqlbench SET md5 = MD5(CONCAT_WS(0x1F, " + fields + "))");
      seconds.put("md5 update", (System.nanoTime() - t) / 1e9);
      t = System.nanoTime();
      h.execute("CREATE INDEX sqlbench_md5 ON supply_demand_sqlbench (md5)");
      seconds.put("index", (System.nanoTime() - t) / 1e9);
      t = System.nanoTime();
      h.execute("DROP TABLE IF EXISTS sqlbench_doomed");
      // A row goes when a twin is kept over it.
      h.execute(
          "CREATE TABLE sqlbench_doomed (id BIGINT PRIMARY KEY) ENGINE=InnoDB AS"
              + " SELECT DISTINCT a.id FROM supply_demand_sqlbench a JOIN supply_demand_sqlbench b ON a.md5 = b.md5"
              + " AND "
              + KeepPolicy.latest("reg_time").sqlPreferred("b", "a", "id", java.util.Set.of()));
      seconds.put("select", (System.nanoTime() - t) / 1e9);
      t = System.nanoTime();
      h.execute("DELETE s FROM supply_demand_sqlbench s JOIN sqlbench_doomed d ON s.id = d.id");
      seconds.put("delete", (System.nanoTime() - t) / 1e9);
    }
    return seconds;
  }
}
