package org.xiaochong.method.simhash;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.xiaochong.simhash.Simhash64;
import org.xiaochong.simhash.SimhashIndex;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.TableSpec;

/**
 * The simhash method's settings ({@code simhash.*} in {@code config/dedup.properties}).
 *
 * @param fields the columns whose text is fingerprinted, joined by a line break, in this order;
 *     empty when simhash.fields and fields.near are (the method then refuses to run)
 * @param features how the text is cut into features
 * @param tfIdf whether features are weighted tf * idf by the frequencies frozen with the index
 *     ({@link FeatureFrequencies}), else by tf
 * @param maxDistance k: pairs at Hamming distance <= k are duplicates; at most {@link
 *     SimhashIndex#MAX_DISTANCE}, the largest the four 16-bit blocks of the index can find
 */
public record SimhashConfig(
    List<String> fields, Simhash64.Features features, boolean tfIdf, int maxDistance) {
  /** Keys and defaults; an empty {@code simhash.fields} means {@code fields.near}. */
  public static final Map<String, String> DEFAULTS =
      Map.of(
          "simhash.fields",
          "",
          "simhash.tokenizer",
          "shingles-4/3",
          "simhash.weights",
          "tf",
          "simhash.max-distance",
          "3");

  private static final Map<String, Simhash64.Features> TOKENIZERS =
      Map.of(
          "words",
          Simhash64.Features.WORDS,
          "shingles-4/3",
          Simhash64.Features.SHINGLES_4_3,
          "chunks-5",
          Simhash64.Features.CHUNKS_5);

  /**
   * The settings of {@code values} (missing keys take {@link #DEFAULTS}) for {@code table}.
   *
   * @throws BadInputException naming the key, for a value out of range or a column the source does
   *     not read
   */
  public static SimhashConfig of(Map<String, String> values, TableSpec table) {
    List<String> fields = new ArrayList<>();
    for (String field : value(values, "simhash.fields").split(",")) {
      if (!field.isBlank()) {
        fields.add(field.strip());
      }
    }
    if (fields.isEmpty()) {
      fields.addAll(table.columns("fields.near")); // documented: simhash.fields defaults to them
    }
    List<String> readable = table.fingerprintColumns();
    for (String field : fields) {
      if (!readable.contains(field)) {
        throw new BadInputException(
            "simhash.fields names '"
                + field
                + "', which a run does not read: name it in fields.exact or in a method's"
                + " columns (fields.near, …)");
      }
    }
    String tokenizer = value(values, "simhash.tokenizer").toLowerCase(Locale.ROOT);
    if (!TOKENIZERS.containsKey(tokenizer)) {
      throw new BadInputException(
          "simhash.tokenizer '" + tokenizer + "' must be words, shingles-4/3 or chunks-5");
    }
    String weights = value(values, "simhash.weights").toLowerCase(Locale.ROOT);
    if (!weights.equals("tf") && !weights.equals("tf-idf")) {
      throw new BadInputException("simhash.weights '" + weights + "' must be tf or tf-idf");
    }
    int maxDistance;
    try {
      maxDistance = Integer.parseInt(value(values, "simhash.max-distance"));
    } catch (NumberFormatException e) {
      throw new BadInputException(
          "simhash.max-distance '"
              + value(values, "simhash.max-distance")
              + "' is not a whole number");
    }
    if (maxDistance < 0 || maxDistance > SimhashIndex.MAX_DISTANCE) {
      throw new BadInputException(
          "simhash.max-distance ("
              + maxDistance
              + ") must be in [0, "
              + SimhashIndex.MAX_DISTANCE
              + "]");
    }
    return new SimhashConfig(
        List.copyOf(fields), TOKENIZERS.get(tokenizer), weights.equals("tf-idf"), maxDistance);
  }

  private static String value(Map<String, String> values, String key) {
    return values.getOrDefault(key, DEFAULTS.get(key)).strip();
  }

  /** What changes the documents of the simhash index (not k, which only the pass reads). */
  String documentsDigest() {
    return String.join(",", fields) + "|" + features + (tfIdf ? "|tf-idf" : "|tf");
  }
}
