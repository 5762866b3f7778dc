package org.xiaochong.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.xiaochong.source.BadInputException;

/**
 * Reads the values of config keys ({@link DedupConfig}): a value that is not of the key's type is
 * refused with one line naming the key and the value.
 */
final class ConfigValues {
  private ConfigValues() {}

  /**
   * The key's columns; when the key is left at its default, only those the table reads anyway: in
   * fields.exact or {@code mainColumns} (a method's main columns).
   */
  static List<String> columnsInUse(
      Properties props,
      Map<String, String> values,
      String key,
      List<String> exactFields,
      List<String> mainColumns) {
    List<String> columns = list(values.get(key));
    if (props.containsKey(key)) {
      return columns;
    }
    return columns.stream()
        .filter(f -> exactFields.contains(f) || mainColumns.contains(f))
        .toList();
  }

  static boolean bool(Map<String, String> values, String key) {
    String value = values.get(key);
    if (!value.equals("true") && !value.equals("false")) {
      throw new BadInputException(key + " '" + value + "' must be true or false");
    }
    return Boolean.parseBoolean(value);
  }

  static long longInteger(Map<String, String> values, String key) {
    try {
      return Long.parseLong(values.get(key));
    } catch (NumberFormatException e) {
      throw new BadInputException(key + " '" + values.get(key) + "' is not a whole number");
    }
  }

  static int integer(Map<String, String> values, String key) {
    try {
      return Integer.parseInt(values.get(key));
    } catch (NumberFormatException e) {
      throw new BadInputException(key + " '" + values.get(key) + "' is not a whole number");
    }
  }

  static List<String> list(String value) {
    List<String> items = new ArrayList<>();
    for (String item : value.split(",")) {
      if (!item.isBlank()) {
        items.add(item.strip());
      }
    }
    return items;
  }
}
