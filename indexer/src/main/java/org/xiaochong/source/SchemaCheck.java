package org.xiaochong.source;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jdbi.v3.core.Handle;

/**
 * Checks the source table against the configuration: the table exists, every configured column
 * exists with a usable type, and the id is unique. Each failure is a {@link BadInputException}
 * naming the key, the column and what is wrong. Thread-safe: each check uses its own connection.
 */
final class SchemaCheck {
  private final Database database;
  private final TableSpec spec;

  SchemaCheck(Database database, TableSpec spec) {
    this.database = database;
    this.spec = spec;
  }

  /** See {@link RecordSource#checkSchema}. */
  List<String> checkSchema() {
    return database
        .jdbi()
        .withHandle(
            handle -> {
              try (var statement = handle.getConnection().createStatement();
                  ResultSet rs =
                      statement.executeQuery(
                          "SELECT * FROM " + TableSpec.quote(spec.table()) + " LIMIT 0")) {
                ResultSetMetaData meta = rs.getMetaData();
                List<String> all = new ArrayList<>();
                List<Integer> types = new ArrayList<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                  all.add(meta.getColumnName(i));
                  types.add(meta.getColumnType(i));
                }
                List<String> lower = all.stream().map(c -> c.toLowerCase(Locale.ROOT)).toList();
                requireColumn("source.id-column", spec.idColumn(), lower, all);
                requireColumn("source.time-column", spec.timeColumn(), lower, all);
                for (String field : spec.exactFields()) {
                  requireColumn("fields.exact", field, lower, all);
                }
                for (Map.Entry<String, List<String>> key : spec.methodColumns().entrySet()) {
                  for (String field : key.getValue()) {
                    requireColumn(key.getKey(), field, lower, all);
                  }
                }
                requireType(
                    "source.id-column",
                    spec.idColumn(),
                    ID_TYPES,
                    "an integer column",
                    lower,
                    types);
                requireType(
                    "source.time-column",
                    spec.timeColumn(),
                    TIME_TYPES,
                    "DATETIME, TIMESTAMP or DATE",
                    lower,
                    types);
                for (String column : spec.keepPolicy().valueColumns()) {
                  requireColumn("keep.policy", column, lower, all);
                  int type = types.get(lower.indexOf(column.toLowerCase(Locale.ROOT)));
                  if (!KEEP_POLICY_TYPES.contains(type)) {
                    throw new BadInputException(
                        "keep.policy column '"
                            + column
                            + "' of table '"
                            + spec.table()
                            + "' is "
                            + meta.getColumnTypeName(
                                lower.indexOf(column.toLowerCase(Locale.ROOT)) + 1)
                            + ": it must be an integer (TINYINT … BIGINT, BOOLEAN, YEAR) or a DATE, DATETIME or TIMESTAMP column"
                            + " (text orders by collation, decimals by value: neither is ranked the same way in Java and SQL)");
                  }
                }
                requireUniqueId(handle);
                return all;
              } catch (SQLException e) {
                if (SqlError.MISSING_TABLE.matches(e)) {
                  throw new BadInputException(
                      "source.table '"
                          + spec.table()
                          + "' does not exist in "
                          + database.displayUrl(),
                      e);
                }
                throw new IllegalStateException(
                    "cannot read the columns of " + spec.table() + ": " + e.getMessage(), e);
              }
            });
  }

  /** The unique indexes on the id column alone, PRIMARY first. */
  private List<String> uniqueIdIndexes(Handle handle) {
    return handle
        .createQuery(
            "SELECT index_name FROM information_schema.statistics"
                + " WHERE table_schema = DATABASE() AND table_name = ? GROUP BY index_name"
                + " HAVING MAX(non_unique) = 0 AND COUNT(*) = 1 AND MAX(LOWER(column_name)) = LOWER(?)"
                + " ORDER BY index_name <> 'PRIMARY', index_name")
        .bind(0, spec.table())
        .bind(1, spec.idColumn())
        .mapTo(String.class)
        .list();
  }

  /**
   * The name of the unique index on the id column ({@code PRIMARY} when the id is the primary key),
   * for statements that must look rows up by id whatever the optimizer's statistics say.
   *
   * @throws BadInputException when the id has no unique index of its own
   */
  String idIndex() {
    List<String> indexes = database.jdbi().withHandle(this::uniqueIdIndexes);
    if (indexes.isEmpty()) {
      database.jdbi().useHandle(this::requireUniqueId);
    }
    return indexes.get(0);
  }

  /**
   * Rows are told apart by their id alone (the index, the plan and the archive key on it), so the
   * id column must be the primary key or carry a unique index of its own; two rows with one id
   * would make the archive's key fail on every apply.
   */
  private void requireUniqueId(Handle handle) {
    boolean unique = !uniqueIdIndexes(handle).isEmpty();
    if (!unique) {
      throw new BadInputException(
          "source.id-column '"
              + spec.idColumn()
              + "' of table '"
              + spec.table()
              + "' is not unique (no PRIMARY KEY or UNIQUE index on it alone): rows are told apart by it; add one,"
              + " e.g. ALTER TABLE "
              + TableSpec.quote(spec.table())
              + " ADD PRIMARY KEY ("
              + TableSpec.quote(spec.idColumn())
              + ")");
    }
  }

  /**
   * JDBC types a keep.policy column may have: integers and dates, ranked alike by the index and the
   * server.
   */
  private static final Set<Integer> KEEP_POLICY_TYPES =
      Set.of(
          Types.TINYINT,
          Types.SMALLINT,
          Types.INTEGER,
          Types.BIGINT,
          Types.BIT,
          Types.BOOLEAN,
          Types.DATE,
          Types.TIMESTAMP,
          Types.TIMESTAMP_WITH_TIMEZONE);

  /** JDBC types of an id column. */
  private static final Set<Integer> ID_TYPES =
      Set.of(Types.BIGINT, Types.INTEGER, Types.SMALLINT, Types.TINYINT);

  /** JDBC types of a time column: DATETIME, TIMESTAMP, DATE. */
  private static final Set<Integer> TIME_TYPES =
      Set.of(Types.TIMESTAMP, Types.DATE, Types.TIMESTAMP_WITH_TIMEZONE);

  /** Checks that {@code column} (which exists) has one of the {@code allowed} types. */
  private void requireType(
      String key,
      String column,
      Set<Integer> allowed,
      String what,
      List<String> lower,
      List<Integer> types) {
    int type = types.get(lower.indexOf(column.toLowerCase(Locale.ROOT)));
    if (!allowed.contains(type)) {
      throw new BadInputException(
          key + " '" + column + "' of table '" + spec.table() + "' must be " + what);
    }
  }

  private void requireColumn(String key, String column, List<String> lower, List<String> all) {
    if (!lower.contains(column.toLowerCase(Locale.ROOT))) {
      throw new BadInputException(
          key
              + " names column '"
              + column
              + "' that table '"
              + spec.table()
              + "' does not have (it has: "
              + String.join(", ", all)
              + ")");
    }
  }

  /**
   * Checks that {@code column} exists in the table and is DATETIME or TIMESTAMP
   * (source.updated-column); throws {@link BadInputException} naming what is wrong.
   */
  void checkUpdatedColumn(String column) {
    database
        .jdbi()
        .useHandle(
            handle -> {
              try (var statement = handle.getConnection().createStatement();
                  ResultSet rs =
                      statement.executeQuery(
                          "SELECT "
                              + TableSpec.quote(column)
                              + " FROM "
                              + TableSpec.quote(spec.table())
                              + " LIMIT 0")) {
                int type = rs.getMetaData().getColumnType(1);
                if (type != Types.TIMESTAMP && type != Types.TIMESTAMP_WITH_TIMEZONE) {
                  throw new BadInputException(
                      "source.updated-column '"
                          + column
                          + "' of table '"
                          + spec.table()
                          + "' must be DATETIME or TIMESTAMP");
                }
              } catch (SQLException e) {
                throw new BadInputException(
                    "source.updated-column '"
                        + column
                        + "' is not a column of table '"
                        + spec.table()
                        + "': "
                        + Database.rootMessage(e),
                    e);
              }
            });
  }
}
