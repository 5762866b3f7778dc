package org.xiaochong.method.linkage;

import java.text.Normalizer;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.xiaochong.normalize.Mojibake;
import org.xiaochong.normalize.TextNormalizer;

/**
 * How the linkage method reads one value: its canonical text (accents and case folded, punctuation
 * to spaces, runs of spaces to one), its words, a number with its unit, a calendar date in several
 * formats, a phone's digits. Stateless and thread-safe.
 */
final class Values {
  private static final Pattern NUMBER =
      Pattern.compile("^[^0-9+-]{0,3}([+-]?[0-9][0-9,]*(?:\\.[0-9]+)?)\\s*([^0-9\\s].{0,7})?$");
  private static final Pattern ISO_DATE =
      Pattern.compile("^(\\d{4})[-/. ](\\d{1,2})[-/. ](\\d{1,2})(?:[ t].*)?$");
  private static final Pattern DMY_DATE =
      Pattern.compile("^(\\d{1,2})[-/. ](\\d{1,2})[-/. ](\\d{4})$");
  private static final Pattern COMPACT_DATE = Pattern.compile("^(\\d{4})(\\d{2})(\\d{2})$");
  private static final Pattern CJK_DATE = Pattern.compile("^(\\d{4})年(\\d{1,2})月(\\d{1,2})日?$");

  private Values() {}

  /**
   * The canonical text of a value: text broken by a wrong encoding repaired, or its broken
   * characters dropped ({@link Mojibake}: else every broken record shares the same junk tokens),
   * accents removed (é → e), letters lower-cased, every char that is neither a letter, a digit nor
   * an ideograph turned into a space, spaces collapsed. Null and blank give "".
   */
  static String canonical(String value) {
    if (value == null || value.isBlank()) {
      return "";
    }
    String folded = Normalizer.normalize(Mojibake.clean(value), Normalizer.Form.NFKD);
    StringBuilder out = new StringBuilder(folded.length());
    boolean space = false;
    for (int i = 0; i < folded.length(); ) {
      int cp = folded.codePointAt(i);
      i += Character.charCount(cp);
      int type = Character.getType(cp);
      if (type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK) {
        continue;
      }
      if (Character.isLetterOrDigit(cp)) {
        if (space && !out.isEmpty()) {
          out.append(' ');
        }
        space = false;
        out.appendCodePoint(Character.toLowerCase(cp));
      } else {
        space = true;
      }
    }
    return out.toString();
  }

  /**
   * A value as {@code kind} compares it: numbers and dates keep their punctuation (a decimal point,
   * a date's separators), folded by NFKC, lower-cased, spaces collapsed; every other kind takes the
   * {@link #canonical} text. Null and blank give "".
   */
  static String of(ColumnKind kind, String value) {
    if (kind != ColumnKind.NUMBER && kind != ColumnKind.DATE) {
      return canonical(value);
    }
    if (value == null || value.isBlank()) {
      return "";
    }
    return Normalizer.normalize(value, Normalizer.Form.NFKC)
        .strip()
        .toLowerCase(java.util.Locale.ROOT)
        .replaceAll("\\s+", " ");
  }

  /** The words of canonical text: split at spaces, and each ideograph a word of its own. */
  static List<String> words(String canonical) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    for (int i = 0; i < canonical.length(); ) {
      int cp = canonical.codePointAt(i);
      i += Character.charCount(cp);
      if (cp == ' ') {
        flush(word, words);
      } else if (Character.isIdeographic(cp)) {
        flush(word, words);
        words.add(new String(Character.toChars(cp)));
      } else {
        word.appendCodePoint(cp);
      }
    }
    flush(word, words);
    return words;
  }

  /**
   * The tokens text is compared by: its words, and for ideographs (Chinese does not separate words)
   * each pair of neighbouring ideographs as well, so that 红富士 and 富士苹果 share 富士.
   */
  static List<String> tokens(String canonical) {
    List<String> words = words(canonical);
    List<String> tokens = new ArrayList<>(words.size() * 2);
    String previous = null;
    for (String word : words) {
      boolean ideograph = word.length() <= 2 && Character.isIdeographic(word.codePointAt(0));
      if (ideograph && previous != null) {
        tokens.add(previous + word);
      }
      tokens.add(word);
      previous = ideograph ? word : null;
    }
    return tokens;
  }

  /**
   * The distinct 64-bit hashes of {@link #tokens}, sorted: the same tokens, read without making a
   * string of each (FNV-1a over a token's chars, then MurmurHash3's finaliser). Two distinct tokens
   * of one pair share a hash with a chance of about 2^-64 per pair of tokens.
   */
  static long[] tokenHashes(String canonical) {
    long[] hashes = new long[16];
    int n = 0;
    long word = FNV_OFFSET;
    boolean inWord = false;
    int previous = -1; // the ideograph just before, when the last token was one
    for (int i = 0; i < canonical.length(); ) {
      int cp = canonical.codePointAt(i);
      int next = i + Character.charCount(cp);
      if (cp == ' ' || Character.isIdeographic(cp)) {
        if (inWord) {
          hashes = add(hashes, n++, word);
          word = FNV_OFFSET;
          inWord = false;
          previous = -1;
        }
        if (cp != ' ') {
          if (previous >= 0) {
            hashes = add(hashes, n++, fnv(fnv(FNV_OFFSET, previous), cp));
          }
          hashes = add(hashes, n++, fnv(FNV_OFFSET, cp));
          previous = cp;
        }
      } else {
        word = fnv(word, cp);
        inWord = true;
      }
      i = next;
    }
    if (inWord) {
      hashes = add(hashes, n++, word);
    }
    for (int t = 0; t < n; t++) {
      hashes[t] = mix(hashes[t]);
    }
    java.util.Arrays.sort(hashes, 0, n);
    int distinct = 0;
    for (int t = 0; t < n; t++) {
      if (distinct == 0 || hashes[t] != hashes[distinct - 1]) {
        hashes[distinct++] = hashes[t];
      }
    }
    return java.util.Arrays.copyOf(hashes, distinct);
  }

  private static final long FNV_OFFSET = 0xcbf29ce484222325L;

  /** FNV-1a over the UTF-16 chars of one code point. */
  private static long fnv(long hash, int cp) {
    if (Character.isBmpCodePoint(cp)) {
      return (hash ^ cp) * 0x100000001b3L;
    }
    hash = (hash ^ Character.highSurrogate(cp)) * 0x100000001b3L;
    return (hash ^ Character.lowSurrogate(cp)) * 0x100000001b3L;
  }

  /** MurmurHash3's 64-bit finaliser: FNV's low bits alone spread poorly. */
  private static long mix(long h) {
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    return h ^ (h >>> 33);
  }

  private static long[] add(long[] hashes, int at, long hash) {
    long[] into = at < hashes.length ? hashes : java.util.Arrays.copyOf(hashes, hashes.length * 2);
    into[at] = hash;
    return into;
  }

  private static void flush(StringBuilder word, List<String> words) {
    if (!word.isEmpty()) {
      words.add(word.toString());
      word.setLength(0);
    }
  }

  /** The digits of a value (a phone, a code), in order; "" when it has none. */
  static String digits(String value) {
    return value == null ? "" : TextNormalizer.normalizePhone(value);
  }

  /**
   * The number a value states, with its unit, or null when it states none: "12.5元", "1,200 kg",
   * "$30" (a currency sign before the number is allowed, at most three chars).
   */
  static Quantity quantity(String value) {
    if (value == null) {
      return null;
    }
    String text = Normalizer.normalize(value, Normalizer.Form.NFKC).strip();
    Matcher m = NUMBER.matcher(text);
    if (!m.matches()) {
      return null;
    }
    try {
      double number = Double.parseDouble(m.group(1).replace(",", ""));
      String unit = m.group(2) == null ? "" : canonical(m.group(2));
      return Double.isFinite(number) ? new Quantity(number, unit) : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** A number and its unit ("" when none). */
  record Quantity(double value, String unit) {}

  /**
   * The calendar date a value states, or null: 2024-03-07, 2024/3/7, 2024.03.07, 20240307, 7/3/2024
   * (day first, as most of the world writes it), 2024年3月7日, and a DATETIME's date part.
   */
  static LocalDate date(String value) {
    if (value == null) {
      return null;
    }
    String text = Normalizer.normalize(value, Normalizer.Form.NFKC).strip().toLowerCase();
    try {
      Matcher m = ISO_DATE.matcher(text);
      if (m.matches()) {
        return LocalDate.of(num(m, 1), num(m, 2), num(m, 3));
      }
      m = COMPACT_DATE.matcher(text);
      if (m.matches()) {
        return LocalDate.of(num(m, 1), num(m, 2), num(m, 3));
      }
      m = CJK_DATE.matcher(text);
      if (m.matches()) {
        return LocalDate.of(num(m, 1), num(m, 2), num(m, 3));
      }
      m = DMY_DATE.matcher(text);
      if (m.matches()) {
        int first = num(m, 1);
        int second = num(m, 2);
        // Day first unless that cannot be a date (3/25/2024 is March 25th).
        return second > 12
            ? LocalDate.of(num(m, 3), first, second)
            : LocalDate.of(num(m, 3), second, first);
      }
    } catch (DateTimeException e) {
      return null;
    }
    return null;
  }

  /** A date as the eight digits yyyymmdd, the form its edit distance is counted on. */
  static String compact(LocalDate date) {
    return String.format(
        "%04d%02d%02d", date.getYear(), date.getMonthValue(), date.getDayOfMonth());
  }

  private static int num(Matcher m, int group) {
    return Integer.parseInt(m.group(group));
  }
}
