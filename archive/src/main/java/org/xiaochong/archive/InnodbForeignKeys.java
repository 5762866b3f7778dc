package org.xiaochong.archive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Handle;
import org.xiaochong.archive.ReferencedRows.ForeignKey;

/**
 * The foreign keys InnoDB's dictionary holds for a parent table, whatever schema their child tables
 * are in and whatever rights the login has on them: {@code information_schema.INNODB_SYS_FOREIGN}
 * and {@code INNODB_SYS_FOREIGN_COLS} (MariaDB, MySQL 5.7) or {@code INNODB_FOREIGN} and {@code
 * INNODB_FOREIGN_COLS} (MySQL 8). Both need the PROCESS privilege. The dictionary names tables as
 * {@code schema/table} in the server's file-name encoding ({@code @0024} for {@code $}) and gives
 * the ON DELETE rule as bits of {@code TYPE}.
 */
final class InnodbForeignKeys {
  private InnodbForeignKeys() {}

  /** The dictionary's tables: MariaDB and MySQL 5.7, then MySQL 8. */
  private static final String[][] TABLES = {
    {"innodb_sys_foreign", "innodb_sys_foreign_cols"}, {"innodb_foreign", "innodb_foreign_cols"}
  };

  /** {@code TYPE} bits of the ON DELETE rule (dict0mem.h); neither set is RESTRICT. */
  private static final int ON_DELETE_CASCADE = 1;

  private static final int ON_DELETE_SET_NULL = 2;
  private static final int ON_DELETE_NO_ACTION = 16;

  private static final Pattern ENCODED = Pattern.compile("@([0-9a-fA-F]{4})");

  /**
   * The keys whose parent is {@code table} of the current schema, each marked not visible (its
   * child's unique keys are not read: the login may not see them); null when the login may read
   * neither form of the dictionary.
   */
  static List<ForeignKey> read(Handle handle, String table) {
    for (String[] names : TABLES) {
      try {
        return read(handle, table, names[0], names[1]);
      } catch (RuntimeException e) {
        // No such table on this server, or no PROCESS privilege: try the other form.
      }
    }
    return null;
  }

  private static List<ForeignKey> read(Handle handle, String table, String keys, String columns) {
    String schema = handle.createQuery("SELECT DATABASE()").mapTo(String.class).one();
    boolean caseSensitive =
        handle.createQuery("SELECT @@lower_case_table_names").mapTo(Integer.class).one() == 0;
    String parent = schema + "/" + table;
    Map<String, List<String[]>> byKey = new LinkedHashMap<>();
    handle
        .createQuery(
            "SELECT f.id, f.for_name, f.ref_name, f.type, c.for_col_name, c.ref_col_name"
                + " FROM information_schema."
                + keys
                + " f JOIN information_schema."
                + columns
                + " c ON c.id = f.id WHERE f.ref_name = ? ORDER BY f.for_name, f.id, c.pos")
        .bind(0, encoded(parent))
        .map(
            (rs, ctx) ->
                new String[] {
                  rs.getString(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getString(6)
                })
        .forEach(
            row -> {
              String refName = decoded(row[2]);
              if (caseSensitive ? refName.equals(parent) : refName.equalsIgnoreCase(parent)) {
                byKey.computeIfAbsent(row[0], k -> new ArrayList<>()).add(row);
              }
            });
    List<ForeignKey> found = new ArrayList<>();
    for (List<String[]> rows : byKey.values()) {
      String[] first = rows.get(0);
      String[] child = decoded(first[1]).split("/", 2);
      String id = decoded(first[0]);
      found.add(
          new ForeignKey(
              id.substring(id.indexOf('/') + 1),
              ReferenceMetadata.validated(child[0]),
              ReferenceMetadata.validated(child[1]),
              rows.stream().map(r -> ReferenceMetadata.validated(r[4])).toList(),
              rows.stream().map(r -> ReferenceMetadata.validated(r[5])).toList(),
              deleteRule(Integer.parseInt(first[3])),
              List.of(),
              List.of(),
              false));
    }
    return found;
  }

  /** The ON DELETE rule of a {@code TYPE} value. */
  static String deleteRule(int type) {
    if ((type & ON_DELETE_CASCADE) != 0) {
      return "CASCADE";
    }
    if ((type & ON_DELETE_SET_NULL) != 0) {
      return "SET NULL";
    }
    return (type & ON_DELETE_NO_ACTION) != 0 ? "NO ACTION" : "RESTRICT";
  }

  /**
   * A name as the dictionary writes it: characters other than ASCII letters, digits, _ and /
   * as @XXXX.
   */
  static String encoded(String name) {
    StringBuilder out = new StringBuilder();
    for (char c : name.toCharArray()) {
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '_'
          || c == '/') {
        out.append(c);
      } else {
        out.append(String.format("@%04x", (int) c));
      }
    }
    return out.toString();
  }

  /** A dictionary name with the file-name encoding's {@code @XXXX} turned back into characters. */
  static String decoded(String name) {
    Matcher m = ENCODED.matcher(name);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(
          out, Matcher.quoteReplacement(String.valueOf((char) Integer.parseInt(m.group(1), 16))));
    }
    m.appendTail(out);
    return out.toString();
  }
}
