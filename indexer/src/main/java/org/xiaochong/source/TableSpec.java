package org.xiaochong.source;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.xiaochong.policy.KeepPolicy;

/**
 * Which table to read and which of its columns matter. Every name is a validated SQL identifier,
 * because table and column names cannot be bound as parameters: they are quoted with backticks
 * after validation, never concatenated raw.
 *
 * @param table the source table
 * @param idColumn a unique, non-null integer column (the primary key)
 * @param timeColumn the DATETIME/TIMESTAMP/DATE column that orders versions; NULL counts as the
 *     oldest
 * @param exactFields the columns hashed into the exact (single MD5) key, in this order
 * @param phoneFields the subset of columns holding phone numbers, compared by their digits only
 * @param nearFields the columns segmented into multi-MD5 fingerprints (may be empty)
 * @param mustMatchFields columns whose values (normalized and folded) must be equal for two records
 *     to be near duplicates, when both are non-empty: a blocking rule, like dedupe's and Splink's
 *     (may be empty)
 * @param placeFields columns naming where the item is (region, address, estate) or exactly what it
 *     is (a year, a model): when two records both have a value and the values differ (normalized
 *     and folded), the difference counts against them in the near rule's similarity (may be empty)
 * @param numberFields columns whose first number identifies the item (quantity, area, price): when
 *     two records both have one, of the same unit, and they differ by more than 20 %, the
 *     difference counts against them (may be empty)
 * @param sellerFields columns naming who offers the item (a contact name), compared when two
 *     records have no phone to compare: the same seller's repost of an offer at a new price or lot
 *     is a near duplicate (may be empty)
 * @param keepPolicy which record of a group is kept ({@code keep.policy}); its columns other than
 *     the time column are read with the fingerprint columns
 */
public record TableSpec(
    String table,
    String idColumn,
    String timeColumn,
    List<String> exactFields,
    List<String> phoneFields,
    List<String> nearFields,
    List<String> mustMatchFields,
    List<String> placeFields,
    List<String> numberFields,
    List<String> sellerFields,
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
    nearFields = List.copyOf(nearFields);
    mustMatchFields = List.copyOf(mustMatchFields);
    placeFields = List.copyOf(placeFields);
    numberFields = List.copyOf(numberFields);
    sellerFields = List.copyOf(sellerFields);
    if (exactFields.isEmpty()) {
      throw new BadInputException("fields.exact is empty: name at least one column to hash");
    }
    exactFields.forEach(f -> requireIdentifier("fields.exact", f));
    phoneFields.forEach(f -> requireIdentifier("fields.phone", f));
    nearFields.forEach(f -> requireIdentifier("fields.near", f));
    mustMatchFields.forEach(f -> requireIdentifier("fields.must-match", f));
    placeFields.forEach(f -> requireIdentifier("fields.place", f));
    numberFields.forEach(f -> requireIdentifier("fields.number", f));
    sellerFields.forEach(f -> requireIdentifier("fields.seller", f));
    for (String place : placeFields) {
      if (numberFields.contains(place)) {
        throw new BadInputException(
            "column '" + place + "' is in both fields.place and fields.number: name it in one");
      }
    }
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

  /** A table without seller columns. */
  public TableSpec(
      String table,
      String idColumn,
      String timeColumn,
      List<String> exactFields,
      List<String> phoneFields,
      List<String> nearFields,
      List<String> mustMatchFields,
      List<String> placeFields,
      List<String> numberFields,
      KeepPolicy keepPolicy) {
    this(
        table,
        idColumn,
        timeColumn,
        exactFields,
        phoneFields,
        nearFields,
        mustMatchFields,
        placeFields,
        numberFields,
        List.of(),
        keepPolicy);
  }

  /** A table kept by {@code latest} ({@link KeepPolicy#latest}). */
  public TableSpec(
      String table,
      String idColumn,
      String timeColumn,
      List<String> exactFields,
      List<String> phoneFields,
      List<String> nearFields,
      List<String> mustMatchFields,
      List<String> placeFields,
      List<String> numberFields) {
    this(
        table,
        idColumn,
        timeColumn,
        exactFields,
        phoneFields,
        nearFields,
        mustMatchFields,
        placeFields,
        numberFields,
        null);
  }

  /** This table with another keep policy. */
  public TableSpec withKeepPolicy(KeepPolicy policy) {
    return new TableSpec(
        table,
        idColumn,
        timeColumn,
        exactFields,
        phoneFields,
        nearFields,
        mustMatchFields,
        placeFields,
        numberFields,
        sellerFields,
        policy);
  }

  /** A table without place or number fields. */
  public TableSpec(
      String table,
      String idColumn,
      String timeColumn,
      List<String> exactFields,
      List<String> phoneFields,
      List<String> nearFields,
      List<String> mustMatchFields) {
    this(
        table,
        idColumn,
        timeColumn,
        exactFields,
        phoneFields,
        nearFields,
        mustMatchFields,
        List.of(),
        List.of());
  }

  /** A table without must-match, place or number fields. */
  public TableSpec(
      String table,
      String idColumn,
      String timeColumn,
      List<String> exactFields,
      List<String> phoneFields,
      List<String> nearFields) {
    this(table, idColumn, timeColumn, exactFields, phoneFields, nearFields, List.of());
  }

  /**
   * The sample table with every text column in the exact key and the default near, must-match,
   * place, number and seller fields.
   */
  public static TableSpec sample() {
    return new TableSpec(
        "supply_demand",
        "id",
        "reg_time",
        SAMPLE_TEXT_COLUMNS,
        List.of("phone"),
        List.of("title", "product", "content"),
        List.of("product"),
        List.of("region"),
        List.of("price"),
        List.of("contact"),
        null);
  }

  /** The name of the archive table: {@code <table>_removed}. */
  public String removedTable() {
    return table + "_removed";
  }

  /**
   * Columns to read for fingerprints: the exact fields, then near, must-match, place, number and
   * seller fields not already in them, then the keep policy's columns other than the time column
   * (so the row checksum covers them: a row whose policy value changed is indexed again with its
   * new rank).
   */
  public List<String> fingerprintColumns() {
    Set<String> columns = new LinkedHashSet<>(exactFields);
    columns.addAll(nearFields);
    columns.addAll(mustMatchFields);
    columns.addAll(placeFields);
    columns.addAll(numberFields);
    columns.addAll(sellerFields);
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
