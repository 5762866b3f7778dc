package org.xiaochong.archive;

import com.mysql.cj.jdbc.JdbcStatement;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.IntConsumer;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.JdbiException;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SqlTime;

/**
 * The plans of runs in {@code dedup_plan}: one row per planned removal, numbered by {@code seq} in
 * removed-id order, with the states of the removed and kept rows the pass decided on.
 *
 * <p>A plan row is committed before the row it names moves ({@link PlanMover}), so an interrupted
 * run leaves every decision it acted on written down, and the next run can finish it. The rows are
 * committed a batch of the apply ({@link PlanMover#BATCH} rows) at a time, in seq order, so a batch
 * can move as soon as its plan rows are in. A finished run's plan is dropped: the archive keeps
 * every decision.
 *
 * <p>Thread-safe (state lives in the database).
 */
public final class PlanTable {

  private final Database database;

  public PlanTable(Database database) {
    this.database = database;
  }

  /** Deletes a run's plan (for a finished run: the archive keeps every decision). */
  public void drop(long runId) {
    database.jdbi().onDemand(PlanDao.class).drop(runId);
  }

  /** Deletes a run's plan in the caller's transaction. */
  static void drop(Handle handle, long runId) {
    handle.attach(PlanDao.class).drop(runId);
  }

  /** Plan rows of a run: one more than its last seq, 0 when it has none. */
  int size(long runId) {
    return database.jdbi().onDemand(PlanDao.class).size(runId);
  }

  /** The rules of a run's planned removals (method names). */
  Set<String> rules(long runId) {
    return database.jdbi().onDemand(PlanDao.class).rules(runId);
  }

  /**
   * Writes the plan rows (seq = position in {@code order}), a transaction per {@link
   * PlanMover#BATCH} rows (an apply batch), and calls {@code committed} with the end seq of each
   * committed one. LOAD DATA from memory where the server takes local data ({@link
   * Database#openLocalInfileConnection}), batched INSERTs where it does not; both write the same
   * rows.
   */
  void write(long runId, DeletionPlan plan, int[] order, IntConsumer committed) {
    int to = order.length;
    try (Connection loader = database.openLocalInfileConnection()) {
      if (loader != null) {
        load(loader, runId, plan, order, committed);
        return;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "writing the plan of run " + runId + " failed: " + Database.rootMessage(e), e);
    }
    try {
      database
          .jdbi()
          .useHandle(
              handle -> {
                PlanDao plans = handle.attach(PlanDao.class);
                List<PlanDao.Row> rows = new ArrayList<>(Math.min(to, PlanMover.BATCH));
                for (int chunk = 0; chunk < to; chunk += PlanMover.BATCH) {
                  int end = Math.min(to, chunk + PlanMover.BATCH);
                  rows.clear();
                  for (int seq = chunk; seq < end; seq++) {
                    int i = order[seq];
                    DeletionPlan.RowState removed = plan.removedState(i);
                    DeletionPlan.RowState kept = plan.keptState(i);
                    rows.add(
                        new PlanDao.Row(
                            runId,
                            seq,
                            plan.removedId(i),
                            plan.keptId(i),
                            plan.rule(i).label,
                            plan.score(i),
                            RecordSource.fromMillis(removed.time()),
                            removed.crc(),
                            RecordSource.fromMillis(kept.time()),
                            kept.crc()));
                  }
                  handle.useTransaction(h -> plans.insert(rows));
                  committed.accept(end);
                }
              });
    } catch (JdbiException e) {
      throw new IllegalStateException(
          "writing the plan of run " + runId + " failed: " + Database.rootMessage(e), e);
    }
  }

  /**
   * Writes the plan rows with LOAD DATA LOCAL INFILE from memory, a transaction per {@link
   * PlanMover#BATCH} rows: the server parses tab-separated numbers instead of multi-row INSERT
   * statements, about 3x less time for 261k rows on the embedded server (bench/RESULTS.md). LOCAL
   * turns rejected rows into warnings, so the loaded count is checked.
   */
  private static void load(
      Connection connection, long runId, DeletionPlan plan, int[] order, IntConsumer committed)
      throws SQLException {
    int to = order.length;
    connection.setAutoCommit(false);
    try (Statement statement = connection.createStatement()) {
      StringBuilder rows = new StringBuilder();
      for (int chunk = 0; chunk < to; chunk += PlanMover.BATCH) {
        int end = Math.min(to, chunk + PlanMover.BATCH);
        rows.setLength(0);
        for (int seq = chunk; seq < end; seq++) {
          int i = order[seq];
          DeletionPlan.RowState removed = plan.removedState(i);
          DeletionPlan.RowState kept = plan.keptState(i);
          rows.append(runId)
              .append('\t')
              .append(seq)
              .append('\t')
              .append(plan.removedId(i))
              .append('\t')
              .append(plan.keptId(i))
              .append('\t')
              .append(plan.rule(i).label)
              .append('\t')
              .append(plan.score(i))
              .append('\t');
          appendTime(rows, removed.time()).append('\t').append(removed.crc()).append('\t');
          appendTime(rows, kept.time()).append('\t').append(kept.crc()).append('\n');
        }
        // Only digits, '.', 'E', '-', ':', ' ', \N and rule labels: ASCII, nothing to escape.
        statement
            .unwrap(JdbcStatement.class)
            .setLocalInfileInputStream(
                new ByteArrayInputStream(rows.toString().getBytes(StandardCharsets.US_ASCII)));
        long loaded =
            statement.executeLargeUpdate(
                "LOAD DATA LOCAL INFILE 'dedup_plan' INTO TABLE dedup_plan"
                    + " FIELDS TERMINATED BY '\\t' LINES TERMINATED BY '\\n' (run_id, seq, removed_id, kept_id, rule, score,"
                    + " removed_time, removed_crc, kept_time, kept_crc)");
        if (loaded != end - chunk) {
          connection.rollback();
          throw new IllegalStateException(
              "writing the plan of run "
                  + runId
                  + ": loaded "
                  + loaded
                  + " of "
                  + (end - chunk)
                  + " rows (seq "
                  + chunk
                  + "-"
                  + end
                  + "); rolled back");
        }
        connection.commit();
        committed.accept(end);
      }
    }
  }

  /** Appends a plan time as the INSERT path binds it ({@link SqlTime#text}), NULL as \N. */
  private static StringBuilder appendTime(StringBuilder rows, long millis) {
    LocalDateTime time = RecordSource.fromMillis(millis);
    return time == null ? rows.append("\\N") : SqlTime.appendText(rows, time);
  }
}
