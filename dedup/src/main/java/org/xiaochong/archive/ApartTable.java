package org.xiaochong.archive;

import static org.xiaochong.archive.ArchiveTables.now;
import static org.xiaochong.archive.ArchiveTables.q;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.SqlError;
import org.xiaochong.source.TableSpec;

/**
 * The marks of one source table in {@code dedup_apart}: pairs of rows a person decided are not
 * duplicates (see {@code sql/dedup.sql}). {@code restore} marks each row it puts back apart from
 * the row it had been removed for ({@link #markRestored}, in the restore's own transaction), so the
 * next run does not remove it again; {@code dedup apart add} marks a pair by hand. Every run reads
 * them once ({@link #load}) and its passes and apply honour them ({@link ApartPairs}).
 *
 * <p>Thread-safe (state lives in the database).
 */
public final class ApartTable {
  /** Why a pair is marked. */
  public enum Reason {
    /** A row {@code restore} put back, apart from the row it had been removed for. */
    RESTORE,
    /** A pair marked by hand ({@code dedup apart add}). */
    MANUAL;

    String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** One mark, as {@code dedup apart list} shows it. */
  public record Mark(long idA, long idB, String reason, Long runId, LocalDateTime createdAt) {}

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
   * The marks of this table, as a sorted pair set; none when {@code dedup_apart} does not exist yet
   * (a dry run by a read-only user creates nothing).
   */
  public ApartPairs load() {
    return database
        .jdbi()
        .withHandle(
            h -> {
              ApartDao marks = h.attach(ApartDao.class);
              if (!marks.exists()) {
                return ApartPairs.NONE;
              }
              List<long[]> pairs = marks.pairs(table);
              long[] ids = new long[pairs.size() * 2];
              for (int i = 0; i < pairs.size(); i++) {
                ids[2 * i] = pairs.get(i)[0];
                ids[2 * i + 1] = pairs.get(i)[1];
              }
              return ApartPairs.of(ids);
            });
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

  /** Marks of this table; 0 when {@code dedup_apart} does not exist yet. */
  public long count() {
    return database
        .jdbi()
        .withExtension(ApartDao.class, marks -> marks.exists() ? marks.count(table) : 0L);
  }

  /** The marks, by pair, at most {@code limit}. */
  public List<Mark> list(int limit) {
    return database
        .jdbi()
        .withExtension(
            ApartDao.class, marks -> marks.exists() ? marks.marks(table, limit) : List.<Mark>of());
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

  /** Forgets the mark of two rows; false when there was none. */
  public boolean remove(long idA, long idB) {
    requireTwo(idA, idB);
    return database
            .jdbi()
            .withExtension(
                ApartDao.class,
                marks ->
                    marks.exists()
                        ? marks.remove(table, Math.min(idA, idB), Math.max(idA, idB))
                        : 0)
        > 0;
  }

  /**
   * In the restore's transaction: marks every archived row of run {@code runId} with id in (lo, hi]
   * apart from the row it had been removed for ({@code dedup_kept_id}) and from the other rows the
   * run removed for that same row: the person undid the whole group, so no row of it is removed for
   * another in the next run (else of three twins restored, the next run would keep the newest and
   * remove the third for the second). A group of n rows makes n(n - 1)/2 marks. A pair already
   * marked keeps its mark. Call it before the rows leave the archive (a batch's partners of larger
   * id are still there). Returns the marks written or kept.
   */
  static int markRestored(Handle handle, TableSpec spec, long runId, long lo, long hi) {
    String id = q(spec.idColumn());
    String removed = q(spec.removedTable());
    String insert =
        "INSERT INTO dedup_apart (source_table, id_a, id_b, reason, run_id, created_at) ";
    String keepMark = " ON DUPLICATE KEY UPDATE reason = dedup_apart.reason";
    int marked =
        handle
            .createUpdate(
                insert
                    + "SELECT ?, LEAST(x."
                    + id
                    + ", x.dedup_kept_id), GREATEST(x."
                    + id
                    + ", x.dedup_kept_id), ?, x.dedup_run_id, ?"
                    + " FROM "
                    + removed
                    + " x WHERE x.dedup_run_id = ? AND x."
                    + id
                    + " > ? AND x."
                    + id
                    + " <= ?"
                    + " AND x."
                    + id
                    + " <> x.dedup_kept_id"
                    + keepMark)
            .bind(0, spec.table())
            .bind(1, Reason.RESTORE.label())
            .bind(2, now())
            .bind(3, runId)
            .bind(4, lo)
            .bind(5, hi)
            .execute();
    return marked
        + handle
            .createUpdate(
                insert
                    + "SELECT ?, x."
                    + id
                    + ", y."
                    + id
                    + ", ?, x.dedup_run_id, ?"
                    + " FROM "
                    + removed
                    + " x JOIN "
                    + removed
                    + " y ON y.dedup_run_id = x.dedup_run_id"
                    + " AND y.dedup_kept_id = x.dedup_kept_id AND y."
                    + id
                    + " > x."
                    + id
                    + " WHERE x.dedup_run_id = ? AND x."
                    + id
                    + " > ? AND x."
                    + id
                    + " <= ?"
                    + keepMark)
            .bind(0, spec.table())
            .bind(1, Reason.RESTORE.label())
            .bind(2, now())
            .bind(3, runId)
            .bind(4, lo)
            .bind(5, hi)
            .execute();
  }

  private static void requireTwo(long idA, long idB) {
    if (idA == idB) {
      throw new BadInputException(
          "a record cannot be kept apart from itself (both ids are " + idA + ")");
    }
  }

  /** Reads a marked pair as {id_a, id_b}. */
  public static final class PairMapper implements RowMapper<long[]> {
    @Override
    public long[] map(ResultSet rs, StatementContext ctx) throws SQLException {
      return new long[] {rs.getLong("id_a"), rs.getLong("id_b")};
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
}
