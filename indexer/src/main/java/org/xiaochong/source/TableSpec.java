package org.xiaochong.source;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.xiaochong.policy.KeepPolicy;

/**
 * Which table to read and which of its columns matter. Every name is a validated SQL identifier,
 * because table and column names cannot be bound as parameters: they are quoted with backticks
 * after validation, never concatenated raw.
 *
 * <p>The table knows the columns every method shares (id, time, the exact key's, phones) and, under
 * their config keys, the columns the methods declare for themselves ({@code
 * FingerprintMethod.columns()}: e.g. the near method's {@code fields.near}); it does not know what
 * a method does with them.
 *
 * @param table the source table
 * @param idColumn a unique, non-null integer column (the primary key)
 * @param timeColumn the DATETIME/TIMESTAMP/DATE column that orders versions; NULL counts as the
 *     oldest
 * @param exactFields the columns hashed into the exact (single MD5) key, in this order
 * @param phoneFields the subset of columns holding phone numbers, compared by their digits only
 * @param methodColumns the columns the methods read, under the config key that names them, in the
 *     order the methods declare the keys (a key may name no column)
 * @param keepPolicy which record of a group is kept ({@code keep.policy}); its columns other than
 *     the time column are read with the fingerprint columns
 */
public record TableSpec(
    String table,
    String idColumn,
    String timeColumn,
    List<String> exactFields,
    List<String> phoneFields,
    Map<String, List<String>> methodColumns,
    KeepPolicy keepPolicy) {

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]{0,63}");

  /** The columns of the sample table {@code supply_demand} that hold text, in table order. */
  public static final List<String> SAMPLE_TEXT_COLUMNS =
      List.of("title", "category", "product", "region", "price", "contact", "phone", "content");

  public TableSpec {
    requireIdentifier("source.table", table);
    requireIdentifier("source.id-column", idColumn);
    requireIdentifier("source.time-column", timeColumn);
    exactFields = List.copyOf(exactFields);
    phoneFields = List.copyOf(phoneFields);
    Map<String, List<String>> columns = new LinkedHashMap<>();
    methodColumns.forEach((key, names) -> columns.put(key, List.copyOf(names)));
    methodColumns = Collections.unmodifiableMap(columns);
    if (exactFields.isEmpty()) {
      throw new BadInputException("fields.exact is empty: name at least one column to hash");
    }
    exactFields.forEach(f -> requireIdentifier("fields.exact", f));
    phoneFields.forEach(f -> requireIdentifier("fields.phone", f));
    methodColumns.forEach((key, names) -> names.forEach(f -> requireIdentifier(key, f)));
    if (new LinkedHashSet<>(exactFields).size() != exactFields.size()) {
      throw new BadInputException("fields.exact " + exactFields + " names a column twice");
    }
    if (keepPolicy == null) {
      keepPolicy = KeepPolicy.latest(timeColumn);
    } else if (!keepPolicy.timeColumn().equals(timeColumn)) {
      throw new IllegalArgumentException(
          "keep.policy was made for time column "
              + keepPolicy.timeColumn()
              + ", not "
              + timeColumn);
    }
    for (String column : keepPolicy.valueColumns()) {
      if (column.equalsIgnoreCase(idColumn)) {
        throw new BadInputException(
            "keep.policy names the id column '"
                + column
                + "': ties are always broken by"
                + " the larger id, leave it out");
      }
    }
  }

  /** A table kept by {@code latest} ({@link KeepPolicy#latest}). */
  public TableSpec(
      String table,
      String idColumn,
      String timeColumn,
      List<String> exactFields,
      List<String> phoneFields,
      Map<String, List<String>> methodColumns) {
    this(table, idColumn, timeColumn, exactFields, phoneFields, methodColumns, null);
  }

  /** A table whose methods read no columns of their own, kept by {@code latest}. */
  public TableSpec(
      String table,
      String idColumn,
      String timeColumn,
      List<String> exactFields,
      List<String> phoneFields) {
    this(table, idColumn, timeColumn, exactFields, phoneFields, Map.of(), null);
  }

  /** This table with another keep policy. */
  public TableSpec withKeepPolicy(KeepPolicy policy) {
    return new TableSpec(
        table, idColumn, timeColumn, exactFields, phoneFields, methodColumns, policy);
  }

  /** This table with {@code key}'s columns set to {@code columns} (added last when new). */
  public TableSpec withColumns(String key, List<String> columns) {
    Map<String, List<String>> changed = new LinkedHashMap<>(methodColumns);
    changed.put(key, columns);
    return new TableSpec(
        table, idColumn, timeColumn, exactFields, phoneFields, changed, keepPolicy);
  }

  /** The columns a method declared under the config key {@code key}; empty when none. */
  public List<String> columns(String key) {
    return methodColumns.getOrDefault(key, List.of());
  }

  /** The sample table with every text column in the exact key and {@code phone} as its phone. */
  public static TableSpec sample() {
    return new TableSpec("supply_demand", "id", "reg_time", SAMPLE_TEXT_COLUMNS, List.of("phone"));
  }

  /** The name of the archive table: {@code <table>_removed}. */
  public String removedTable() {
    return table + "_removed";
  }

  /**
   * Columns to read for fingerprints: the exact fields, then the methods' columns not already in
   * them (in {@link #methodColumns}' order), then the keep policy's columns other than the time
   * column (so the row checksum covers them: a row whose policy value changed is indexed again with
   * its new rank).
   */
  public List<String> fingerprintColumns() {
    Set<String> columns = new LinkedHashSet<>(exactFields);
    methodColumns.values().forEach(columns::addAll);
    columns.addAll(keepPolicy.valueColumns());
    return List.copyOf(columns);
  }

  /** Quotes a validated identifier for SQL: {@code `name`}. */
  public static String quote(String identifier) {
    requireIdentifier("identifier", identifier);
    return "`" + identifier + "`";
  }

  static void requireIdentifier(String key, String name) {
    if (name == null || !IDENTIFIER.matcher(name).matches()) {
      throw new BadInputException(
          key
              + " '"
              + name
              + "' is not a valid SQL identifier (letters, digits, _ and $, at most 64)");
    }
  }
}
