package org.xiaochong.archive;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.xiaochong.source.Database;

/**
 * Moves a run log made before per-method counts to them: the {@code exact_removed} and {@code
 * near_removed} columns of {@code dedup_run} become rows of {@code dedup_run_removed}, then the
 * columns are dropped; {@code dedup_run.method}, which now holds a list of methods, is widened.
 *
 * <p>Idempotent and safe to repeat after an interruption: the copy overwrites the rows it makes
 * (the old columns are the truth while they exist), and the columns go in one ALTER TABLE only
 * after the copy, so a crash between the two only repeats the copy. Two commands migrating at once
 * (of two source tables) both copy the same values; the second ALTER finds the columns gone and
 * stops.
 */
final class RunLogMigration {
  /** The columns of the old layout and the method each counted. */
  private static final Map<String, String> OLD_COLUMNS =
      Map.of("exact_removed", "exact", "near_removed", "near");

  /** Aliases a method label of the old layout may hold for the methods it ran. */
  private static final Map<String, List<String>> OLD_LABELS =
      Map.of("exact", List.of("exact", "both"), "near", List.of("near", "both"));

  /** Room for a comma-separated list of methods in {@code dedup_run.method}. */
  static final int METHOD_WIDTH = 255;

  private RunLogMigration() {}

  static void migrate(Database database) {
    database
        .jdbi()
        .useHandle(
            handle -> {
              List<String> present =
                  OLD_COLUMNS.keySet().stream()
                      .sorted()
                      .filter(column -> ArchiveColumns.hasColumn(handle, "dedup_run", column))
                      .toList();
              for (String column : present) {
                String method = OLD_COLUMNS.get(column);
                // column comes from OLD_COLUMNS, never from input; the values are bound.
                handle
                    .createUpdate(
                        "INSERT INTO dedup_run_removed (run_id, method, removed)"
                            + " SELECT id, :method, "
                            + column
                            + " FROM dedup_run WHERE "
                            + column
                            + " > 0 OR method IN (<labels>)"
                            + " ON DUPLICATE KEY UPDATE removed = VALUES(removed)")
                    .bind("method", method)
                    .bindList("labels", OLD_LABELS.get(method))
                    .execute();
              }
              if (!present.isEmpty()) {
                try {
                  handle.execute(
                      "ALTER TABLE dedup_run "
                          + String.join(
                              ", ", present.stream().map(c -> "DROP COLUMN " + c).toList()));
                } catch (RuntimeException e) {
                  if (present.stream()
                      .anyMatch(c -> ArchiveColumns.hasColumn(handle, "dedup_run", c))) {
                    throw e; // not another command's migration: a real failure
                  }
                }
              }
              if (methodWidth(handle) < METHOD_WIDTH) {
                handle.execute(
                    "ALTER TABLE dedup_run MODIFY method VARCHAR(" + METHOD_WIDTH + ") NOT NULL");
              }
            });
  }

  private static long methodWidth(Handle handle) {
    return handle
        .createQuery(
            "SELECT CHARACTER_MAXIMUM_LENGTH FROM information_schema.columns"
                + " WHERE table_schema = DATABASE() AND table_name = 'dedup_run' AND column_name = 'method'")
        .mapTo(Long.class)
        .findOne()
        .orElse((long) METHOD_WIDTH);
  }

  /**
   * The removals per method of one run, from {@code dedup_run_removed}, or from the old columns
   * while the run log is not migrated (a read-only command such as {@code stats} does not migrate).
   */
  static Map<String, Long> removedByMethod(Handle handle, long runId) {
    Map<String, Long> removed = new LinkedHashMap<>();
    RunDao runs = handle.attach(RunDao.class);
    boolean migrated =
        runs.tableExists("dedup_run_removed")
            && OLD_COLUMNS.keySet().stream()
                .noneMatch(c -> ArchiveColumns.hasColumn(handle, "dedup_run", c));
    if (migrated) {
      return runs.removedByMethod(runId);
    }
    for (String column : OLD_COLUMNS.keySet().stream().sorted().toList()) {
      if (ArchiveColumns.hasColumn(handle, "dedup_run", column)) {
        removed.put(
            OLD_COLUMNS.get(column),
            handle
                .createQuery("SELECT " + column + " FROM dedup_run WHERE id = ?")
                .bind(0, runId)
                .mapTo(Long.class)
                .one());
      }
    }
    return removed;
  }
}
