package org.xiaochong.archive;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;
import org.xiaochong.source.Database;

/**
 * Where the last applied run of a table left off, so that a nightly run examines only the records
 * indexed since: each applied run records in its {@code dedup_run} row the id of the index it used
 * ({@code index_id}, a UUID kept in the index's commit user data) and the sync number its index
 * sync reached ({@code sync_seq}). A record whose document carries a larger sync number was indexed
 * (added, or changed and indexed again) after that run decided. A watermark only holds for the
 * index it was taken on: another index, or the same one rebuilt, has another id.
 *
 * <p>{@code dedup_run} tables made before these columns get them on the first applied run ({@link
 * #ensureColumns}); until then there is no watermark and runs examine every record.
 */
public final class RunWatermark {
  /** A watermark: the applied run and the sync number its index had reached. */
  public record Mark(long runId, long syncSeq) {}

  private static final List<String> COLUMNS = List.of("index_id", "sync_seq");

  private final Database database;
  private final String table;

  /**
   * @param table the source table whose runs are meant
   */
  public RunWatermark(Database database, String table) {
    this.database = database;
    this.table = table;
  }

  /**
   * Adds {@code index_id} and {@code sync_seq} to {@code dedup_run} when it lacks them. Checked in
   * information_schema first, then one ALTER TABLE: MySQL 8 has no {@code ADD COLUMN IF NOT EXISTS}
   * (MariaDB has), and a plain ALTER works on both. Call it after the table exists.
   */
  public void ensureColumns() {
    database
        .jdbi()
        .useHandle(
            handle -> {
              List<String> missing = COLUMNS.stream().filter(c -> !hasColumn(handle, c)).toList();
              if (missing.isEmpty()) {
                return;
              }
              String alter =
                  "ALTER TABLE dedup_run "
                      + String.join(
                          ", ",
                          missing.stream()
                              .map(
                                  c ->
                                      c.equals("index_id")
                                          ? "ADD COLUMN index_id CHAR(36) NULL"
                                          : "ADD COLUMN sync_seq BIGINT NULL")
                              .toList());
              try {
                handle.execute(alter);
              } catch (RuntimeException e) {
                // Another process may have added them in between (error 1060, duplicate column):
                // fine then.
                if (!COLUMNS.stream().allMatch(c -> hasColumn(handle, c))) {
                  throw new IllegalStateException(
                      "cannot add the watermark columns to dedup_run: " + Database.rootMessage(e),
                      e);
                }
              }
            });
  }

  /**
   * Records the watermark of an applied run (its row must exist, the columns too: {@link
   * #ensureColumns}).
   */
  public void record(long runId, String indexId, long syncSeq) {
    database.jdbi().onDemand(RunDao.class).recordWatermark(runId, indexId, syncSeq);
  }

  /**
   * The watermark of the latest run of this table with this index that is still applied (a restored
   * run no longer counts) and whose method label ({@code dedup_run.method}) {@code coversMethod}
   * accepts; empty when there is none, or no {@code dedup_run} table or columns yet (a dry run
   * creates nothing, so reading must not need them).
   */
  public Optional<Mark> last(String indexId, Predicate<String> coversMethod) {
    return database
        .jdbi()
        .withHandle(
            handle -> {
              if (!COLUMNS.stream().allMatch(c -> hasColumn(handle, c))) {
                return Optional.empty();
              }
              return handle.attach(RunDao.class).watermarks(table, indexId).stream()
                  .filter(candidate -> coversMethod.test(candidate.method()))
                  .map(Candidate::mark)
                  .findFirst();
            });
  }

  /** An applied run with a watermark, and the method label it ran. */
  record Candidate(Mark mark, String method) {}

  /** Reads a {@link Candidate} from {@link RunDao#watermarks}. */
  public static final class CandidateMapper implements RowMapper<Candidate> {
    @Override
    public Candidate map(ResultSet rs, StatementContext ctx) throws SQLException {
      return new Candidate(
          new Mark(rs.getLong("id"), rs.getLong("sync_seq")), rs.getString("method"));
    }
  }

  private static boolean hasColumn(Handle handle, String column) {
    return ArchiveColumns.hasColumn(handle, "dedup_run", column);
  }
}
