package org.xiaochong.source;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which table to read and which of its columns matter. Every name is a validated SQL identifier,
 * because table and column names cannot be bound as parameters: they are quoted with backticks after
 * validation, never concatenated raw.
 *
 * @param table the source table
 * @param idColumn a unique, non-null integer column (the primary key)
 * @param timeColumn the DATETIME/TIMESTAMP/DATE column that orders versions; NULL counts as the oldest
 * @param exactFields the columns hashed into the exact (single MD5) key, in this order
 * @param phoneFields the subset of columns holding phone numbers, compared by their digits only
 * @param nearFields the columns segmented into multi-MD5 fingerprints (may be empty)
 */
public record TableSpec(
    String table,
    String idColumn,
    String timeColumn,
    List<String> exactFields,
    List<String> phoneFields,
    List<String> nearFields) {

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
    nearFields = List.copyOf(nearFields);
    if (exactFields.isEmpty()) {
      throw new BadInputException("fields.exact is empty: name at least one column to hash");
    }
    exactFields.forEach(f -> requireIdentifier("fields.exact", f));
    phoneFields.forEach(f -> requireIdentifier("fields.phone", f));
    nearFields.forEach(f -> requireIdentifier("fields.near", f));
    if (new LinkedHashSet<>(exactFields).size() != exactFields.size()) {
      throw new BadInputException("fields.exact " + exactFields + " names a column twice");
    }
  }

  /** The sample table with every text column in the exact key and the default near fields. */
  public static TableSpec sample() {
    return new TableSpec(
        "supply_demand", "id", "reg_time", SAMPLE_TEXT_COLUMNS, List.of("phone"),
        List.of("title", "product", "content"));
  }

  /** The name of the archive table: {@code <table>_removed}. */
  public String removedTable() {
    return table + "_removed";
  }

  /** Columns to read for fingerprints: the exact fields, then near fields not already in them. */
  public List<String> fingerprintColumns() {
    Set<String> columns = new LinkedHashSet<>(exactFields);
    columns.addAll(nearFields);
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
          key + " '" + name + "' is not a valid SQL identifier (letters, digits, _ and $, at most 64)");
    }
  }
}
