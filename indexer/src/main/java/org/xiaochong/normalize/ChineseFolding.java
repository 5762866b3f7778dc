package org.xiaochong.normalize;

import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Folds Chinese text that a reader would call "the same words": traditional characters to
 * simplified ones (蘋果價格 → 苹果价格) and synonyms to one canonical word (西红柿, 洋柿子 → 番茄). Input is text
 * already passed through {@link TextNormalizer#normalizeText}. Immutable and thread-safe; build one
 * per run and share it.
 *
 * <p>Both tables are word lists in {@code config/} (formats at the top of each file): {@value
 * #DEFAULT_TRADITIONAL} and {@value #DEFAULT_SYNONYMS}.
 */
public final class ChineseFolding {

  /** The shipped traditional → simplified character table. */
  static final String DEFAULT_TRADITIONAL = "classpath:/config/traditional-simplified.txt";

  /** The shipped synonym groups. */
  public static final String DEFAULT_SYNONYMS = "classpath:/config/synonyms-zh.txt";

  private static final ChineseFolding IDENTITY =
      new ChineseFolding(null, 0, Map.of(), new BitSet(), Map.of(), 0);

  /*
   * Traditional table: char[65536] indexed by the traditional char, 0 = no mapping (128 KiB; a lookup
   * per char, no boxing). All pairs are BMP, checked when loading.
   * Synonyms: variant -> canonical in a HashMap. At each position we only look up when the char can
   * start a variant (firstChars), then try the lengths of the variants starting with that char
   * (lengthsByFirst: bit n set when one has n chars; bit 63 stands for all lengths of 63 and more),
   * longest first, and take the first hit, which is the longest match. Cost: O(n) for text without
   * variant starts, O(n * maxVariantLength) worst case.
   */
  private final char[] simplifiedOf; // null when traditional folding is off
  private final int traditionalPairs;
  private final Map<String, String> canonicalOf;
  private final BitSet firstChars;
  private final Map<Character, Long> lengthsByFirst;
  private final int maxVariantLength;

  private ChineseFolding(
      char[] simplifiedOf,
      int traditionalPairs,
      Map<String, String> canonicalOf,
      BitSet firstChars,
      Map<Character, Long> lengthsByFirst,
      int maxVariantLength) {
    this.simplifiedOf = simplifiedOf;
    this.traditionalPairs = traditionalPairs;
    this.canonicalOf = canonicalOf;
    this.firstChars = firstChars;
    this.lengthsByFirst = lengthsByFirst;
    this.maxVariantLength = maxVariantLength;
  }

  /** Folding that changes nothing. */
  static ChineseFolding identity() {
    return IDENTITY;
  }

  /** The shipped tables: traditional folding on, default synonyms. */
  static ChineseFolding defaults() {
    return load(true, DEFAULT_SYNONYMS);
  }

  /**
   * Loads the shipped traditional table (if {@code foldTraditional}) and the synonym groups at
   * {@code synonymsLocation} (see {@link WordLists}; "" for none).
   *
   * @throws IllegalArgumentException if a table breaks its format; the message names the entry
   */
  public static ChineseFolding load(boolean foldTraditional, String synonymsLocation) {
    char[] table = null;
    int pairs = 0;
    if (foldTraditional) {
      table = new char[Character.MAX_VALUE + 1];
      pairs = readTraditional(WordLists.readLines(DEFAULT_TRADITIONAL), table);
    }
    ChineseFolding traditionalOnly =
        new ChineseFolding(table, pairs, Map.of(), new BitSet(), Map.of(), 0);
    Map<String, String> canonicalOf =
        readSynonyms(WordLists.readLines(synonymsLocation), traditionalOnly, synonymsLocation);
    BitSet firstChars = new BitSet();
    Map<Character, Long> lengthsByFirst = new HashMap<>();
    int maxLength = 0;
    for (String variant : canonicalOf.keySet()) {
      firstChars.set(variant.charAt(0));
      lengthsByFirst.merge(
          variant.charAt(0), 1L << Math.min(63, variant.length()), (a, b) -> a | b);
      maxLength = Math.max(maxLength, variant.length());
    }
    return new ChineseFolding(
        table, pairs, Map.copyOf(canonicalOf), firstChars, Map.copyOf(lengthsByFirst), maxLength);
  }

  /** Traditional folding, then synonym folding. */
  public String fold(String normalized) {
    return foldSynonyms(foldTraditional(normalized));
  }

  /** Replaces every traditional character of the table by its simplified form. */
  String foldTraditional(String text) {
    if (simplifiedOf == null || text.isEmpty()) {
      return text;
    }
    char[] chars = null;
    for (int i = 0; i < text.length(); i++) {
      char mapped = simplifiedOf[text.charAt(i)];
      if (mapped != 0) {
        if (chars == null) {
          chars = text.toCharArray();
        }
        chars[i] = mapped;
      }
    }
    return chars == null ? text : new String(chars);
  }

  /** Replaces synonyms by their canonical form, longest match first, scanning left to right. */
  String foldSynonyms(String text) {
    if (canonicalOf.isEmpty() || text.isEmpty()) {
      return text;
    }
    StringBuilder out = null;
    int copiedUpTo = 0;
    int length = text.length();
    for (int i = 0; i < length; ) {
      if (!firstChars.get(text.charAt(i))) {
        i++;
        continue;
      }
      String canonical = null;
      int matched = 0;
      long lengths = lengthsByFirst.get(text.charAt(i));
      for (int n = Math.min(maxVariantLength, length - i); n >= 2 && canonical == null; n--) {
        if ((lengths & (1L << Math.min(63, n))) == 0) {
          continue; // no variant of this length starts with this char
        }
        canonical = canonicalOf.get(text.substring(i, i + n));
        matched = n;
      }
      if (canonical == null) {
        i++;
        continue;
      }
      if (out == null) {
        out = new StringBuilder(length + 16);
      }
      out.append(text, copiedUpTo, i).append(canonical);
      i += matched;
      copiedUpTo = i;
    }
    if (out == null) {
      return text;
    }
    return out.append(text, copiedUpTo, length).toString();
  }

  /** Number of traditional → simplified pairs in use (0 when traditional folding is off). */
  int traditionalPairCount() {
    return traditionalPairs;
  }

  /** Number of variants that fold to a canonical word. */
  int synonymCount() {
    return canonicalOf.size();
  }

  private static int readTraditional(List<String> lines, char[] table) {
    int pairs = 0;
    for (String line : lines) {
      for (String pair : line.split("\\s+")) {
        if (pair.length() != 2 || Character.isSurrogate(pair.charAt(0))) {
          throw new IllegalArgumentException(
              "traditional-simplified pair '" + pair + "' must be exactly two BMP characters");
        }
        char traditional = pair.charAt(0);
        char simplified = pair.charAt(1);
        if (traditional == simplified) {
          throw new IllegalArgumentException(
              "traditional-simplified pair '" + pair + "' maps a character to itself");
        }
        if (table[traditional] != 0) {
          throw new IllegalArgumentException(
              "traditional character "
                  + traditional
                  + " is listed twice ("
                  + traditional
                  + table[traditional]
                  + ", "
                  + pair
                  + ")");
        }
        table[traditional] = simplified;
        pairs++;
      }
    }
    for (int c = 0; c < table.length; c++) {
      if (table[c] != 0 && table[table[c]] != 0) {
        throw new IllegalArgumentException(
            "character "
                + table[c]
                + " is both a simplified target (of "
                + (char) c
                + ") and a traditional source; folding must take one step");
      }
    }
    return pairs;
  }

  private static Map<String, String> readSynonyms(
      List<String> lines, ChineseFolding traditional, String location) {
    Map<String, String> canonicalOf = new HashMap<>();
    Map<String, String> canonicalLines = new HashMap<>();
    for (String line : lines) {
      String[] words = line.split(",");
      String canonical = null;
      for (String raw : words) {
        String word = traditional.foldTraditional(TextNormalizer.normalizeText(raw));
        if (word.isEmpty()) {
          continue;
        }
        if (canonical == null) {
          canonical = word;
          canonicalLines.put(canonical, line);
          continue;
        }
        if (word.equals(canonical)) {
          continue;
        }
        if (word.length() < 2) {
          throw new IllegalArgumentException(
              "synonym '"
                  + word
                  + "' in "
                  + location
                  + " must have at least 2 characters (line: "
                  + line
                  + ")");
        }
        String previous = canonicalOf.putIfAbsent(word, canonical);
        if (previous != null && !previous.equals(canonical)) {
          throw new IllegalArgumentException(
              "synonym '"
                  + word
                  + "' in "
                  + location
                  + " belongs to two groups: "
                  + previous
                  + " and "
                  + canonical);
        }
      }
    }
    for (Map.Entry<String, String> entry : canonicalOf.entrySet()) {
      if (canonicalLines.containsKey(entry.getKey())) {
        throw new IllegalArgumentException(
            "synonym '"
                + entry.getKey()
                + "' in "
                + location
                + " is a canonical form and a variant of "
                + entry.getValue());
      }
    }
    return canonicalOf;
  }
}
