package org.xiaochong.archive;

import static org.xiaochong.archive.ArchiveTables.now;
import static org.xiaochong.archive.ArchiveTables.q;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.SqlError;
import org.xiaochong.source.TableSpec;

/**
 * The marks of one source table: rows a person decided are not duplicates (see {@code
 * sql/dedup.sql}). Two forms ({@link ApartPairs}):
 *
 * <ul>
 *   <li>pairs in {@code dedup_apart}, marked by hand ({@code dedup apart add});
 *   <li>groups in {@code dedup_apart_group} and {@code dedup_apart_member}: {@code restore} makes
 *       one per kept row of the run it puts back, holding the kept row and the rows that had been
 *       removed for it ({@link #markRestored}, in the restore's own transaction), so the next run
 *       removes none of them for another. One row per member, so a restored group of 20,000 twins
 *       costs 20,001 rows, not the 200 million of its pairs.
 * </ul>
 *
 * <p>A row a later run keeps in favour of a row of a group joins that group ({@link
 * #followRemovals}): it is a twin of the row the group's rows were restored from, so they stay
 * apart from it too. Members whose rows have left both the table and its archive are pruned ({@link
 * #prune}). Every run reads the marks once ({@link #load}) and its passes and apply honour them.
 *
 * <p>Thread-safe (state lives in the database).
 */
public final class ApartTable {
  /** Why a pair or group is marked. */
  public enum Reason {
    /** Rows {@code restore} put back, apart from the row they had been removed for. */
    RESTORE,
    /** A pair marked by hand ({@code dedup apart add}). */
    MANUAL;

    String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** One marked pair, as {@code dedup apart list} shows it. */
  public record Mark(long idA, long idB, String reason, Long runId, LocalDateTime createdAt) {}

  /**
   * One group, as {@code dedup apart list} shows it: {@code rows} rows, made by the restore of run
   * {@code runId}, whose rows had been removed for {@code anchorId}.
   */
  public record Group(
      long id, String reason, long runId, long anchorId, long rows, LocalDateTime createdAt) {}

  /** How many marks of each form the table has. */
  public record Counts(long pairs, long groups, long groupRows) {
    /** Marks in all: pairs and group rows. */
    public long marks() {
      return pairs + groupRows;
    }
  }

  private final Database database;
  private final String table;

  /**
   * @param table the source table whose marks are meant
   */
  public ApartTable(Database database, String table) {
    this.database = database;
    this.table = table;
  }

  /**
   * The marks of this table; none when the tables do not exist yet (a dry run by a read-only user
   * creates nothing). Read by streaming into primitive arrays: 16 bytes per pair or group row.
   */
  public ApartPairs load() {
    return database
        .jdbi()
        .withHandle(
            h -> {
              ApartDao marks = h.attach(ApartDao.class);
              long[] pairs =
                  marks.exists("dedup_apart")
                      ? readLongPairs(
                          h, "SELECT id_a, id_b FROM dedup_apart WHERE source_table = ?")
                      : new long[0];
              long[] members =
                  marks.exists("dedup_apart_member")
                      ? readLongPairs(
                          h,
                          "SELECT row_id, group_id FROM dedup_apart_member WHERE source_table = ?")
                      : new long[0];
              return ApartPairs.of(pairs, members);
            });
  }

  private long[] readLongPairs(Handle h, String sql) {
    long[] values = new long[1024];
    int n = 0;
    try (PreparedStatement statement = h.getConnection().prepareStatement(sql)) {
      statement.setString(1, table);
      statement.setFetchSize(10_000);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          if (n + 2 > values.length) {
            values = Arrays.copyOf(values, values.length * 2);
          }
          values[n++] = rs.getLong(1);
          values[n++] = rs.getLong(2);
        }
      }
    } catch (SQLException e) {
      throw new org.jdbi.v3.core.statement.UnableToExecuteStatementException(e, null);
    }
    return Arrays.copyOf(values, n);
  }

  /**
   * Saves the marks as they are now beside the index in {@code indexDir} ({@link ApartPairs#FILE}),
   * for {@code check}; nothing when that folder does not exist (no index yet: nothing to check
   * against).
   */
  public void saveSnapshot(java.nio.file.Path indexDir) {
    if (java.nio.file.Files.isDirectory(indexDir)) {
      load().save(indexDir.resolve(ApartPairs.FILE));
    }
  }

  /** Marks of this table: pairs and group rows; 0 when the tables do not exist yet. */
  public long count() {
    return counts().marks();
  }

  /** Pairs, groups and group rows of this table; 0 when the tables do not exist yet. */
  public Counts counts() {
    return database
        .jdbi()
        .withExtension(
            ApartDao.class,
            marks ->
                new Counts(
                    marks.exists("dedup_apart") ? marks.count(table) : 0L,
                    marks.exists("dedup_apart_group") ? marks.groupCount(table) : 0L,
                    marks.exists("dedup_apart_member") ? marks.groupRowCount(table) : 0L));
  }

  /** The marked pairs, by pair, at most {@code limit}. */
  public List<Mark> list(int limit) {
    return database
        .jdbi()
        .withExtension(
            ApartDao.class,
            marks -> marks.exists("dedup_apart") ? marks.marks(table, limit) : List.<Mark>of());
  }

  /** The groups, by id, at most {@code limit}. */
  public List<Group> groups(int limit) {
    return database
        .jdbi()
        .withExtension(
            ApartDao.class,
            marks ->
                marks.exists("dedup_apart_group") ? marks.groups(table, limit) : List.<Group>of());
  }

  /** The groups that hold both rows, ascending. */
  public List<Long> sharedGroups(long idA, long idB) {
    return database
        .jdbi()
        .withExtension(
            ApartDao.class,
            marks ->
                marks.exists("dedup_apart_member")
                    ? marks.sharedGroups(table, idA, idB)
                    : List.<Long>of());
  }

  /**
   * Marks two rows as not duplicates (by hand); false when they already were. Needs the bookkeeping
   * tables ({@link RunLog#ensureTables}).
   *
   * @throws BadInputException for one id twice
   */
  public boolean add(long idA, long idB) {
    requireTwo(idA, idB);
    try {
      database
          .jdbi()
          .onDemand(ApartDao.class)
          .add(table, Math.min(idA, idB), Math.max(idA, idB), Reason.MANUAL.label(), now());
      return true;
    } catch (RuntimeException e) {
      if (SqlError.DUPLICATE_KEY.matches(e)) {
        return false; // marked already: the mark stays as it was
      }
      throw e;
    }
  }

  /** Forgets the marked pair of two rows; false when there was none. Groups are not touched. */
  public boolean remove(long idA, long idB) {
    requireTwo(idA, idB);
    return database
            .jdbi()
            .withExtension(
                ApartDao.class,
                marks ->
                    marks.exists("dedup_apart")
                        ? marks.remove(table, Math.min(idA, idB), Math.max(idA, idB))
                        : 0)
        > 0;
  }

  /** Forgets a group of this table, with its rows; the rows it held, 0 when there was none. */
  public int removeGroup(long groupId) {
    return database
        .jdbi()
        .inTransaction(
            h -> {
              ApartDao marks = h.attach(ApartDao.class);
              if (!marks.exists("dedup_apart_group") || marks.deleteGroup(table, groupId) == 0) {
                return 0;
              }
              return marks.deleteMembers(groupId);
            });
  }

  /**
   * In the restore's transaction: marks every archived row of run {@code runId} with id in (lo, hi]
   * apart from the row it had been removed for ({@code dedup_kept_id}) and from the other rows the
   * run removed for that same row: the person undid the whole group, so no row of it is removed for
   * another in the next run (else of three twins restored, the next run would keep the newest and
   * remove the third for the second). One group per kept row, found again by (run, kept row) when a
   * later batch holds more of its rows; the kept row and each restored row are a member once. Call
   * it before the rows leave the archive. Returns the members written.
   */
  public static int markRestored(Handle handle, TableSpec spec, long runId, long lo, long hi) {
    String id = q(spec.idColumn());
    String removed = q(spec.removedTable());
    String inBatch =
        " WHERE x.dedup_run_id = ? AND x."
            + id
            + " > ? AND x."
            + id
            + " <= ? AND x."
            + id
            + " <> x.dedup_kept_id";
    handle
        .createUpdate(
            "INSERT INTO dedup_apart_group (source_table, reason, run_id, anchor_id, created_at)"
                + " SELECT DISTINCT ?, ?, x.dedup_run_id, x.dedup_kept_id, ? FROM "
                + removed
                + " x"
                + inBatch
                + " ON DUPLICATE KEY UPDATE anchor_id = dedup_apart_group.anchor_id")
        .bind(0, spec.table())
        .bind(1, Reason.RESTORE.label())
        .bind(2, now())
        .bind(3, runId)
        .bind(4, lo)
        .bind(5, hi)
        .execute();
    String members =
        "INSERT INTO dedup_apart_member (group_id, source_table, row_id, role) SELECT DISTINCT"
            + " g.id, g.source_table, %s FROM "
            + removed
            // The batch by the primary key (run, id): through dedup_kept_id the server would read
            // the whole group for each batch, which made a restore of 100,000 twins quadratic.
            + " x FORCE INDEX (PRIMARY) JOIN dedup_apart_group g ON g.source_table = ?"
            + " AND g.run_id = x.dedup_run_id"
            + " AND g.anchor_id = x.dedup_kept_id"
            + inBatch
            + " ON DUPLICATE KEY UPDATE row_id = dedup_apart_member.row_id";
    int written = 0;
    for (String row : List.of("x." + id + ", 'restored'", "g.anchor_id, 'kept'")) {
      written +=
          handle
              .createUpdate(String.format(members, row))
              .bind(0, spec.table())
              .bind(1, runId)
              .bind(2, lo)
              .bind(3, hi)
              .execute();
    }
    return written;
  }

  /**
   * After run {@code runId} moved rows: each row it kept in favour of a group's kept row (or of a
   * twin that joined before) joins that group as a twin, so the restored rows stay apart from it:
   * it is a later twin of the row they were restored from. A restored row removed for another row
   * passes nothing on (its partner is not a twin of the kept row). The removed row stays a member
   * while it is in the archive (a restore may bring it back). Only removals that were carried out
   * (the row is in the archive under this run) count. Returns the rows that joined.
   */
  public static int followRemovals(Database database, TableSpec spec, long runId) {
    return database
        .jdbi()
        .withHandle(
            h -> {
              if (!h.attach(ApartDao.class).exists("dedup_apart_member")) {
                return 0;
              }
              return h.createUpdate(
                      "INSERT INTO dedup_apart_member (group_id, source_table, row_id, role)"
                          + " SELECT DISTINCT m.group_id, m.source_table, x.dedup_kept_id, 'twin' FROM "
                          + q(spec.removedTable())
                          + " x JOIN dedup_apart_member m ON m.source_table = ? AND m.row_id = x."
                          + q(spec.idColumn())
                          + " AND m.role IN ('kept', 'twin')"
                          + " WHERE x.dedup_run_id = ? AND x.dedup_kept_id <> x."
                          + q(spec.idColumn())
                          + " ON DUPLICATE KEY UPDATE row_id = dedup_apart_member.row_id")
                  .bind(0, spec.table())
                  .bind(1, runId)
                  .execute();
            });
  }

  /** What {@link #prune} deleted. */
  public record Pruned(int groupRows, int groups, int pairs) {}

  /**
   * Forgets the marks of rows that have left both the table and its archive for good (the site
   * deleted them, or the archive was emptied): their group rows and pairs, then every group left
   * with fewer than two rows (one row keeps nothing apart). Rows in the archive stay marked: a
   * restore can bring them back. The archive is asked only about marked rows missing from the
   * table, by its primary key (run, id), so the cost does not grow with the archive.
   */
  public static Pruned prune(Database database, TableSpec spec) {
    String id = q(spec.idColumn());
    return database
        .jdbi()
        .inTransaction(
            h -> {
              ApartDao marks = h.attach(ApartDao.class);
              if (!marks.exists("dedup_apart_member") || !marks.exists(spec.removedTable())) {
                return new Pruned(0, 0, 0);
              }
              List<Long> missing =
                  h.createQuery(
                          "SELECT row_id FROM dedup_apart_member m WHERE source_table = :t"
                              + " UNION SELECT id_a FROM dedup_apart WHERE source_table = :t"
                              + " UNION SELECT id_b FROM dedup_apart WHERE source_table = :t")
                      .bind("t", spec.table())
                      .mapTo(Long.class)
                      .list();
              java.util.Set<Long> gone = new java.util.HashSet<>();
              List<Long> runs = marks.runIds(spec.table());
              for (int from = 0; from < missing.size(); from += 1_000) {
                List<Long> batch = missing.subList(from, Math.min(missing.size(), from + 1_000));
                java.util.Set<Long> left = new java.util.HashSet<>(batch);
                left.removeAll(
                    h.createQuery(
                            "SELECT "
                                + id
                                + " FROM "
                                + q(spec.table())
                                + " WHERE "
                                + id
                                + " IN (<ids>)")
                        .bindList("ids", batch)
                        .mapTo(Long.class)
                        .list());
                if (!left.isEmpty() && !runs.isEmpty()) {
                  left.removeAll(
                      h.createQuery(
                              "SELECT "
                                  + id
                                  + " FROM "
                                  + q(spec.removedTable())
                                  + " WHERE dedup_run_id IN (<runs>) AND "
                                  + id
                                  + " IN (<ids>)")
                          .bindList("runs", runs)
                          .bindList("ids", List.copyOf(left))
                          .mapTo(Long.class)
                          .list());
                }
                gone.addAll(left);
              }
              if (gone.isEmpty()) {
                return new Pruned(0, 0, 0);
              }
              int rows = 0;
              int pairs = 0;
              List<Long> ids = List.copyOf(gone);
              for (int from = 0; from < ids.size(); from += 1_000) {
                List<Long> batch = ids.subList(from, Math.min(ids.size(), from + 1_000));
                rows += marks.deleteMemberRows(spec.table(), batch);
                pairs += marks.deletePairsOf(spec.table(), batch);
              }
              List<Long> small = marks.groupsSmallerThanTwo(spec.table());
              for (long group : small) {
                marks.deleteGroup(spec.table(), group);
                rows += marks.deleteMembers(group);
              }
              return new Pruned(rows, small.size(), pairs);
            });
  }

  private static void requireTwo(long idA, long idB) {
    if (idA == idB) {
      throw new BadInputException(
          "a record cannot be kept apart from itself (both ids are " + idA + ")");
    }
  }

  /** Reads a {@link Mark}. */
  public static final class MarkMapper implements RowMapper<Mark> {
    @Override
    public Mark map(ResultSet rs, StatementContext ctx) throws SQLException {
      return new Mark(
          rs.getLong("id_a"),
          rs.getLong("id_b"),
          rs.getString("reason"),
          rs.getObject("run_id", Long.class),
          rs.getObject("created_at", LocalDateTime.class));
    }
  }

  /** Reads a {@link Group}. */
  public static final class GroupMapper implements RowMapper<Group> {
    @Override
    public Group map(ResultSet rs, StatementContext ctx) throws SQLException {
      return new Group(
          rs.getLong("id"),
          rs.getString("reason"),
          rs.getLong("run_id"),
          rs.getLong("anchor_id"),
          rs.getLong("row_count"),
          rs.getObject("created_at", LocalDateTime.class));
    }
  }
}
