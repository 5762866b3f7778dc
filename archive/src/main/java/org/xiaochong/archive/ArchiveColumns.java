package org.xiaochong.archive;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jdbi.v3.core.Handle;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.TableSpec;

/**
 * The column definitions of the source table and of its archive, from {@code information_schema}.
 *
 * <p>The archive is made from the source's column definitions ({@link #createArchiveSql}), so at
 * first every column has the same type and character set. A source changed later (a column added,
 * {@code TEXT} widened to {@code MEDIUMTEXT}, latin1 converted to utf8mb4) would make the archive
 * copy truncate or mangle text under a lenient {@code sql_mode}, or fail every batch under a strict
 * one. So the two are compared at every applied run and restore, and any difference stops the
 * command before a row moves.
 */
final class ArchiveColumns {
  /**
   * One column as {@code information_schema.COLUMNS} describes it: its full SQL type ({@code
   * varchar(255)}, {@code text}, …), character set, {@code EXTRA} and {@code GENERATION_EXPRESSION}
   * (null where the server has no such column or leaves it NULL).
   */
  record Column(
      String name, String type, String charset, String extra, String generationExpression) {
    /**
     * Whether the server computes the column's value ({@code AS (expr) VIRTUAL/STORED/PERSISTENT}),
     * so that no statement may write it.
     *
     * <p>Read from {@code EXTRA} word by word: MariaDB says {@code VIRTUAL GENERATED} or {@code
     * STORED GENERATED} (10.2+; {@code VIRTUAL} or {@code PERSISTENT} before), MySQL 5.7+ {@code
     * VIRTUAL GENERATED} or {@code STORED GENERATED}. MySQL 8 also says {@code DEFAULT_GENERATED}
     * (one word) of a column with an expression default such as {@code DEFAULT CURRENT_TIMESTAMP}:
     * that column is written like any other, and left out of a restore the server would fill it
     * with now. A non-empty {@code GENERATION_EXPRESSION} (MySQL 5.7+, MariaDB 10.2+) says the same
     * on its own.
     */
    boolean generated() {
      if (generationExpression != null && !generationExpression.isBlank()) {
        return true;
      }
      if (extra == null) {
        return false;
      }
      for (String word : extra.toUpperCase(Locale.ROOT).split("\\s+")) {
        if (word.equals("VIRTUAL") || word.equals("STORED") || word.equals("PERSISTENT")) {
          return true;
        }
      }
      return false;
    }
  }

  private final String sourceTable;
  private final String archiveTable;
  private final Map<String, Column> source;
  private final Map<String, Column> archive;

  ArchiveColumns(
      String sourceTable,
      String archiveTable,
      Map<String, Column> source,
      Map<String, Column> archive) {
    this.sourceTable = sourceTable;
    this.archiveTable = archiveTable;
    this.source = source;
    this.archive = archive;
  }

  static ArchiveColumns read(Handle handle, String sourceTable, String archiveTable) {
    return new ArchiveColumns(
        sourceTable, archiveTable, columns(handle, sourceTable), columns(handle, archiveTable));
  }

  /**
   * The {@code CREATE TABLE} of the archive of {@code sourceTable}: every column of the source, in
   * its order, with its type, character set and collation, NULL allowed (the archive holds what the
   * source held; a generated column becomes a plain one holding the value it had), then the
   * decision that moved the row, and the primary key {@code (dedup_run_id, <id>)}.
   *
   * <p>One statement with its primary key: servers with {@code sql_require_primary_key} (managed
   * MySQL 8) refuse a table without one, even for the moment between a {@code CREATE … AS SELECT}
   * and its {@code ALTER TABLE … ADD PRIMARY KEY}, and MySQL with GTIDs refuses {@code CREATE …
   * SELECT} before 8.0.21. {@code LIKE} would copy the source's unique keys, which would refuse a
   * row archived by a second run, and its generated columns, which would refuse the archived
   * values.
   */
  static String createArchiveSql(
      Handle handle, String sourceTable, String archiveTable, String idColumn) {
    List<String> definitions =
        handle
            .createQuery(
                "SELECT column_name, column_type, character_set_name,"
                    + " collation_name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?"
                    + " ORDER BY ordinal_position")
            .bind(0, sourceTable)
            .map(
                (rs, ctx) -> {
                  String name = rs.getString(1);
                  String charset = rs.getString(3);
                  String collation = rs.getString(4);
                  return TableSpec.quote(name)
                      + " "
                      + rs.getString(2)
                      + (charset == null
                          ? ""
                          : " CHARACTER SET "
                              + charset
                              + (collation == null ? "" : " COLLATE " + collation))
                      // The key column is NOT NULL (MySQL refuses an explicit NULL in a primary
                      // key); it is in every row.
                      + (name.equalsIgnoreCase(idColumn) ? " NOT NULL" : " NULL");
                })
            .list();
    if (definitions.isEmpty()) {
      throw new BadInputException(
          "table " + sourceTable + " has no columns the archive could copy");
    }
    return "CREATE TABLE "
        + TableSpec.quote(archiveTable)
        + " ("
        + String.join(", ", definitions)
        + ", dedup_run_id BIGINT NOT NULL, dedup_rule VARCHAR(16) NOT NULL, dedup_kept_id BIGINT NOT NULL,"
        + " dedup_score DOUBLE NOT NULL, dedup_removed_at DATETIME(3) NOT NULL,"
        + " PRIMARY KEY (dedup_run_id, "
        + TableSpec.quote(idColumn)
        + "), KEY (dedup_kept_id))"
        + " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4";
  }

  /** Whether {@code table} of the current schema has {@code column}. */
  static boolean hasColumn(Handle handle, String table, String column) {
    return !handle
        .createQuery(
            "SELECT 1 FROM information_schema.columns WHERE table_schema = DATABASE()"
                + " AND table_name = ? AND column_name = ?")
        .bind(0, table)
        .bind(1, column)
        .mapTo(Integer.class)
        .list()
        .isEmpty();
  }

  private static Map<String, Column> columns(Handle handle, String table) {
    Map<String, Column> columns = new HashMap<>();
    handle
        .createQuery(
            "SELECT column_name, column_type, character_set_name, extra, generation_expression"
                + " FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?")
        .bind(0, table)
        .map(
            (rs, ctx) ->
                new Column(
                    rs.getString(1),
                    rs.getString(2),
                    rs.getString(3),
                    rs.getString(4),
                    rs.getString(5)))
        .forEach(c -> columns.put(c.name().toLowerCase(Locale.ROOT), c));
    return columns;
  }

  /**
   * Throws a {@link BadInputException} naming the first source column the archive lacks or holds
   * with another type or character set, and the statement that makes them agree.
   */
  void requireArchiveMatches(List<String> sourceColumns) {
    for (String name : sourceColumns) {
      Column from = source.get(name.toLowerCase(Locale.ROOT));
      Column to = archive.get(name.toLowerCase(Locale.ROOT));
      if (from == null) {
        continue; // dropped between the caller's read and ours: its own check reports it
      }
      String definition =
          from.type() + (from.charset() == null ? "" : " CHARACTER SET " + from.charset());
      if (to == null) {
        throw new BadInputException(
            "archive table "
                + archiveTable
                + " has no column '"
                + from.name()
                + "' that "
                + sourceTable
                + " has: add it before running (ALTER TABLE "
                + TableSpec.quote(archiveTable)
                + " ADD COLUMN "
                + TableSpec.quote(from.name())
                + " "
                + definition
                + ")");
      }
      if (!from.type().equalsIgnoreCase(to.type())
          || !Objects.equals(from.charset(), to.charset())) {
        throw new BadInputException(
            "archive table "
                + archiveTable
                + " holds column '"
                + from.name()
                + "' as "
                + to.type()
                + (to.charset() == null ? "" : " " + to.charset())
                + " but "
                + sourceTable
                + " has "
                + definition
                + ": archived rows would not keep their values; nothing was moved. Make them agree first"
                + " (ALTER TABLE "
                + TableSpec.quote(archiveTable)
                + " MODIFY "
                + TableSpec.quote(from.name())
                + " "
                + definition
                + ")");
      }
    }
  }

  /**
   * The columns of {@code sourceColumns} a restore may write: the generated ones are computed by
   * the server.
   */
  List<String> writable(List<String> sourceColumns) {
    List<String> writable = new ArrayList<>();
    for (String name : sourceColumns) {
      Column column = source.get(name.toLowerCase(Locale.ROOT));
      if (column == null || !column.generated()) {
        writable.add(name);
      }
    }
    return writable;
  }
}
