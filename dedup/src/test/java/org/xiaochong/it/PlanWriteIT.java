package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mysql.cj.jdbc.JdbcStatement;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.ArchiveTables;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.archive.PlanMover;
import org.xiaochong.archive.RunLog;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.TableSpec;

/**
 * The plan is written with LOAD DATA LOCAL INFILE where the server takes local data and with
 * batched INSERTs where it does not ({@code local_infile} off): both give the same dedup_plan rows,
 * in removed-id order. The loading connection never sends a file, whatever the server asks for.
 */
@Tag("db")
class PlanWriteIT extends DbTestSupport {
  @TempDir Path dir;

  @Test
  void writePlanAndApply_loadDataAndInsert_samePlanRows() throws Exception {
    PostLoader.recreateTable(database());
    TableSpec spec = TableSpec.sample();
    List<String> columns = new RecordSource(database(), spec).checkSchema();
    DeletionPlan plan = new DeletionPlan();
    // More rows than many LOAD DATA chunks (a batch, 10,000, each), ids out of order, both rules,
    // fractional scores.
    for (int i = 0; i < 120_003; i++) {
      long removed = (i * 7919L) % 1_000_003 + 1;
      plan.add(
          removed,
          removed + 2_000_000,
          i % 3 == 0 ? DeletionPlan.Rule.of("near") : DeletionPlan.Rule.of("exact"),
          i % 3 == 0 ? 0.6 + (i % 97) / 250.0 : 1.0);
    }

    PlanMover embedded = new PlanMover(ArchiveTables.ensure(database(), spec, columns));
    long loadedRun =
        new RunLog(database(), spec.table()).startRun("both", true, "0".repeat(32), null, null);
    // The table is empty: the plan is written whole and nothing moves.
    assertThat(embedded.writePlanAndApply(loadedRun, plan, n -> {}).rowsMoved()).isZero();
    List<List<Object>> loaded = planRows(loadedRun);

    long insertedRun =
        withLocalInfileOff(
            () -> {
              try (Database external = Database.open(jdbcSettings(dir))) {
                assertThat(external.isEmbedded()).isFalse();
                assertThat(external.openLocalInfileConnection())
                    .as("no loader while local_infile is off")
                    .isNull();
                PlanMover viaJdbcUrl = new PlanMover(ArchiveTables.ensure(external, spec, columns));
                long run =
                    new RunLog(external, spec.table())
                        .startRun("both", true, "0".repeat(32), null, null);
                assertThat(viaJdbcUrl.writePlanAndApply(run, plan, n -> {}).rowsMoved()).isZero();
                return run;
              }
            });
    List<List<Object>> inserted = planRows(insertedRun);

    assertThat(loaded).hasSize(plan.size()).isEqualTo(inserted);
    int[] order = plan.orderByRemovedId();
    for (int seq : new int[] {0, 9_999, 10_000, 49_999, 50_000, 120_002}) {
      int i = order[seq];
      assertThat(loaded.get(seq))
          .containsExactly(
              seq, plan.removedId(i), plan.keptId(i), plan.rule(i).label, plan.score(i));
    }
  }

  /**
   * The plan written while its batches move: on both write paths (LOAD DATA, and INSERTs while the
   * server's local_infile is off), every planned row is moved, with its kept id, and every plan row
   * is there. A batch applied before its plan rows were committed would find none and move nothing
   * (0 archived = 0 deleted, no error), so "every planned row moved" is what proves the wait.
   */
  @Test
  void writePlanAndApply_planOfSeveralBatches_everyPlannedRowMoved() throws Exception {
    for (boolean embeddedPath : new boolean[] {true, false}) {
      PostLoader.recreateTable(database());
      int rows = 30_000;
      int removed = 25_003; // two workers, three full batches and a short one
      // Row ids with the same remainder mod 1000 hold the same post; the apply checks that each
      // planned pair still is one, so the plan pairs such rows (all of one date: the larger id
      // stays).
      useHandle(
          h ->
              h.execute(
                  "INSERT INTO supply_demand (id, title, content, reg_time)"
                      + " SELECT seq, CONCAT('帖子', seq % 1000), REPEAT('内容', seq % 1000 % 50), '2024-01-01' FROM seq_1_to_"
                      + rows));
      TableSpec spec = TableSpec.sample();
      List<String> columns = new RecordSource(database(), spec).checkSchema();
      DeletionPlan plan = new DeletionPlan();
      for (int i = removed; i >= 1; i--) { // added out of order: the plan sorts by removed id
        plan.add(i, keptId(i), DeletionPlan.Rule.of("exact"), 1.0);
      }

      PlanMover.Applied applied;
      long runId;
      if (embeddedPath) {
        PlanMover archive = new PlanMover(ArchiveTables.ensure(database(), spec, columns));
        runId =
            new RunLog(database(), spec.table())
                .startRun("exact", true, "0".repeat(32), null, null);
        applied = archive.writePlanAndApply(runId, plan, n -> {});
      } else {
        long[] run = new long[1];
        applied =
            withLocalInfileOff(
                () -> {
                  try (Database external = Database.open(jdbcSettings(dir))) {
                    PlanMover archive =
                        new PlanMover(ArchiveTables.ensure(external, spec, columns));
                    run[0] =
                        new RunLog(external, spec.table())
                            .startRun("exact", true, "0".repeat(32), null, null);
                    return archive.writePlanAndApply(run[0], plan, n -> {});
                  }
                });
        runId = run[0];
      }

      assertThat(applied.rowsMoved()).as("embedded path: %s", embeddedPath).isEqualTo(removed);
      assertThat(count("supply_demand")).isEqualTo(rows - removed);
      assertThat(ids("supply_demand")).first().isEqualTo((long) removed + 1);
      List<List<Long>> archived =
          withHandle(
              h ->
                  h.createQuery(
                          "SELECT id, dedup_kept_id FROM supply_demand_removed WHERE dedup_run_id = ? ORDER BY id")
                      .bind(0, runId)
                      .map((rs, ctx) -> List.of(rs.getLong(1), rs.getLong(2)))
                      .list());
      assertThat(archived).hasSize(removed);
      for (List<Long> row : archived) {
        assertThat(row.get(1)).isEqualTo(keptId(row.get(0)));
      }
      List<List<Object>> planned = planRows(runId);
      assertThat(planned).hasSize(removed);
      assertThat(planned.get(0)).containsExactly(0, 1L, keptId(1), "exact", 1.0);
      assertThat(planned.get(removed - 1))
          .containsExactly(removed - 1, (long) removed, keptId(removed), "exact", 1.0);
    }
  }

  /**
   * A server that asks the loading connection for a file of this machine (here: by running LOAD
   * DATA LOCAL with a file's name, which the server answers with exactly that request) gets the
   * session's stream, empty or the last plan chunk, never the file: the capability cannot leak
   * client files.
   */
  @Test
  void openLocalInfileConnection_serverAsksForAFile_getsNoFileContent() throws Exception {
    Path secret = dir.resolve("secret.txt");
    java.nio.file.Files.writeString(secret, "1\tsecret\n2\tsecret\n");
    try (Connection loader = database().openLocalInfileConnection();
        Statement statement = loader.createStatement()) {
      assertThat(loader).isNotNull();
      statement.execute("CREATE TEMPORARY TABLE infile_probe (a INT, b VARCHAR(20))");
      long beforeAnyStream =
          statement.executeLargeUpdate(
              "LOAD DATA LOCAL INFILE '" + secret + "' INTO TABLE infile_probe");
      statement
          .unwrap(JdbcStatement.class)
          .setLocalInfileInputStream(
              new ByteArrayInputStream("7\tplan\n".getBytes(StandardCharsets.US_ASCII)));
      long fromStream =
          statement.executeLargeUpdate("LOAD DATA LOCAL INFILE 'anything' INTO TABLE infile_probe");
      long afterStream =
          statement.executeLargeUpdate(
              "LOAD DATA LOCAL INFILE '" + secret + "' INTO TABLE infile_probe");

      assertThat(beforeAnyStream).isZero();
      assertThat(fromStream).isEqualTo(1);
      assertThat(afterStream).isZero();
      try (ResultSet rows =
          statement.executeQuery("SELECT COUNT(*), SUM(b = 'secret') FROM infile_probe")) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getLong(1)).isEqualTo(1);
        assertThat(rows.getLong(2)).isZero();
      }
    }
  }

  /** Runs {@code body} while the server refuses local data (as MySQL 8 does by default). */
  private static <T> T withLocalInfileOff(Callable<T> body) throws Exception {
    useHandle(h -> h.execute("SET GLOBAL local_infile = 0"));
    try {
      return body.call();
    } finally {
      useHandle(h -> h.execute("SET GLOBAL local_infile = 1"));
    }
  }

  /**
   * The kept twin of removed row {@code id}: the row of 29000-29999 with the same remainder mod
   * 1000.
   */
  private static long keptId(long id) {
    return 29_000 + id % 1000;
  }

  private static List<List<Object>> planRows(long runId) {
    return withHandle(
        h ->
            h.createQuery(
                    "SELECT seq, removed_id, kept_id, rule, score FROM dedup_plan WHERE run_id = ? ORDER BY seq")
                .bind(0, runId)
                .map(
                    (rs, ctx) ->
                        List.<Object>of(
                            rs.getInt(1),
                            rs.getLong(2),
                            rs.getLong(3),
                            rs.getString(4),
                            rs.getDouble(5)))
                .list());
  }
}
