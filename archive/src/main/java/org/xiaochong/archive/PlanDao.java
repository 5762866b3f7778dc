package org.xiaochong.archive;

import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jdbi.v3.sqlobject.config.KeyColumn;
import org.jdbi.v3.sqlobject.config.ValueColumn;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.customizer.BindMethods;
import org.jdbi.v3.sqlobject.statement.SqlBatch;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * The statements on the plans of runs, {@code dedup_plan} (layout in {@code sql/dedup.sql}), and on
 * its join with the marks of {@code dedup_apart}. The statements that join the plan with a source
 * table or its archive name those tables from the validated config and stay in {@link BatchSql} and
 * {@link PlanMover}.
 */
interface PlanDao {
  /** One plan row: a planned removal and the states of its rows when the pass decided. */
  record Row(
      long runId,
      int seq,
      long removedId,
      long keptId,
      String rule,
      double score,
      LocalDateTime removedTime,
      long removedCrc,
      LocalDateTime keptTime,
      long keptCrc) {}

  @SqlBatch(
      "INSERT INTO dedup_plan (run_id, seq, removed_id, kept_id, rule, score, removed_time, removed_crc,"
          + " kept_time, kept_crc) VALUES (:runId, :seq, :removedId, :keptId, :rule, :score, :removedTime, :removedCrc,"
          + " :keptTime, :keptCrc)")
  void insert(@BindMethods List<Row> rows);

  @SqlUpdate("DELETE FROM dedup_plan WHERE run_id = :runId")
  void drop(@Bind("runId") long runId);

  /** One more than the run's last seq; 0 when it has no plan rows. */
  @SqlQuery("SELECT COALESCE(MAX(seq) + 1, 0) FROM dedup_plan WHERE run_id = :runId")
  int size(@Bind("runId") long runId);

  @SqlQuery("SELECT DISTINCT rule FROM dedup_plan WHERE run_id = :runId")
  Set<String> rules(@Bind("runId") long runId);

  /**
   * The plan rows left in place, by removed id, with why ({@code skipped}: 1 changed, 2
   * referenced).
   */
  @SqlQuery("SELECT removed_id, skipped FROM dedup_plan WHERE run_id = :runId AND skipped <> 0")
  @KeyColumn("removed_id")
  @ValueColumn("skipped")
  Map<Long, Integer> leftInPlace(@Bind("runId") long runId);

  /**
   * Whether plan row {@code p}'s removed and kept rows are marked apart: a pair, or a group that
   * holds both.
   */
  String MARKED_APART =
      " (EXISTS (SELECT 1 FROM dedup_apart m WHERE m.source_table = :table"
          + " AND m.id_a = LEAST(p.removed_id, p.kept_id) AND m.id_b = GREATEST(p.removed_id, p.kept_id))"
          + " OR EXISTS (SELECT 1 FROM dedup_apart_member a JOIN dedup_apart_member b"
          + " ON b.group_id = a.group_id AND b.row_id = p.kept_id"
          + " WHERE a.source_table = :table AND a.row_id = p.removed_id))";

  /** Unskipped plan rows whose removed and kept rows are marked apart, counted by rule. */
  @SqlQuery(
      "SELECT p.rule, COUNT(*) AS marked FROM dedup_plan p"
          + " WHERE p.run_id = :runId AND p.skipped = 0 AND"
          + MARKED_APART
          + " GROUP BY p.rule")
  @KeyColumn("rule")
  @ValueColumn("marked")
  Map<String, Long> markedApartByRule(@Bind("table") String table, @Bind("runId") long runId);

  /** Marks skipped (1, as a changed row) the unskipped plan rows whose rows are marked apart. */
  @SqlUpdate(
      "UPDATE dedup_plan p SET p.skipped = 1 WHERE p.run_id = :runId AND p.skipped = 0 AND"
          + MARKED_APART)
  void skipMarkedApart(@Bind("table") String table, @Bind("runId") long runId);
}
