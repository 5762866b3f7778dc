package org.xiaochong.archive;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;

/**
 * The tables an archive needs, checked: the bookkeeping tables ({@code dedup_run}, {@code
 * dedup_plan}) and {@code <table>_removed}, which holds every column of the source plus the
 * decision that moved the row.
 *
 * <p>An instance exists only once {@link #ensure} has created what was missing and compared the
 * archive's columns with the source's ({@link ArchiveColumns}), so whatever moves rows ({@link
 * PlanMover}, {@link Restorer}) takes one and cannot run against an archive that would truncate or
 * mangle them. The columns are those of the source when it was checked; a source changed later is
 * caught by the next check, at the next command.
 *
 * <p>Immutable and thread-safe.
 */
public final class ArchiveTables {
  private final Database database;
  private final TableSpec spec;
  private final List<String> sourceColumns;
  private final List<String> writableColumns;

  private ArchiveTables(
      Database database, TableSpec spec, List<String> sourceColumns, List<String> writableColumns) {
    this.database = database;
    this.spec = spec;
    this.sourceColumns = sourceColumns;
    this.writableColumns = writableColumns;
  }

  /**
   * Creates the bookkeeping tables and {@code <table>_removed} when missing, adds the plan's {@code
   * skipped} and row state columns to a plan table made by an older version, and checks that the
   * archive can hold every column of the source as it is now ({@link ArchiveColumns}): a column
   * added, widened or converted in the source since the archive was made stops the command here,
   * before any row moves, with the ALTER TABLE that fixes it.
   *
   * @param sourceColumns the source's columns, as its schema check read them
   */
  public static ArchiveTables ensure(
      Database database, TableSpec spec, List<String> sourceColumns) {
    TableEngines.requireTransactional(database, spec, "--apply and restore");
    List<String> columns = List.copyOf(sourceColumns);
    RunLog.ensureTables(database);
    String removed = spec.removedTable();
    List<String> writable =
        database
            .jdbi()
            .withHandle(
                handle -> {
                  if (!ArchiveColumns.hasColumn(handle, "dedup_plan", "skipped")) {
                    handle.execute(
                        "ALTER TABLE dedup_plan ADD COLUMN skipped BOOLEAN NOT NULL DEFAULT 0");
                  }
                  if (!ArchiveColumns.hasColumn(handle, "dedup_plan", "kept_crc")) {
                    handle.execute(
                        "ALTER TABLE dedup_plan ADD COLUMN removed_time DATETIME(3) NULL,"
                            + " ADD COLUMN removed_crc BIGINT NOT NULL DEFAULT -1, ADD COLUMN kept_time DATETIME(3) NULL,"
                            + " ADD COLUMN kept_crc BIGINT NOT NULL DEFAULT -1");
                  }
                  boolean exists =
                      !handle
                          .createQuery(
                              "SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?")
                          .bind(0, removed)
                          .mapTo(Integer.class)
                          .list()
                          .isEmpty();
                  if (!exists) {
                    handle.execute(
                        ArchiveColumns.createArchiveSql(
                            handle, spec.table(), removed, spec.idColumn()));
                  }
                  ArchiveColumns archive = ArchiveColumns.read(handle, spec.table(), removed);
                  archive.requireArchiveMatches(columns);
                  return archive.writable(columns);
                });
    return new ArchiveTables(database, spec, columns, writable);
  }

  /** Rows in the archive table. */
  public long archivedRows() {
    return database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT COUNT(*) FROM " + q(spec.removedTable()))
                    .mapTo(Long.class)
                    .one());
  }

  Database database() {
    return database;
  }

  TableSpec spec() {
    return spec;
  }

  /** The source's columns, each of which the archive holds with the same type and character set. */
  List<String> sourceColumns() {
    return sourceColumns;
  }

  /**
   * The source's columns a restore writes: all but generated ones, whose values the server
   * computes.
   */
  List<String> writableColumns() {
    return writableColumns;
  }

  /** A time for the bookkeeping columns, in UTC: they are DATETIME(3), so to the millisecond. */
  static LocalDateTime now() {
    return LocalDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MILLIS);
  }

  static String q(String identifier) {
    return TableSpec.quote(identifier);
  }
}
