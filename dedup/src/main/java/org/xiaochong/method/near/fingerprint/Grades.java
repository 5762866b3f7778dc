package org.xiaochong.method.near.fingerprint;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The grade and size of the produce a post's text names, each a grade family's one value: two posts
 * that name different values of one family offer different goods, whoever posts them and whatever
 * else they share (an {@link Evidence} item that contradicts outright, amounts lifted or not).
 * Agricultural produce is sold by grade (the 等级 of the national grading standards: 特级, 一级, 二级; 优等品,
 * 一等品, 合格品; the trade's 精品, 优质, 统货 for ungraded goods) and by size (大果, 中果, 小果; 特大号 to 小号; a
 * fruit's diameter 70mm, 7cm or its count 80#), and each grade is priced on its own: the same
 * seller's 一级 and 二级 of one product, place and lot are two offers, often at prices within a few
 * percent of each other, so neither the price nor the place tells them apart.
 *
 * <p>The words are the lists {@link #LEVELS} and {@link #SIZES}; synonyms share a value (一等 is 一级,
 * 通货 is 统货, 大果 is 大号). A family gives a post its value only when its text names exactly one value
 * of it: a post naming two grades ("一级二级都有") or none says nothing either way, and a grade on one
 * side only is no evidence. The text is the normalized text of the near fields ({@link
 * org.xiaochong.normalize.TextNormalizer#normalizeText}: lower case, half-width, so ７０ＭＭ is 70mm),
 * read with the traditional chars of the grade words as their simplified ones ({@link
 * #TRADITIONAL}: 一級 is 一级); not folded by the synonyms, which make a trade word of 批发. Phrases
 * where a grade word names no grade (一级批发, 二级市场, 大果园) are {@link #NOT_GRADES}. Stateless and
 * thread-safe.
 */
public final class Grades {
  private Grades() {}

  /** A family of grade values, compared with each other only. */
  public enum Family {
    /** The quality grade: 特级, 一级, 精品, 统货, … */
    LEVEL(""),
    /** The size class in words: 特大果, 大果, 中果, 小果 (or 号). */
    SIZE(""),
    /** A size in millimetres (fruit diameter: 65mm, 70-75mm). */
    MILLIMETRES("mm"),
    /** A size in centimetres (7cm). */
    CENTIMETRES("cm"),
    /** A size or count class in the trade's numbers (80#). */
    NUMBER_CLASS("#");

    private final String suffix;

    Family(String suffix) {
      this.suffix = suffix;
    }

    /** The text of one of the family's values: 一级, 大果, 65mm, 7cm, 80#. */
    public String text(String value) {
      return value + suffix;
    }
  }

  /** The quality grades, one value a line: its words, the first naming it (一等 is 一级, 通货 is 统货). */
  static final List<String> LEVELS =
      List.of(
          "特级", "一级 一等", "二级 二等", "三级 三等", "四级", "等外", "优等", "合格品", "精品", "优质", "统货 通货", "次品 次果");

  /** The size classes in words (see {@link #LEVELS}): 大果 is 大号. */
  static final List<String> SIZES = List.of("特大果 特大号", "大果 大号", "中果 中号", "小果 小号");

  /**
   * Phrases holding a grade word that name no grade of the produce: a tier of the trade (一级批发,
   * 二级代理), a market, a road, an orchard. Read as one word, so the grade word inside is skipped.
   */
  static final List<String> NOT_GRADES =
      List.of(
          "一级批发", "二级批发", "一级代理", "二级代理", "一级经销", "二级经销", "一级市场", "二级市场", "一级公路", "二级公路", "大果园",
          "中果园", "小果园");

  /** The traditional chars of the grade words and phrases, each before its simplified one. */
  static final String TRADITIONAL = "級级統统貨货優优質质號号場场經经銷销發发";

  /** Every grade word and phrase, the first char to the words it starts, longest first. */
  private static final Map<Character, List<Word>> WORDS = index();

  /** The first chars of {@link #WORDS}: most chars of a text start no word, and need no lookup. */
  private static final BitSet FIRST_CHARS = new BitSet(1 << 16);

  static {
    WORDS.keySet().forEach(FIRST_CHARS::set);
  }

  private record Word(String text, Family family, String value) {}

  private static Map<Character, List<Word>> index() {
    List<Word> all = new ArrayList<>();
    addWords(all, LEVELS, Family.LEVEL);
    addWords(all, SIZES, Family.SIZE);
    NOT_GRADES.forEach(text -> all.add(new Word(text, null, null)));
    all.sort(Comparator.comparingInt((Word w) -> -w.text().length()).thenComparing(Word::text));
    Map<Character, List<Word>> index = new HashMap<>();
    for (Word word : all) {
      index.computeIfAbsent(word.text().charAt(0), c -> new ArrayList<>()).add(word);
    }
    index.replaceAll((c, list) -> List.copyOf(list));
    return Map.copyOf(index);
  }

  private static void addWords(List<Word> all, List<String> values, Family family) {
    for (String line : values) {
      String[] words = line.split(" ");
      for (String word : words) {
        all.add(new Word(word, family, words[0]));
      }
    }
  }

  /**
   * Per family, the one value the texts name, or none for a family they name no value or two values
   * of. Null or empty texts name nothing.
   */
  public static Map<Family, String> of(Iterable<String> normalizedTexts) {
    Map<Family, String> found = new HashMap<>();
    Set<Family> several = EnumSet.noneOf(Family.class);
    for (String text : normalizedTexts) {
      if (text != null) {
        scan(text, found, several);
      }
    }
    found.keySet().removeAll(several);
    return found;
  }

  private static void scan(String text, Map<Family, String> found, Set<Family> several) {
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c >= '0' && c <= '9' && (i == 0 || !isNumberChar(text.charAt(i - 1)))) {
        i = scanSize(text, i, found, several);
        continue;
      }
      char simplified = simplified(c);
      List<Word> candidates = FIRST_CHARS.get(simplified) ? WORDS.get(simplified) : null;
      Word match = null;
      if (candidates != null) {
        for (Word word : candidates) {
          if (startsWith(text, i, word.text())) {
            match = word;
            break;
          }
        }
      }
      if (match == null) {
        i++;
        continue;
      }
      if (match.family() != null) {
        put(match.family(), match.value(), found, several);
      }
      i += match.text().length();
    }
  }

  /**
   * Reads the number (or range: 70-75) starting at {@code start} and the size unit after it, if
   * any; returns the index after what it read.
   */
  private static int scanSize(
      String text, int start, Map<Family, String> found, Set<Family> several) {
    int end = start;
    while (end < text.length() && isNumberChar(text.charAt(end))) {
      end++;
    }
    int numberEnd = end;
    while (numberEnd > start && !Character.isDigit(text.charAt(numberEnd - 1))) {
      numberEnd--; // a trailing "-" or "." belongs to no number
    }
    String number = text.substring(start, numberEnd);
    int at = numberEnd;
    while (at < text.length() && text.charAt(at) == ' ') {
      at++;
    }
    if (text.startsWith("mm", at) && !isLatinLetter(text, at + 2)) {
      put(Family.MILLIMETRES, number, found, several);
    } else if (text.startsWith("cm", at) && !isLatinLetter(text, at + 2)) {
      put(Family.CENTIMETRES, number, found, several);
    } else if (text.startsWith("#", at) && numberEnd - start >= 2) {
      put(Family.NUMBER_CLASS, number, found, several);
    }
    return end;
  }

  /**
   * Whether {@code word} starts at {@code from}, the text's traditional chars read as simplified.
   */
  private static boolean startsWith(String text, int from, String word) {
    if (from + word.length() > text.length()) {
      return false;
    }
    for (int k = 0; k < word.length(); k++) {
      if (simplified(text.charAt(from + k)) != word.charAt(k)) {
        return false;
      }
    }
    return true;
  }

  private static char simplified(char c) {
    int at = c < 0x4E00 ? -1 : TRADITIONAL.indexOf(c);
    return at >= 0 && at % 2 == 0 ? TRADITIONAL.charAt(at + 1) : c;
  }

  private static boolean isNumberChar(char c) {
    return c >= '0' && c <= '9' || c == '.' || c == '-' || c == '~';
  }

  private static boolean isLatinLetter(String text, int at) {
    return at < text.length() && text.charAt(at) < 0x80 && Character.isLetter(text.charAt(at));
  }

  private static void put(
      Family family, String value, Map<Family, String> found, Set<Family> several) {
    String before = found.putIfAbsent(family, value);
    if (before != null && !before.equals(value)) {
      several.add(family);
    }
  }
}
