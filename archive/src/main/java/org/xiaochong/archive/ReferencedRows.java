package org.xiaochong.archive;

import static org.xiaochong.archive.ArchiveTables.q;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.SqlError;
import org.xiaochong.source.TableSpec;

/**
 * The rows of other tables that depend on the source table's rows, and what an apply does about
 * them: the foreign keys whose parent is the source table (child table.column → table.column and
 * the ON DELETE rule, from {@code information_schema.REFERENTIAL_CONSTRAINTS} and {@code
 * KEY_COLUMN_USAGE}, and from InnoDB's dictionary for child tables the login cannot see: {@link
 * InnodbForeignKeys}) and the triggers that run on its deletes ({@code
 * information_schema.TRIGGERS}). When the login can read neither the dictionary nor every table, an
 * apply stops: a key it cannot know of could delete child rows unseen.
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
   * @param visible whether the login sees the child table (false: a key only InnoDB's dictionary
   *     named, its child keys unknown)
   */
  record ForeignKey(
      String name,
      String childSchema,
      String childTable,
      List<String> childColumns,
      List<String> parentColumns,
      String deleteRule,
      List<String> childKey,
      List<List<String>> uniqueKeys,
      boolean visible) {

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
  static final ReferencedRows NONE =
      new ReferencedRows(Settings.DEFAULT, List.of(), List.of(), "id");

  private final Policy policy;
  private final Settings settings;
  private final List<ForeignKey> foreignKeys;
  private final List<String> triggers;
  private final String idColumn;

  private ReferencedRows(
      Settings settings, List<ForeignKey> foreignKeys, List<String> triggers, String idColumn) {
    this.policy = settings.referenced();
    this.settings = settings;
    this.foreignKeys = List.copyOf(foreignKeys);
    this.triggers = List.copyOf(triggers);
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
              ReferenceMetadata.Found found =
                  ReferenceMetadata.referencingKeys(handle, spec.table());
              if (!found.complete()) {
                throw new BadInputException(unreadable(spec));
              }
              List<ForeignKey> keys = found.keys();
              List<String> triggers = ReferenceMetadata.deleteTriggers(handle, spec.table());
              String problem = problem(schema, spec, settings, keys, triggers);
              if (problem == null && settings.referenced() == Policy.MERGE) {
                problem = updateDenied(handle, keys);
              }
              if (problem != null) {
                throw new BadInputException(problem);
              }
              return new ReferencedRows(settings, keys, triggers, spec.idColumn());
            });
  }

  /**
   * The one line of an apply that cannot know every foreign key on the table: the server shows a
   * login only the keys of the tables it has a right on, and a CASCADE key in another schema would
   * delete child rows unseen.
   */
  private static String unreadable(TableSpec spec) {
    return "--apply stops before changing anything: this login cannot read every foreign key that"
        + " references "
        + spec.table()
        + " (information_schema.REFERENTIAL_CONSTRAINTS shows only the tables it has rights on, and"
        + " reading INNODB_SYS_FOREIGN or INNODB_FOREIGN needs the PROCESS privilege), so a key in"
        + " another schema (ON DELETE CASCADE) could delete child rows unseen. Grant it PROCESS"
        + " (GRANT PROCESS ON *.* TO the login), or SELECT on every table (GRANT SELECT ON *.*)";
  }

  /**
   * A merge updates the child tables: without UPDATE on one, every batch and every later resume
   * would fail. An UPDATE that matches no row asks the server for the right (and fires no trigger);
   * the one line naming the first child table the login may not update, or null.
   */
  private static String updateDenied(Handle handle, List<ForeignKey> keys) {
    for (ForeignKey key : keys) {
      String column = q(key.childColumns().get(0));
      try {
        handle.execute(
            "UPDATE " + key.qualifiedChild() + " SET " + column + " = " + column + " WHERE FALSE");
      } catch (RuntimeException e) {
        if (!SqlError.ACCESS_DENIED.matches(e)) {
          continue; // e.g. a read-only replica under a dry run: the apply finds out itself
        }
        return "--apply stops before changing anything: apply.referenced=merge re-points the child"
            + " rows of "
            + key.childSchema()
            + "."
            + key.childTable()
            + ", and this login may not UPDATE that table ("
            + Database.rootMessage(e)
            + "). Grant UPDATE on it, or choose apply.referenced=keep";
      }
    }
    return null;
  }

  /**
   * Reads the foreign keys and DELETE triggers again, right before the first batch: one added while
   * the run's passes took their time (a CASCADE key would delete child rows unseen, a new trigger
   * would run unasked) stops the apply here, with nothing moved and no run written.
   *
   * @throws BadInputException one line: what the settings refuse now, or what changed since the run
   *     started
   */
  public void requireUnchanged(Database database, TableSpec spec) {
    if (this == NONE) {
      return; // a mover made without the check (a test's): nothing to compare with
    }
    ReferencedRows now = check(database, spec, settings);
    if (!now.foreignKeys.equals(foreignKeys) || !now.triggers.equals(triggers)) {
      throw new BadInputException(
          "--apply stops before changing anything: the foreign keys or DELETE triggers of "
              + spec.table()
              + " changed while the run read and compared it (now "
              + now.foreignKeys.size()
              + " foreign keys, "
              + now.triggers.size()
              + " triggers; "
              + foreignKeys.size()
              + " and "
              + triggers.size()
              + " when it started); run it again");
    }
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
    if (settings.referenced() != Policy.REFUSE) {
      for (ForeignKey key : keys) {
        if (!key.visible()) {
          parts.add(
              (settings.referenced() == Policy.MERGE
                      ? "apply.referenced=merge re-points the child rows of "
                      : "apply.referenced=keep looks up the child rows of ")
                  + key.describe(schema, spec.table())
                  + ", a table this login has no rights on");
          choices.add(
              "grant the login SELECT and UPDATE on " + key.childSchema() + "." + key.childTable());
        }
      }
    }
    if (settings.referenced() == Policy.MERGE) {
      for (ForeignKey key : keys) {
        String described = key.describe(schema, spec.table());
        if (!key.visible()) {
          continue;
        }
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
