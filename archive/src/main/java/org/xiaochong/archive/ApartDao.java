package org.xiaochong.archive;

import java.time.LocalDateTime;
import java.util.List;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.customizer.BindList;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import org.jdbi.v3.sqlobject.statement.UseRowMapper;

/**
 * The statements on the marks (layout in {@code sql/dedup.sql}): pairs of rows of a source table in
 * {@code dedup_apart}, smaller id first, and groups in {@code dedup_apart_group} with their rows in
 * {@code dedup_apart_member}. The statements that join the archive, whose name comes from the
 * validated config, stay in {@link ApartTable}.
 */
interface ApartDao {
  @SqlQuery("SELECT COUNT(*) FROM dedup_apart WHERE source_table = :table")
  long count(@Bind("table") String table);

  @SqlQuery("SELECT COUNT(*) FROM dedup_apart_group WHERE source_table = :table")
  long groupCount(@Bind("table") String table);

  @SqlQuery("SELECT COUNT(*) FROM dedup_apart_member WHERE source_table = :table")
  long groupRowCount(@Bind("table") String table);

  @SqlQuery(
      "SELECT id_a, id_b, reason, run_id, created_at FROM dedup_apart WHERE source_table = :table"
          + " ORDER BY id_a, id_b LIMIT :limit")
  @UseRowMapper(ApartTable.MarkMapper.class)
  List<ApartTable.Mark> marks(@Bind("table") String table, @Bind("limit") int limit);

  @SqlQuery(
      "SELECT g.id, g.reason, g.run_id, g.anchor_id, g.created_at,"
          + " (SELECT COUNT(*) FROM dedup_apart_member m WHERE m.group_id = g.id) AS row_count"
          + " FROM dedup_apart_group g WHERE g.source_table = :table ORDER BY g.id LIMIT :limit")
  @UseRowMapper(ApartTable.GroupMapper.class)
  List<ApartTable.Group> groups(@Bind("table") String table, @Bind("limit") int limit);

  @SqlQuery(
      "SELECT a.group_id FROM dedup_apart_member a JOIN dedup_apart_member b"
          + " ON b.group_id = a.group_id AND b.row_id = :idB"
          + " WHERE a.source_table = :table AND a.row_id = :idA ORDER BY a.group_id")
  List<Long> sharedGroups(
      @Bind("table") String table, @Bind("idA") long idA, @Bind("idB") long idB);

  /** Marks a pair by hand; a pair marked already fails with a duplicate key. */
  @SqlUpdate(
      "INSERT INTO dedup_apart (source_table, id_a, id_b, reason, run_id, created_at)"
          + " VALUES (:table, :idA, :idB, :reason, NULL, :createdAt)")
  void add(
      @Bind("table") String table,
      @Bind("idA") long idA,
      @Bind("idB") long idB,
      @Bind("reason") String reason,
      @Bind("createdAt") LocalDateTime createdAt);

  /** Forgets a mark; the rows deleted (0 or 1). */
  @SqlUpdate("DELETE FROM dedup_apart WHERE source_table = :table AND id_a = :idA AND id_b = :idB")
  int remove(@Bind("table") String table, @Bind("idA") long idA, @Bind("idB") long idB);

  @SqlUpdate("DELETE FROM dedup_apart_group WHERE source_table = :table AND id = :id")
  int deleteGroup(@Bind("table") String table, @Bind("id") long groupId);

  @SqlUpdate("DELETE FROM dedup_apart_member WHERE group_id = :id")
  int deleteMembers(@Bind("id") long groupId);

  @SqlUpdate("DELETE FROM dedup_apart_member WHERE source_table = :table AND row_id IN (<ids>)")
  int deleteMemberRows(@Bind("table") String table, @BindList("ids") List<Long> ids);

  @SqlUpdate(
      "DELETE FROM dedup_apart WHERE source_table = :table AND (id_a IN (<ids>) OR id_b IN (<ids>))")
  int deletePairsOf(@Bind("table") String table, @BindList("ids") List<Long> ids);

  /** The groups of a table left with fewer than two rows. */
  @SqlQuery(
      "SELECT g.id FROM dedup_apart_group g LEFT JOIN dedup_apart_member m ON m.group_id = g.id"
          + " WHERE g.source_table = :table GROUP BY g.id HAVING COUNT(m.row_id) < 2")
  List<Long> groupsSmallerThanTwo(@Bind("table") String table);

  /** The runs of a table, whose archived rows may be marked. */
  @SqlQuery("SELECT id FROM dedup_run WHERE source_table = :table ORDER BY id")
  List<Long> runIds(@Bind("table") String table);

  @SqlQuery(
      "SELECT COUNT(*) > 0 FROM information_schema.tables WHERE table_schema = DATABASE()"
          + " AND table_name = :name")
  boolean exists(@Bind("name") String name);
}
