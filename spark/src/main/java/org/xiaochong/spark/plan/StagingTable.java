package org.xiaochong.spark.plan;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Iterator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.jdbi.v3.core.Handle;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.source.Database;
import org.xiaochong.spark.read.JobConfig;

/**
 * {@code dedup_spark_decision}: where an applying job's executors leave their decisions for the
 * driver, which reads them into a {@link DeletionPlan} and applies it with the single machine's
 * archive code.
 *
 * <p>Idempotent under task retries: a row's key is (job, removed id), every partition writes with
 * {@code INSERT … ON DUPLICATE KEY UPDATE}, and a partition's decisions are a function of its input
 * (the same rows, whatever attempt writes them), so a retried or speculative task overwrites its
 * own rows with the same values and never adds one. The driver deletes the job's rows once it has
 * read them; rows a job of the same table left when it died are deleted by the next one ({@link
 * #ensure}: the table's named lock keeps two jobs of one table from running at once).
 */
public final class StagingTable {
  static final String TABLE = "dedup_spark_decision";
  private static final int BATCH = 1000;

  private StagingTable() {}

  /**
   * Creates the table when missing, and drops the rows that jobs of {@code sourceTable} left when
   * they died. Call it holding the table's lock.
   */
  public static void ensure(Database database, String sourceTable) {
    database
        .jdbi()
        .useHandle(
            h -> {
              h.execute(
                  "CREATE TABLE IF NOT EXISTS "
                      + TABLE
                      + " (job CHAR(32) NOT NULL, source_table VARCHAR(64) NOT NULL, removed_id BIGINT NOT NULL,"
                      + " kept_id BIGINT NOT NULL, rule VARCHAR(16) NOT NULL, score DOUBLE NOT NULL, removed_time BIGINT NOT NULL,"
                      + " removed_crc BIGINT NOT NULL, kept_time BIGINT NOT NULL, kept_crc BIGINT NOT NULL,"
                      + " PRIMARY KEY (job, removed_id)) ENGINE=InnoDB DEFAULT CHARSET=ascii");
              h.createUpdate("DELETE FROM " + TABLE + " WHERE source_table = ?")
                  .bind(0, sourceTable)
                  .execute();
            });
  }

  /** Writes the decisions, each partition in batches on its executor. */
  public static void write(Dataset<Row> decisions, JobConfig job, String jobId) {
    String sourceTable = job.config().table().table();
    decisions.foreachPartition(
        (org.apache.spark.api.java.function.ForeachPartitionFunction<Row>)
            rows -> writePartition(job, jobId, sourceTable, rows));
  }

  private static void writePartition(
      JobConfig job, String jobId, String sourceTable, Iterator<Row> rows) {
    if (!rows.hasNext()) {
      return;
    }
    try (Database database = Database.open(job.config().db());
        Handle handle = database.jdbi().open()) {
      String sql =
          "INSERT INTO "
              + TABLE
              + " (job, source_table, removed_id, kept_id, rule, score, removed_time,"
              + " removed_crc, kept_time, kept_crc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE kept_id = VALUES(kept_id),"
              + " rule = VALUES(rule), score = VALUES(score), removed_time = VALUES(removed_time),"
              + " removed_crc = VALUES(removed_crc), kept_time = VALUES(kept_time), kept_crc = VALUES(kept_crc)";
      try (PreparedStatement insert = handle.getConnection().prepareStatement(sql)) {
        int pending = 0;
        while (rows.hasNext()) {
          Row row = rows.next();
          insert.setString(1, jobId);
          insert.setString(2, sourceTable);
          insert.setLong(3, row.getLong(0));
          insert.setLong(4, row.getLong(1));
          insert.setString(5, row.getString(2));
          insert.setDouble(6, row.getDouble(3));
          insert.setLong(7, row.getLong(4));
          insert.setLong(8, row.getLong(5));
          insert.setLong(9, row.getLong(6));
          insert.setLong(10, row.getLong(7));
          insert.addBatch();
          if (++pending == BATCH) {
            insert.executeBatch();
            pending = 0;
          }
        }
        if (pending > 0) {
          insert.executeBatch();
        }
      } catch (SQLException e) {
        throw new IllegalStateException(
            "writing the decisions to " + TABLE + " failed: " + Database.rootMessage(e), e);
      }
    }
  }

  /** The job's decisions, in removed-id order, streamed from the server into a plan. */
  public static DeletionPlan read(Database database, String jobId) {
    DeletionPlan plan = new DeletionPlan();
    database
        .jdbi()
        .useHandle(
            h -> {
              try (PreparedStatement select =
                  h.getConnection()
                      .prepareStatement(
                          "SELECT removed_id, kept_id, rule, score,"
                              + " removed_time, removed_crc, kept_time, kept_crc FROM "
                              + TABLE
                              + " WHERE job = ? ORDER BY removed_id",
                          ResultSet.TYPE_FORWARD_ONLY,
                          ResultSet.CONCUR_READ_ONLY)) {
                select.setFetchSize(Integer.MIN_VALUE);
                select.setString(1, jobId);
                try (ResultSet rs = select.executeQuery()) {
                  while (rs.next()) {
                    plan.add(
                        rs.getLong(1),
                        rs.getLong(2),
                        DeletionPlan.Rule.of(rs.getString(3)),
                        rs.getDouble(4),
                        new DeletionPlan.RowState(rs.getLong(5), rs.getLong(6)),
                        new DeletionPlan.RowState(rs.getLong(7), rs.getLong(8)));
                  }
                }
              } catch (SQLException e) {
                throw new IllegalStateException(
                    "reading the decisions from " + TABLE + " failed: " + Database.rootMessage(e),
                    e);
              }
            });
    return plan;
  }

  /** Deletes the job's rows. */
  public static void drop(Database database, String jobId) {
    database
        .jdbi()
        .useHandle(
            h ->
                h.createUpdate("DELETE FROM " + TABLE + " WHERE job = ?").bind(0, jobId).execute());
  }
}
