package org.xiaochong.archive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.xiaochong.archive.ReferencedRows.ForeignKey;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.TableSpec;

/**
 * What the server's metadata says depends on the source table's rows ({@link ReferencedRows}): the
 * foreign keys whose parent it is ({@code information_schema.REFERENTIAL_CONSTRAINTS}, {@code
 * KEY_COLUMN_USAGE}, the child tables' unique keys from {@code STATISTICS}) and its DELETE triggers
 * ({@code TRIGGERS}). Every name read is validated as an identifier before it is quoted into SQL.
 */
final class ReferenceMetadata {
  private ReferenceMetadata() {}

  /**
   * The foreign keys whose parent is {@code table}, and whether they are all of them.
   *
   * @param keys those {@code REFERENTIAL_CONSTRAINTS} shows, then those only InnoDB's dictionary
   *     holds (child tables in schemas this login has no right on)
   * @param complete false when neither the dictionary nor a global table right vouches that no key
   *     is missing
   */
  record Found(List<ForeignKey> keys, boolean complete) {}

  /** Table rights at the global level: with any of them the server shows the login every table. */
  private static final List<String> TABLE_RIGHTS =
      List.of(
          "SELECT",
          "INSERT",
          "UPDATE",
          "DELETE",
          "CREATE",
          "DROP",
          "REFERENCES",
          "INDEX",
          "ALTER",
          "CREATE VIEW",
          "SHOW VIEW",
          "TRIGGER",
          "DELETE HISTORY");

  /**
   * Every foreign key whose parent is {@code table} in the current schema that the server lets this
   * login know of. {@code REFERENTIAL_CONSTRAINTS} shows only the keys of child tables the login
   * has a right on, so InnoDB's own dictionary is read as well ({@code INNODB_SYS_FOREIGN} of
   * MariaDB and MySQL 5.7, {@code INNODB_FOREIGN} of MySQL 8; both need the PROCESS privilege),
   * which holds every key of the server: InnoDB is the only engine with foreign keys.
   */
  static Found referencingKeys(Handle handle, String table) {
    List<ForeignKey> seen = foreignKeys(handle, table);
    List<ForeignKey> dictionary = InnodbForeignKeys.read(handle, table);
    if (dictionary == null) {
      return new Found(seen, globalTableRight(handle));
    }
    List<ForeignKey> all = new ArrayList<>(seen);
    for (ForeignKey key : dictionary) {
      boolean known =
          seen.stream()
              .anyMatch(
                  k ->
                      k.childSchema().equalsIgnoreCase(key.childSchema())
                          && k.childTable().equalsIgnoreCase(key.childTable())
                          && k.name().equalsIgnoreCase(key.name()));
      if (!known) {
        all.add(
            visible(handle, key.childSchema(), key.childTable())
                ? withChildKeys(handle, key)
                : key);
      }
    }
    return new Found(all, true);
  }

  /** Whether the login holds a table right on every table ({@code GRANT SELECT ON *.*}, …). */
  private static boolean globalTableRight(Handle handle) {
    try {
      return handle
          .createQuery("SELECT privilege_type FROM information_schema.user_privileges")
          .mapTo(String.class)
          .list()
          .stream()
          .anyMatch(TABLE_RIGHTS::contains);
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * The foreign keys whose parent is {@code table} in the current schema, as {@code
   * REFERENTIAL_CONSTRAINTS} shows them to this login, each with its child table's primary key and
   * the unique keys that hold one of its columns.
   */
  private static List<ForeignKey> foreignKeys(Handle handle, String table) {
    Map<String, List<String[]>> byConstraint = new LinkedHashMap<>();
    handle
        .createQuery(
            "SELECT k.constraint_schema, k.constraint_name, k.table_schema, k.table_name, k.column_name,"
                + " k.referenced_column_name, r.delete_rule FROM information_schema.key_column_usage k"
                + " JOIN information_schema.referential_constraints r ON r.constraint_schema = k.constraint_schema"
                + " AND r.constraint_name = k.constraint_name AND r.table_name = k.table_name"
                + " WHERE k.referenced_table_schema = DATABASE() AND k.referenced_table_name = ?"
                + " ORDER BY k.table_schema, k.table_name, k.constraint_name, k.ordinal_position")
        .bind(0, table)
        .map(
            (rs, ctx) ->
                new String[] {
                  rs.getString(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getString(6),
                  rs.getString(7)
                })
        .forEach(
            row ->
                byConstraint
                    .computeIfAbsent(
                        row[0] + "." + row[2] + "." + row[3] + "." + row[1], c -> new ArrayList<>())
                    .add(row));
    List<ForeignKey> keys = new ArrayList<>();
    for (List<String[]> rows : byConstraint.values()) {
      String[] first = rows.get(0);
      String childSchema = validated(first[2]);
      String childTable = validated(first[3]);
      List<String> childColumns = rows.stream().map(r -> validated(r[4])).toList();
      List<String> parentColumns = rows.stream().map(r -> validated(r[5])).toList();
      keys.add(
          withChildKeys(
              handle,
              new ForeignKey(
                  first[1],
                  childSchema,
                  childTable,
                  childColumns,
                  parentColumns,
                  first[6].toUpperCase(Locale.ROOT),
                  List.of(),
                  List.of(),
                  true)));
    }
    return keys;
  }

  /**
   * {@code key} with its child table's primary key and the unique keys that hold one of its
   * columns, as {@code STATISTICS} shows them.
   */
  private static ForeignKey withChildKeys(Handle handle, ForeignKey key) {
    Map<String, List<String>> unique = uniqueKeys(handle, key.childSchema(), key.childTable());
    List<String> primary = unique.getOrDefault("PRIMARY", List.of());
    List<List<String>> holding =
        unique.values().stream()
            .filter(
                columns ->
                    columns.stream()
                        .anyMatch(c -> key.childColumns().stream().anyMatch(c::equalsIgnoreCase)))
            .toList();
    return new ForeignKey(
        key.name(),
        key.childSchema(),
        key.childTable(),
        key.childColumns(),
        key.parentColumns(),
        key.deleteRule(),
        primary,
        holding,
        true);
  }

  /**
   * Whether the login sees the table in {@code information_schema.TABLES}: it has a right on it. A
   * right on the table alone (not its schema) shows the table there but not its keys in {@code
   * REFERENTIAL_CONSTRAINTS}.
   */
  private static boolean visible(Handle handle, String schema, String table) {
    return handle
            .createQuery(
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?")
            .bind(0, schema)
            .bind(1, table)
            .mapTo(Long.class)
            .one()
        > 0;
  }

  /** The unique indexes of a table, primary key as "PRIMARY", each its columns in index order. */
  private static Map<String, List<String>> uniqueKeys(Handle handle, String schema, String table) {
    Map<String, List<String>> keys = new LinkedHashMap<>();
    handle
        .createQuery(
            "SELECT index_name, column_name FROM information_schema.statistics WHERE table_schema = ?"
                + " AND table_name = ? AND non_unique = 0 ORDER BY index_name, seq_in_index")
        .bind(0, schema)
        .bind(1, table)
        .map((rs, ctx) -> new String[] {rs.getString(1), rs.getString(2)})
        .forEach(
            row -> keys.computeIfAbsent(row[0], k -> new ArrayList<>()).add(validated(row[1])));
    return keys;
  }

  /** The DELETE triggers on {@code table}, each as {@code name (BEFORE|AFTER DELETE)}. */
  static List<String> deleteTriggers(Handle handle, String table) {
    return handle
        .createQuery(
            "SELECT trigger_name, action_timing FROM information_schema.triggers"
                + " WHERE event_object_schema = DATABASE() AND event_object_table = ? AND event_manipulation = 'DELETE'"
                + " ORDER BY trigger_name")
        .bind(0, table)
        .map((rs, ctx) -> rs.getString(1) + " (" + rs.getString(2) + " DELETE)")
        .list();
  }

  /** A name from the server's metadata, checked to be an identifier we quote safely. */
  static String validated(String name) {
    try {
      TableSpec.quote(name);
    } catch (BadInputException e) {
      throw new BadInputException(
          "a table referencing the source has a name dedup cannot quote safely ('"
              + name
              + "': letters, digits, _ and $ only)",
          e);
    }
    return name;
  }
}
