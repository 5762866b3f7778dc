package org.xiaochong.method.linkage;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.TableSpec;

/**
 * The linkage method's settings ({@code linkage.*} in {@code config/dedup.properties}).
 *
 * @param columns the compared columns, in order; {@code linkage.columns}, else {@code fields.exact}
 * @param kinds kinds set by hand ({@code linkage.kinds=col:kind,…}); the other columns' kinds are
 *     inferred from a sample when the index is built
 * @param threshold the match probability a pair needs to be a duplicate
 * @param candidates the most candidates scored per record (the ones sharing the rarest keys)
 * @param maxHolders a blocking key held by more records than this finds no candidates (as the near
 *     pass's stop rule): linear work on tables of any size
 * @param training how the model's m and λ are fitted ({@code linkage.training}: mixture or
 *     sessions)
 */
record LinkageSettings(
    List<String> columns,
    Map<String, ColumnKind> kinds,
    double threshold,
    int candidates,
    int maxHolders,
    ModelTraining.Style training)
    implements java.io.Serializable {
  /** Keys and defaults. */
  static final Map<String, String> DEFAULTS =
      Map.of(
          "linkage.columns", "",
          "linkage.kinds", "",
          "linkage.threshold", "0.95",
          "linkage.candidates", "20",
          "linkage.max-holders", "100",
          "linkage.training", "mixture");

  /**
   * The settings of {@code values} (missing keys take {@link #DEFAULTS}) for {@code table}.
   *
   * @throws BadInputException naming the key, for a bad value or a column the run does not read
   */
  static LinkageSettings of(Map<String, String> values, TableSpec table) {
    List<String> columns = new ArrayList<>();
    for (String column : value(values, "linkage.columns").split(",")) {
      if (!column.isBlank()) {
        columns.add(column.strip());
      }
    }
    if (columns.isEmpty()) {
      columns.addAll(table.exactFields());
    }
    List<String> readable = table.fingerprintColumns();
    for (String column : columns) {
      if (!readable.contains(column)) {
        throw new BadInputException(
            "linkage.columns names '"
                + column
                + "', which a run does not read: name it in fields.exact or in a method's"
                + " columns (fields.near, …)");
      }
    }
    Map<String, ColumnKind> kinds = new LinkedHashMap<>();
    for (String entry : value(values, "linkage.kinds").split(",")) {
      if (entry.isBlank()) {
        continue;
      }
      String[] parts = entry.split(":", 2);
      if (parts.length != 2 || !columns.contains(parts[0].strip())) {
        throw new BadInputException(
            "linkage.kinds entry '"
                + entry.strip()
                + "' must be column:kind with a column of linkage.columns ("
                + String.join(",", columns)
                + ")");
      }
      kinds.put(parts[0].strip(), kind(parts[1].strip()));
    }
    double threshold = number(values, "linkage.threshold");
    if (!(threshold > 0 && threshold < 1)) {
      throw new BadInputException(
          "linkage.threshold (" + threshold + ") must be a match probability in (0, 1)");
    }
    int candidates = (int) whole(values, "linkage.candidates", 1, 1000);
    int maxHolders = (int) whole(values, "linkage.max-holders", 2, 100_000);
    return new LinkageSettings(
        List.copyOf(columns), kinds, threshold, candidates, maxHolders, training(values));
  }

  private static ModelTraining.Style training(Map<String, String> values) {
    String label = value(values, "linkage.training");
    for (ModelTraining.Style style : ModelTraining.Style.values()) {
      if (style.label().equals(label)) {
        return style;
      }
    }
    throw new BadInputException(
        "linkage.training '" + label + "' must be mixture (the default) or sessions");
  }

  private static ColumnKind kind(String label) {
    ColumnKind kind = ColumnKind.ofLabel(label);
    if (kind != null) {
      return kind;
    }
    List<String> labels = new ArrayList<>();
    for (ColumnKind known : ColumnKind.values()) {
      labels.add(known.label());
    }
    throw new BadInputException(
        "linkage.kinds: '" + label + "' is not a kind (" + String.join(", ", labels) + ")");
  }

  private static String value(Map<String, String> values, String key) {
    return values.getOrDefault(key, DEFAULTS.get(key)).strip();
  }

  private static double number(Map<String, String> values, String key) {
    try {
      return Double.parseDouble(value(values, key));
    } catch (NumberFormatException e) {
      throw new BadInputException(key + " '" + value(values, key) + "' is not a number");
    }
  }

  private static long whole(Map<String, String> values, String key, long min, long max) {
    long n;
    try {
      n = Long.parseLong(value(values, key));
    } catch (NumberFormatException e) {
      throw new BadInputException(key + " '" + value(values, key) + "' is not a whole number");
    }
    if (n < min || n > max) {
      throw new BadInputException(key + " (" + n + ") must be in [" + min + ", " + max + "]");
    }
    return n;
  }

  /**
   * What changes the index and its frozen model (columns, kinds set by hand, the training style),
   * for its digest: a change rebuilds both.
   */
  String documentsDigest() {
    return String.join(",", columns)
        + "|"
        + kinds
        + (training == ModelTraining.Style.MIXTURE ? "" : "|" + training.label());
  }
}
