package org.xiaochong.archive;

import static org.xiaochong.archive.ArchiveTables.q;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;

/**
 * The rows of other tables that depend on the source table's rows, and what an apply does about
 * them: the foreign keys whose parent is the source table (child table.column → table.column and
 * the ON DELETE rule, from {@code information_schema.REFERENTIAL_CONSTRAINTS} and {@code
 * KEY_COLUMN_USAGE}) and the triggers that run on its deletes ({@code
 * information_schema.TRIGGERS}).
 *
 * <p>Deleting a referenced row either fails (RESTRICT, NO ACTION: the batch is rolled back) or
 * changes the child rows behind the archive's back (CASCADE deletes them, SET NULL empties their
 * column); a DELETE trigger does whatever it was written to do. None of that is in the archive, so
 * a restore would not undo it. So an apply finds them before any row moves ({@link #check}) and,
 * unless the owner chose what to do ({@link Settings}), stops with one line naming each of them.
 *
 * <ul>
 *   <li>{@link Policy#MERGE}: the child rows of a removed row are re-pointed to its kept row in the
 *       batch's transaction, before the delete, as CRMs merge records; each change is recorded in
 *       {@code dedup_repoint} (child table, column, primary key, old and new id) and {@code
 *       restore} puts it back. A removed row whose child rows cannot be re-pointed (a unique key of
 *       the child table would then hold the same values twice, e.g. both posts tagged alike) stays
 *       in place.
 *   <li>{@link Policy#KEEP}: a removed row that any child row references stays in place.
 * </ul>
 *
 * A row left in place is marked in the plan ({@link #REFERENCED}) and counted per rule. Child table
 * and column names come from the server's metadata and are validated as identifiers before they are
 * quoted into SQL.
 *
 * <p>Immutable and thread-safe.
 */
public final class ReferencedRows {
  /** {@code dedup_plan.skipped} of a planned row left in place because child rows reference it. */
  static final int REFERENCED = 2;

  /** What an apply does with rows that child tables reference ({@code apply.referenced}). */
  public enum Policy {
    /** Stop before anything moves, naming the foreign keys (the default). */
    REFUSE,
    /** Re-point the child rows to the kept row, recorded for restore. */
    MERGE,
    /** Leave referenced rows in place. */
    KEEP;

    /** The policy named {@code value} (refuse, merge, keep). */
    public static Policy of(String value) {
      for (Policy policy : values()) {
        if (policy.name().equalsIgnoreCase(value)) {
          return policy;
        }
      }
      throw new BadInputException("apply.referenced '" + value + "' must be refuse, merge or keep");
    }
  }

  /**
   * The owner's choices.
   *
   * @param referenced what to do with rows that foreign keys of other tables reference
   * @param deleteTriggersAccepted whether the table's DELETE triggers may run for each removed row
   */
  public record Settings(Policy referenced, boolean deleteTriggersAccepted) {
    public static final Settings DEFAULT = new Settings(Policy.REFUSE, false);
  }

  /**
   * A foreign key whose parent is the source table.
   *
   * @param childKey the child table's primary key columns (empty when it has none)
   * @param uniqueKeys the child's unique keys (primary key included) that hold a column of this key
   */
  record ForeignKey(
      String name,
      String childSchema,
      String childTable,
      List<String> childColumns,
      List<String> parentColumns,
      String deleteRule,
      List<String> childKey,
      List<List<String>> uniqueKeys) {

    /**
     * {@code table.column -> parent.column (ON DELETE rule)}, schema-qualified when not the current
     * one.
     */
    String describe(String currentSchema, String parent) {
      String child = (childSchema.equals(currentSchema) ? "" : childSchema + ".") + childTable;
      return child
          + "."
          + String.join(",", childColumns)
          + " -> "
          + parent
          + "."
          + String.join(",", parentColumns)
          + " (ON DELETE "
          + deleteRule
          + ")";
    }

    String qualifiedChild() {
      return q(childSchema) + "." + q(childTable);
    }
  }

  /** No foreign keys nor triggers: an apply moves rows as it always does. */
  static final ReferencedRows NONE = new ReferencedRows(Policy.REFUSE, List.of(), "id");

  private final Policy policy;
  private final List<ForeignKey> foreignKeys;
  private final String idColumn;

  private ReferencedRows(Policy policy, List<ForeignKey> foreignKeys, String idColumn) {
    this.policy = policy;
    this.foreignKeys = List.copyOf(foreignKeys);
    this.idColumn = idColumn;
  }

  /**
   * Reads the foreign keys and DELETE triggers of the source table and checks them against the
   * owner's settings.
   *
   * @throws BadInputException one line naming each foreign key and trigger and the settings to
   *     choose, when there are some and the settings do not say what to do with them
   */
  public static ReferencedRows check(Database database, TableSpec spec, Settings settings) {
    return database
        .jdbi()
        .withHandle(
            handle -> {
              String schema = handle.createQuery("SELECT DATABASE()").mapTo(String.class).one();
              List<ForeignKey> keys = foreignKeys(handle, spec.table());
              List<String> triggers = deleteTriggers(handle, spec.table());
              String problem = problem(schema, spec, settings, keys, triggers);
              if (problem != null) {
                throw new BadInputException(problem);
              }
              return keys.isEmpty()
                  ? NONE
                  : new ReferencedRows(settings.referenced(), keys, spec.idColumn());
            });
  }

  /**
   * What an {@code --apply} with these settings would refuse, as its one line; null when it would
   * proceed. For a dry run to say so before the owner adds {@code --apply}.
   */
  public static String refusal(Database database, TableSpec spec, Settings settings) {
    try {
      check(database, spec, settings);
      return null;
    } catch (BadInputException e) {
      return e.getMessage();
    }
  }

  private static String problem(
      String schema,
      TableSpec spec,
      Settings settings,
      List<ForeignKey> keys,
      List<String> triggers) {
    List<String> parts = new ArrayList<>();
    List<String> choices = new ArrayList<>();
    if (!keys.isEmpty() && settings.referenced() == Policy.REFUSE) {
      parts.add(
          "foreign keys reference "
              + spec.table()
              + ": "
              + keys.stream()
                  .map(k -> k.describe(schema, spec.table()))
                  .collect(Collectors.joining(", ")));
      choices.add(
          "apply.referenced=merge (re-point the child rows of each removed row to its kept row; restore"
              + " puts them back) or apply.referenced=keep (leave referenced rows in place)");
    }
    if (settings.referenced() == Policy.MERGE) {
      for (ForeignKey key : keys) {
        String described = key.describe(schema, spec.table());
        if (key.parentColumns().size() != 1
            || !key.parentColumns().get(0).equalsIgnoreCase(spec.idColumn())) {
          parts.add(
              "apply.referenced=merge re-points foreign keys on "
                  + spec.idColumn()
                  + " alone, not "
                  + described);
          choices.add("apply.referenced=keep");
        } else if (key.childKey().isEmpty()) {
          parts.add(
              "apply.referenced=merge records each re-pointed child row by its primary key, and "
                  + key.childTable()
                  + " has none ("
                  + described
                  + ")");
          choices.add("a primary key on " + key.childTable() + ", or apply.referenced=keep");
        }
      }
    }
    if (!triggers.isEmpty() && !settings.deleteTriggersAccepted()) {
      parts.add(
          "DELETE triggers on "
              + spec.table()
              + " run for each removed row and the archive does not undo"
              + " what they do: "
              + String.join(", ", triggers));
      choices.add("apply.delete-triggers=accept");
    }
    if (parts.isEmpty()) {
      return null;
    }
    return "--apply stops before changing anything: "
        + String.join("; ", parts)
        + ". Choose in the config: "
        + String.join("; ", choices.stream().distinct().toList());
  }

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
      Map<String, List<String>> unique = uniqueKeys(handle, childSchema, childTable);
      List<String> primary = unique.getOrDefault("PRIMARY", List.of());
      List<List<String>> holding =
          unique.values().stream()
              .filter(
                  columns ->
                      columns.stream()
                          .anyMatch(c -> childColumns.stream().anyMatch(c::equalsIgnoreCase)))
              .toList();
      keys.add(
          new ForeignKey(
              first[1],
              childSchema,
              childTable,
              childColumns,
              parentColumns,
              first[6].toUpperCase(Locale.ROOT),
              primary,
              holding));
    }
    return keys;
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

  private static List<String> deleteTriggers(Handle handle, String table) {
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
  private static String validated(String name) {
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

  /**
   * Whether an apply does anything about references: a foreign key exists and a policy was chosen.
   */
  boolean active() {
    return !foreignKeys.isEmpty() && policy != Policy.REFUSE;
  }

  boolean merges() {
    return active() && policy == Policy.MERGE;
  }

  List<ForeignKey> foreignKeys() {
    return foreignKeys;
  }

  /**
   * An SQL condition on the removed row {@code t} and its plan row {@code p} that is true when the
   * row must stay: (keep) a child row references it; (merge) re-pointing its child rows to {@code
   * p.kept_id} would give a unique key of the child table the same values twice. Null when no row
   * must stay for that reason.
   */
  String mustStay() {
    List<String> conditions = new ArrayList<>();
    for (ForeignKey key : foreignKeys) {
      if (policy == Policy.KEEP) {
        StringBuilder match = new StringBuilder();
        for (int i = 0; i < key.childColumns().size(); i++) {
          match
              .append(i == 0 ? "" : " AND ")
              .append("c.")
              .append(q(key.childColumns().get(i)))
              .append(" = t.")
              .append(q(key.parentColumns().get(i)));
        }
        conditions.add("EXISTS (SELECT 1 FROM " + key.qualifiedChild() + " c WHERE " + match + ")");
      } else {
        String column = q(key.childColumns().get(0));
        for (List<String> unique : key.uniqueKeys()) {
          // Two child rows that differ only in the re-pointed column: after the merge they would
          // collide.
          StringBuilder same = new StringBuilder("c2." + column + " = p.kept_id");
          for (String other : unique) {
            if (!other.equalsIgnoreCase(key.childColumns().get(0))) {
              same.append(" AND c2.").append(q(other)).append(" = c1.").append(q(other));
            }
          }
          conditions.add(
              "EXISTS (SELECT 1 FROM "
                  + key.qualifiedChild()
                  + " c1 JOIN "
                  + key.qualifiedChild()
                  + " c2 ON "
                  + same
                  + " WHERE c1."
                  + column
                  + " = t."
                  + q(idColumn)
                  + ")");
        }
      }
    }
    return conditions.isEmpty() ? null : "(" + String.join(" OR ", conditions) + ")";
  }
}
