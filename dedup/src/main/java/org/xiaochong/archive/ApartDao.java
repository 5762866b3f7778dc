package org.xiaochong.archive;

import java.time.LocalDateTime;
import java.util.List;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import org.jdbi.v3.sqlobject.statement.UseRowMapper;

/**
 * The statements on the marks of {@code dedup_apart} (layout in {@code sql/dedup.sql}): pairs of
 * rows of a source table, smaller id first. The marks {@code restore} makes are selected from the
 * archive, whose name comes from the validated config, and stay in {@link ApartTable#markRestored}.
 */
interface ApartDao {
  /** The marked pairs of a table, as {id_a, id_b}. */
  @SqlQuery("SELECT id_a, id_b FROM dedup_apart WHERE source_table = :table")
  @UseRowMapper(ApartTable.PairMapper.class)
  List<long[]> pairs(@Bind("table") String table);

  @SqlQuery("SELECT COUNT(*) FROM dedup_apart WHERE source_table = :table")
  long count(@Bind("table") String table);

  @SqlQuery(
      "SELECT id_a, id_b, reason, run_id, created_at FROM dedup_apart WHERE source_table = :table"
          + " ORDER BY id_a, id_b LIMIT :limit")
  @UseRowMapper(ApartTable.MarkMapper.class)
  List<ApartTable.Mark> marks(@Bind("table") String table, @Bind("limit") int limit);

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

  @SqlQuery(
      "SELECT COUNT(*) > 0 FROM information_schema.tables WHERE table_schema = DATABASE()"
          + " AND table_name = 'dedup_apart'")
  boolean exists();
}
