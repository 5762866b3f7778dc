package org.xiaochong.method.near;

import java.util.LinkedHashMap;
import java.util.Map;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.normalize.ChineseFolding;
import org.xiaochong.source.BadInputException;

/**
 * The near method's config keys ({@code near.*} in {@code config/dedup.properties}) and their
 * reading into a {@link NearConfig}. The method declares them ({@link NearMethod#settingDefaults}),
 * so the config accepts them and hands their values to the method like any other method's.
 */
public final class NearSettings {
  /** Keys and defaults, in the order of config/dedup.properties. */
  public static final Map<String, String> DEFAULTS;

  static {
    Map<String, String> defaults = new LinkedHashMap<>();
    defaults.put("near.pre", Integer.toString(NearConfig.DEFAULT_PRE));
    defaults.put("near.min-shared", Integer.toString(NearConfig.DEFAULT_MIN_SHARED));
    defaults.put("near.min-similarity", Double.toString(NearConfig.DEFAULT_MIN_SIMILARITY));
    defaults.put("near.max-chars", Integer.toString(NearConfig.DEFAULT_MAX_CHARS));
    defaults.put("near.idf", "false");
    defaults.put("near.stopwords", NearConfig.DEFAULT_STOPWORDS);
    defaults.put("near.synonyms", ChineseFolding.DEFAULT_SYNONYMS);
    defaults.put("near.traditional", "true");
    defaults.put("near.shared-number", "true");
    defaults.put("near.grams", "true");
    defaults.put("near.shingles", "false");
    DEFAULTS = java.util.Collections.unmodifiableMap(defaults);
  }

  private NearSettings() {}

  /**
   * The near settings of {@code values} (missing keys take {@link #DEFAULTS}).
   *
   * @throws BadInputException naming the key, for a value that is not a number or out of range
   */
  public static NearConfig of(Map<String, String> values) {
    double minSimilarity = decimal(values, "near.min-similarity");
    boolean idf = bool(values, "near.idf");
    if (idf) {
      // Ranking by tf*idf needs one frozen document-frequency snapshot shared by the index build
      // and the
      // pass; the near index is built from raw tf only.
      throw new BadInputException(
          "near.idf=true is not supported by the near pass yet (it ranks by term frequency);"
              + " set near.idf=false");
    }
    try {
      return new NearConfig(
          integer(values, "near.pre"),
          integer(values, "near.min-shared"),
          minSimilarity,
          integer(values, "near.max-chars"),
          idf,
          value(values, "near.stopwords"),
          value(values, "near.synonyms"),
          bool(values, "near.traditional"),
          bool(values, "near.shared-number"),
          bool(values, "near.grams"),
          bool(values, "near.shingles"));
    } catch (IllegalArgumentException e) {
      throw new BadInputException("near.*: " + e.getMessage(), e);
    }
  }

  private static String value(Map<String, String> values, String key) {
    return values.getOrDefault(key, DEFAULTS.get(key));
  }

  private static boolean bool(Map<String, String> values, String key) {
    String value = value(values, key);
    if (!value.equals("true") && !value.equals("false")) {
      throw new BadInputException(key + " '" + value + "' must be true or false");
    }
    return Boolean.parseBoolean(value);
  }

  private static double decimal(Map<String, String> values, String key) {
    try {
      return Double.parseDouble(value(values, key));
    } catch (NumberFormatException e) {
      throw new BadInputException(key + " '" + value(values, key) + "' is not a number");
    }
  }

  private static int integer(Map<String, String> values, String key) {
    try {
      return Integer.parseInt(value(values, key));
    } catch (NumberFormatException e) {
      throw new BadInputException(key + " '" + value(values, key) + "' is not a whole number");
    }
  }
}
