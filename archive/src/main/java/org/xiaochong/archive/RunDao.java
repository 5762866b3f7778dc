package org.xiaochong.archive;

import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.sqlobject.config.KeyColumn;
import org.jdbi.v3.sqlobject.config.ValueColumn;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.GetGeneratedKeys;
import org.jdbi.v3.sqlobject.statement.SqlBatch;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import org.jdbi.v3.sqlobject.statement.UseRowMapper;

/**
 * The statements on the run log: {@code dedup_run}, one row per applied run, its removals per
 * method in {@code dedup_run_removed} and the child rows its merge re-pointed in {@code
 * dedup_repoint} (layout in {@code sql/dedup.sql}). Attach it to a handle ({@code handle.attach})
 * to run in that handle's transaction, or take it {@code onDemand} for one statement per
 * connection. Times are UTC.
 */
interface RunDao {
  @SqlUpdate(
      "INSERT INTO dedup_run (source_table, method, applied, status, config_digest, window_since,"
          + " window_until, started_at) VALUES (:table, :method, :applied, :status, :configDigest, :since, :until,"
          + " :startedAt)")
  @GetGeneratedKeys("id")
  long insertRun(
      @Bind("table") String table,
      @Bind("method") String method,
      @Bind("applied") boolean applied,
      @Bind("status") String status,
      @Bind("configDigest") String configDigest,
      @Bind("since") LocalDateTime since,
      @Bind("until") LocalDateTime until,
      @Bind("startedAt") LocalDateTime startedAt);

  @SqlUpdate(
      "UPDATE dedup_run SET status = :status, records_read = :recordsRead, finished_at = :finishedAt,"
          + " message = :message WHERE id = :runId")
  void finishRun(
      @Bind("runId") long runId,
      @Bind("status") String status,
      @Bind("recordsRead") long recordsRead,
      @Bind("finishedAt") LocalDateTime finishedAt,
      @Bind("message") String message);

  /** Marks an interrupted run applied, once its remaining batches have moved. */
  @SqlUpdate(
      "UPDATE dedup_run SET status = 'applied', finished_at = :finishedAt, message = :message"
          + " WHERE id = :runId")
  void markResumed(
      @Bind("runId") long runId,
      @Bind("finishedAt") LocalDateTime finishedAt,
      @Bind("message") String message);

  /** Sets the status of a restore ({@code restoring}, {@code restored}) and its message. */
  @SqlUpdate("UPDATE dedup_run SET status = :status, message = :message WHERE id = :runId")
  void setRestoreStatus(
      @Bind("runId") long runId, @Bind("status") String status, @Bind("message") String message);

  @SqlQuery("SELECT status FROM dedup_run WHERE id = :runId AND source_table = :table")
  Optional<String> status(@Bind("runId") long runId, @Bind("table") String table);

  @SqlQuery("SELECT id FROM dedup_run WHERE source_table = :table AND status = :status ORDER BY id")
  List<Long> runsWithStatus(@Bind("table") String table, @Bind("status") String status);

  @SqlQuery(
      "SELECT id, method, applied, status, records_read, started_at, finished_at FROM dedup_run"
          + " WHERE source_table = :table ORDER BY id DESC LIMIT :limit")
  @UseRowMapper(RunLog.RunRowMapper.class)
  List<RunLog.RunRow> latestRuns(@Bind("table") String table, @Bind("limit") int limit);

  @SqlUpdate("UPDATE dedup_run SET index_id = :indexId, sync_seq = :syncSeq WHERE id = :runId")
  void recordWatermark(
      @Bind("runId") long runId, @Bind("indexId") String indexId, @Bind("syncSeq") long syncSeq);

  /**
   * Applied runs of a table with the given index and a watermark, newest first, as {id, sync_seq,
   * method}.
   */
  @SqlQuery(
      "SELECT id, sync_seq, method FROM dedup_run WHERE source_table = :table AND index_id = :indexId"
          + " AND status = 'applied' AND applied AND sync_seq IS NOT NULL ORDER BY id DESC")
  @UseRowMapper(RunWatermark.CandidateMapper.class)
  List<RunWatermark.Candidate> watermarks(
      @Bind("table") String table, @Bind("indexId") String indexId);

  @SqlBatch(
      "INSERT INTO dedup_run_removed (run_id, method, removed) VALUES (:runId, :method, :removed)"
          + " ON DUPLICATE KEY UPDATE removed = VALUES(removed)")
  void putRemoved(
      @Bind("runId") long runId,
      @Bind("method") List<String> methods,
      @Bind("removed") List<Long> removed);

  @SqlQuery("SELECT method, removed FROM dedup_run_removed WHERE run_id = :runId ORDER BY method")
  @KeyColumn("method")
  @ValueColumn("removed")
  LinkedHashMap<String, Long> removedByMethod(@Bind("runId") long runId);

  @SqlUpdate("DELETE FROM dedup_run_removed WHERE run_id = :runId")
  void forgetRemoved(@Bind("runId") long runId);

  @SqlUpdate("DELETE FROM dedup_repoint WHERE run_id = :runId")
  void forgetRepoints(@Bind("runId") long runId);

  /**
   * The child rows a run's merge re-pointed away from the removed rows with ids in (lo, hi], in
   * order.
   */
  @SqlQuery(
      "SELECT id, run_id, child_schema, child_table, child_column, child_key_columns, child_key,"
          + " old_id, new_id FROM dedup_repoint WHERE run_id = :runId AND old_id > :lo"
          + " AND old_id <= :hi ORDER BY id")
  @UseRowMapper(Repoints.Mapper.class)
  List<Repoints.Repointed> repointed(
      @Bind("runId") long runId, @Bind("lo") long lo, @Bind("hi") long hi);

  /**
   * The re-pointings of later runs that moved a child of this table and column away from {@code
   * oldId}, oldest first: where a child re-pointed by an earlier run may have gone since.
   */
  @SqlQuery(
      "SELECT id, run_id, child_schema, child_table, child_column, child_key_columns, child_key,"
          + " old_id, new_id FROM dedup_repoint WHERE run_id > :runId AND child_schema = :schema"
          + " AND child_table = :table AND child_column = :column AND old_id = :oldId"
          + " ORDER BY run_id, id")
  @UseRowMapper(Repoints.Mapper.class)
  List<Repoints.Repointed> repointedLater(
      @Bind("runId") long runId,
      @Bind("schema") String schema,
      @Bind("table") String table,
      @Bind("column") String column,
      @Bind("oldId") long oldId);

  @SqlUpdate("DELETE FROM dedup_repoint WHERE id IN (<ids>)")
  void forgetRepointsById(@org.jdbi.v3.sqlobject.customizer.BindList("ids") List<Long> ids);

  /** Whether a table of this name exists in the current schema. */
  @SqlQuery(
      "SELECT COUNT(*) > 0 FROM information_schema.tables WHERE table_schema = DATABASE()"
          + " AND table_name = :name")
  boolean tableExists(@Bind("name") String name);
}
