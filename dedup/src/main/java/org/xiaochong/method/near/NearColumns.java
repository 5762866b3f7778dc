package org.xiaochong.method.near;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.xiaochong.method.MethodColumns;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.TableSpec;

/**
 * The columns the near method reads, each with its part in the near rule (config keys {@code
 * fields.near}, {@code fields.must-match}, {@code fields.place}, {@code fields.number}, {@code
 * fields.seller}; docs/near.md says what each does).
 *
 * @param near the columns segmented into multi-MD5 fingerprints (may be empty: no near method)
 * @param mustMatch columns whose values (normalized and folded) must be equal for two records to be
 *     near duplicates, when both are non-empty: a blocking rule, like dedupe's and Splink's
 * @param place columns naming where the item is (region, address, estate) or exactly what it is (a
 *     year, a model): when two records both have a value and the values differ (normalized and
 *     folded), the difference counts against them in the rule's similarity
 * @param number columns whose first number identifies the item (quantity, area, price): when two
 *     records both have one, of the same unit, and they differ by more than the rule allows, the
 *     difference counts against them
 * @param seller columns naming who offers the item (a contact name), compared when two records have
 *     no phone to compare: the same seller's repost of an offer at a new price or lot is a near
 *     duplicate
 */
public record NearColumns(
    List<String> near,
    List<String> mustMatch,
    List<String> place,
    List<String> number,
    List<String> seller) {

  static final String NEAR = "fields.near";
  static final String MUST_MATCH = "fields.must-match";
  static final String PLACE = "fields.place";
  static final String NUMBER = "fields.number";
  static final String SELLER = "fields.seller";

  /** The keys and their defaults: the sample table's columns. */
  static final MethodColumns KEYS = MethodColumns.withMain(NEAR, "title,product,content", roles());

  public NearColumns {
    near = List.copyOf(near);
    mustMatch = List.copyOf(mustMatch);
    place = List.copyOf(place);
    number = List.copyOf(number);
    seller = List.copyOf(seller);
    for (String column : place) {
      if (number.contains(column)) {
        throw new BadInputException(
            "column '" + column + "' is in both " + PLACE + " and " + NUMBER + ": name it in one");
      }
    }
  }

  /** The near columns {@code table} was configured with. */
  public static NearColumns of(TableSpec table) {
    return new NearColumns(
        table.columns(NEAR),
        table.columns(MUST_MATCH),
        table.columns(PLACE),
        table.columns(NUMBER),
        table.columns(SELLER));
  }

  /** {@code table} with these columns under their keys. */
  public TableSpec on(TableSpec table) {
    return table
        .withColumns(NEAR, near)
        .withColumns(MUST_MATCH, mustMatch)
        .withColumns(PLACE, place)
        .withColumns(NUMBER, number)
        .withColumns(SELLER, seller);
  }

  /** Whether the table has near columns at all (without them the method has nothing to do). */
  public boolean isEmpty() {
    return near.isEmpty();
  }

  private static Map<String, String> roles() {
    Map<String, String> roles = new LinkedHashMap<>();
    roles.put(MUST_MATCH, "product");
    roles.put(PLACE, "region");
    roles.put(NUMBER, "price");
    roles.put(SELLER, "contact");
    return roles;
  }
}
