package org.xiaochong.method.linkage;

import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import org.apache.commons.text.similarity.DamerauLevenshteinDistance;
import org.apache.commons.text.similarity.JaroWinklerSimilarity;
import org.xiaochong.method.near.fingerprint.NearSimilarity;

/**
 * What a column holds, and so how two of its values are compared: each kind has a short list of
 * comparison levels, from "disagree" (level 0) up to "the same after normalization" (the last).
 * Fellegi-Sunter gives each level of each column its own weight ({@link LinkageModel}), so a level
 * needs no meaning beyond its order. An empty value on either side is no evidence ({@link
 * #NO_EVIDENCE}), not a disagreement: tables leave fields out far more often than they contradict
 * them.
 *
 * <p>Values reach {@link #level} as {@link Values#of} gives them for the kind: canonical text, or
 * for numbers and dates the folded text with its punctuation (a decimal point, a date's
 * separators).
 */
enum ColumnKind {
  /** A person's or organisation's name: Jaro-Winkler bands, on the words in any order too. */
  NAME("exact", "jaro-winkler >= .94", "jaro-winkler >= .88", "jaro-winkler >= .80 or initial"),
  /** Free text: the share of tokens (words, neighbouring ideographs) the two have in common. */
  TEXT("exact", "tokens >= .8", "tokens >= .6", "tokens >= .4", "tokens >= .2"),
  /** A quantity (price, area, weight): relative difference bands, unit aware. */
  NUMBER("exact", "within 1 %", "within 10 %"),
  /** A calendar date: day difference, one typed digit, day and month swapped. */
  DATE("exact", "one edit or day/month swapped", "two edits or within a year"),
  /** A place (province, city, county, suburb, street): containment and spelling. */
  PLACE("exact", "one within the other", "jaro-winkler >= .90"),
  /** A phone number: its digits, the last seven of them. */
  PHONE("same digits", "same last 7 digits", "one edit"),
  /** A code or id (postcode, tax id, product code): Damerau edit distance. */
  CODE("exact", "one edit", "two edits"),
  /** One of few values (state, type, grade): equal or not. */
  CATEGORY("exact");

  /** The level of a comparison where either value is empty: no evidence either way. */
  static final int NO_EVIDENCE = -1;

  private static final JaroWinklerSimilarity JARO_WINKLER = new JaroWinklerSimilarity();
  private static final DamerauLevenshteinDistance DAMERAU = new DamerauLevenshteinDistance();

  /** The names of the agreeing levels, the closest first; level 0 is "else" (disagree). */
  private final List<String> agreeing;

  ColumnKind(String... agreeing) {
    this.agreeing = List.of(agreeing);
  }

  /** Levels of this kind, "disagree" included. */
  int levels() {
    return agreeing.size() + 1;
  }

  /** The name of {@code level} for explanations ("exact", "one edit", "else", "empty"). */
  String levelName(int level) {
    if (level == NO_EVIDENCE) {
      return "empty";
    }
    return level == 0 ? "else" : agreeing.get(agreeing.size() - level);
  }

  /** The kind's name in config and output: name, text, number, … */
  String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The kind of {@link #label}, or null when none has it. */
  static ColumnKind ofLabel(String label) {
    for (ColumnKind kind : values()) {
      if (kind.label().equals(label.toLowerCase(Locale.ROOT))) {
        return kind;
      }
    }
    return null;
  }

  /** The levels of two records' columns, of these kinds, compared column by column. */
  static int[] levels(List<ColumnKind> kinds, String[] a, String[] b) {
    int[] levels = new int[kinds.size()];
    for (int c = 0; c < levels.length; c++) {
      levels[c] = kinds.get(c).level(a[c], b[c]);
    }
    return levels;
  }

  /**
   * The comparison level of two canonical values: {@link #NO_EVIDENCE} when either is empty, 0 when
   * they disagree, {@code levels() - 1} when they are the same.
   */
  int level(String a, String b) {
    if (a == null || b == null || a.isEmpty() || b.isEmpty()) {
      return NO_EVIDENCE;
    }
    int top = levels() - 1;
    if (a.equals(b)) {
      return top;
    }
    return switch (this) {
      case NAME -> nameLevel(a, b);
      case TEXT -> textLevel(a, b);
      case NUMBER -> numberLevel(a, b);
      case DATE -> dateLevel(a, b);
      case PLACE -> placeLevel(a, b);
      case PHONE -> phoneLevel(a, b);
      case CODE -> codeLevel(compactCode(a), compactCode(b));
      case CATEGORY -> 0;
    };
  }

  private static int nameLevel(String a, String b) {
    double jw = Math.max(JARO_WINKLER.apply(a, b), JARO_WINKLER.apply(sorted(a), sorted(b)));
    if (jw >= 0.94) {
      return 3;
    }
    if (jw >= 0.88) {
      return 2;
    }
    if (jw >= 0.80 || initialOf(a, b) || initialOf(b, a)) {
      return 1;
    }
    return 0;
  }

  /** Whether {@code a} is one letter that starts {@code b} ("j" and "john"). */
  private static boolean initialOf(String a, String b) {
    return a.length() == 1 && b.startsWith(a);
  }

  private static String sorted(String canonical) {
    List<String> words = new java.util.ArrayList<>(Values.words(canonical));
    java.util.Collections.sort(words);
    return String.join(" ", words);
  }

  private static int textLevel(String a, String b) {
    double share = tokenShare(a, b);
    if (share >= 0.8) {
      return 4;
    }
    if (share >= 0.6) {
      return 3;
    }
    if (share >= 0.4) {
      return 2;
    }
    return share >= 0.2 ? 1 : 0;
  }

  /**
   * Jaccard similarity of the two values' token sets ({@link Values#tokens}), computed on their
   * 64-bit hashes ({@link Values#tokenHashes}): the comparison the passes make most, without a
   * string or set per token.
   */
  static double tokenShare(String a, String b) {
    long[] left = Values.tokenHashes(a);
    long[] right = Values.tokenHashes(b);
    if (left.length == 0 || right.length == 0) {
      return 0;
    }
    int common = NearSimilarity.sharedCount(left, right);
    return common / (double) (left.length + right.length - common);
  }

  private static int numberLevel(String a, String b) {
    Values.Quantity x = Values.quantity(a);
    Values.Quantity y = Values.quantity(b);
    if (x == null || y == null) {
      return codeLevel(compactCode(a), compactCode(b)) == 3 ? 3 : 0;
    }
    if (!x.unit().isEmpty() && !y.unit().isEmpty() && !x.unit().equals(y.unit())) {
      return 0;
    }
    double scale = Math.max(Math.abs(x.value()), Math.abs(y.value()));
    double difference = Math.abs(x.value() - y.value());
    if (difference == 0) {
      return 3;
    }
    if (difference <= 0.01 * scale) {
      return 2;
    }
    return difference <= 0.10 * scale ? 1 : 0;
  }

  private static int dateLevel(String a, String b) {
    LocalDate x = Values.date(a);
    LocalDate y = Values.date(b);
    String left = x != null ? Values.compact(x) : compactCode(a);
    String right = y != null ? Values.compact(y) : compactCode(b);
    if (left.equals(right)) {
      return 3;
    }
    if (x != null
        && y != null
        && x.getDayOfMonth() == y.getMonthValue()
        && x.getMonthValue() == y.getDayOfMonth()
        && x.getYear() == y.getYear()) {
      return 2;
    }
    int edits = DAMERAU.apply(left, right);
    if (edits <= 1) {
      return 2;
    }
    if (edits <= 2 || (x != null && y != null && Math.abs(ChronoUnit.DAYS.between(x, y)) <= 365)) {
      return 1;
    }
    return 0;
  }

  private static int placeLevel(String a, String b) {
    if (contains(a, b) || contains(b, a)) {
      return 2;
    }
    return JARO_WINKLER.apply(a, b) >= 0.90 ? 1 : 0;
  }

  /**
   * Whether {@code inner} is within {@code outer}: all its words are among outer's (a street within
   * an address), or, for ideographs, it is a substring (朝阳区 within 北京市朝阳区).
   */
  private static boolean contains(String outer, String inner) {
    if (outer.contains(inner) && Character.isIdeographic(inner.codePointAt(0))) {
      return true;
    }
    return new HashSet<>(Values.words(outer)).containsAll(Values.words(inner));
  }

  private static int phoneLevel(String a, String b) {
    String x = Values.digits(a);
    String y = Values.digits(b);
    if (x.isEmpty() || y.isEmpty()) {
      return codeLevel(compactCode(a), compactCode(b)) >= 2 ? 1 : 0;
    }
    if (x.equals(y)) {
      return 3;
    }
    if (x.length() >= 7 && y.length() >= 7 && x.endsWith(y.substring(y.length() - 7))) {
      return 2;
    }
    return DAMERAU.apply(x, y) <= 1 ? 1 : 0;
  }

  private static int codeLevel(String a, String b) {
    if (a.equals(b)) {
      return 3;
    }
    int edits = DAMERAU.apply(a, b);
    if (edits <= 1) {
      return 2;
    }
    return edits <= 2 && Math.min(a.length(), b.length()) >= 5 ? 1 : 0;
  }

  /** A code's letters and digits alone: "21 19", "21-19" and "2119" are one code. */
  private static String compactCode(String value) {
    return Values.canonical(value).replace(" ", "");
  }
}
