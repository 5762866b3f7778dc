package org.xiaochong.normalize;

import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import org.apache.lucene.util.BytesRefBuilder;

/**
 * Canonical text for fingerprints: two values that a reader would call "the same text" map to the
 * same string. Stateless and thread-safe.
 *
 * <p>Steps, in order:
 *
 * <ol>
 *   <li>NFKC: full-width letters, digits and punctuation become their ASCII forms (Ａ１！ → A1!),
 *       compatibility forms are folded (① → 1, ﬁ → fi).
 *   <li>Chinese punctuation is unified with its ASCII twin (。→ . 、→ , “” → " 【】《》「」 → ( ) …), see
 *       {@link #unifyPunctuation(int)}.
 *   <li>Letters are lower-cased.
 *   <li>White space (any Unicode space, tab, newline) and invisible format characters (zero-width
 *       space, BOM, soft hyphen) are dropped, except that one space is kept between two word
 *       characters of a spaced script ("red fuji" → "red fuji"). Chinese does not separate words
 *       with spaces, so "红 富 士" and "红富士" are the same text; reposts often differ only there.
 * </ol>
 *
 * <p>NULL and the empty string normalize to the same value: a field that is missing is missing.
 */
public final class TextNormalizer {

  private TextNormalizer() {}

  /** Normalizes free text as described in the class comment. {@code null} gives "". */
  public static String normalizeText(String text) {
    if (text == null || text.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder(text.length());
    normalizeText(text, out);
    return out.toString();
  }

  /**
   * Appends the normalized text to {@code out}; the same result as {@link #normalizeText(String)}
   * without allocating a String (the hot path of the exact key, which reuses one builder).
   */
  public static void normalizeText(String text, StringBuilder out) {
    if (text == null || text.isEmpty()) {
      return;
    }
    boolean fast = isNfkcStable(text);
    String folded = fast ? text : Normalizer.normalize(text, Normalizer.Form.NFKC);
    boolean spacePending = false;
    int previous = -1;
    for (int i = 0; i < folded.length(); ) {
      int cp = folded.codePointAt(i);
      i += Character.charCount(cp);
      if (cp >= 0x4E00 && cp <= 0x9FFF) {
        // Most chars of a Chinese post: a CJK ideograph has no case, is neither space nor
        // punctuation, and never gets a space before it; the steps below would keep it as it is.
        out.append((char) cp);
        spacePending = false;
        previous = cp;
        continue;
      }
      if (fast) {
        cp = foldFast(cp);
      }
      cp = foldNonIdeograph(cp);
      if (cp < 0) {
        spacePending = true;
        continue;
      }
      if (spacePending && keepsSpaceBetween(previous, cp)) {
        out.append(' ');
      }
      spacePending = false;
      out.appendCodePoint(cp);
      previous = cp;
    }
  }

  /**
   * Steps 2-4 for one code point (after NFKC) that is not a CJK ideograph: -1 when it is dropped (a
   * space or an invisible char), else the code point with punctuation unified and letters
   * lower-cased.
   */
  static int foldNonIdeograph(int cp) {
    if (isSpaceOrInvisible(cp)) {
      return -1;
    }
    cp = unifyPunctuation(cp);
    return cp < 0x80 ? (cp >= 'A' && cp <= 'Z' ? cp + 32 : cp) : Character.toLowerCase(cp);
  }

  /**
   * Whether dropped white space between {@code previous} (-1: none) and {@code cp} is kept as one
   * space.
   */
  static boolean keepsSpaceBetween(int previous, int cp) {
    return previous >= 0 && isSpacedWordChar(previous) && isSpacedWordChar(cp);
  }

  /**
   * Appends the UTF-8 of the normalized text of {@code utf8[from, to)} to {@code out}: the same
   * bytes as {@code normalizeText(new String(utf8, from, to - from, UTF_8)).getBytes(UTF_8)},
   * without the detour through UTF-16. The exact key of a row read from the database takes this
   * path: for text that {@link #isNfkcStable(String)} would pass (most Chinese posts), the code
   * points are read straight from the bytes and a CJK ideograph's three bytes are copied as they
   * are, which saves decoding every field into a String and encoding the result again
   * (bench/RESULTS.md). Any other text (and malformed UTF-8) goes through {@link
   * #normalizeText(String)}.
   */
  public static void normalizeUtf8(byte[] utf8, int from, int to, BytesRefBuilder out) {
    if (!StableUtf8Normalizer.normalize(utf8, from, to, out)) {
      String folded = normalizeText(new String(utf8, from, to - from, StandardCharsets.UTF_8));
      byte[] bytes = folded.getBytes(StandardCharsets.UTF_8);
      out.append(bytes, 0, bytes.length);
    }
  }

  /**
   * Normalizes a phone-like value to its digits: "+86 138-0013-8000", "(0086)13800138000" and "１３８
   * ００１３ ８０００" all give "13800138000". The country code 86 is dropped when it precedes a full
   * national number (11 digits for mobiles, 10-12 with an area code for land lines).
   */
  public static String normalizePhone(String phone) {
    if (phone == null || phone.isEmpty()) {
      return "";
    }
    String folded = Normalizer.normalize(phone, Normalizer.Form.NFKC);
    StringBuilder digits = new StringBuilder(folded.length());
    for (int i = 0; i < folded.length(); i++) {
      char c = folded.charAt(i);
      if (c >= '0' && c <= '9') {
        digits.append(c);
      }
    }
    if (digits.length() >= 12 && digits.length() <= 15) {
      if (digits.charAt(0) == '0'
          && digits.charAt(1) == '0'
          && digits.charAt(2) == '8'
          && digits.charAt(3) == '6') {
        digits.delete(0, 4);
      } else if (digits.charAt(0) == '8' && digits.charAt(1) == '6' && digits.length() >= 12) {
        digits.delete(0, 2);
      }
    }
    return digits.toString();
  }

  /**
   * Maps a Chinese (or other CJK) punctuation mark to its ASCII twin; other code points are
   * returned as they are. Full-width ASCII punctuation (，！？：；（）) is already ASCII after NFKC.
   */
  static int unifyPunctuation(int cp) {
    if (cp < 0xB7) {
      return cp;
    }
    switch (cp) {
      case '。':
      case '｡':
      case '·':
      case '・':
        return '.';
      case '、':
      case '､':
        return ',';
      case '“':
      case '”':
      case '„':
      case '「':
      case '」':
      case '『':
      case '』':
      case '〝':
      case '〞':
        return '"';
      case '‘':
      case '’':
        return '\'';
      case '【':
      case '〔':
      case '《':
      case '〈':
      case '〖':
      case '［':
        return '(';
      case '】':
      case '〕':
      case '》':
      case '〉':
      case '〗':
      case '］':
        return ')';
      case '～':
      case '〜':
        return '~';
      case '—':
      case '–':
      case '―':
      case '─':
      case '－':
        return '-';
      case '…':
        return '.';
      default:
        return cp;
    }
  }

  /**
   * True when NFKC can be skipped because {@link #foldFast(int)} does all it would do: every char
   * is printable ASCII, a CJK unified ideograph (U+3400-U+4DBF, U+4E00-U+9FFF: no decomposition),
   * CJK punctuation U+3000-U+3035 (only U+3000 decomposes, to a space, which we drop anyway) or a
   * full-width ASCII form U+FF01-U+FF5E (NFKC maps each to ASCII by subtracting 0xFEE0). Most
   * crawled Chinese text passes, and this scan is far cheaper than {@link Normalizer#normalize}.
   */
  private static boolean isNfkcStable(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!((c >= 0x20 && c < 0x7F)
          || (c >= 0x4E00 && c <= 0x9FFF)
          || (c >= 0x3000 && c <= 0x3035)
          || (c >= 0xFF01 && c <= 0xFF5E)
          || (c >= 0x3400 && c <= 0x4DBF)
          || c == '\n'
          || c == '\t'
          || c == '\r')) {
        return false;
      }
    }
    return true;
  }

  /**
   * NFKC of the chars that {@link #isNfkcStable} lets through: only the full-width forms change.
   */
  static int foldFast(int cp) {
    return cp >= 0xFF01 && cp <= 0xFF5E ? cp - 0xFEE0 : cp;
  }

  private static boolean isSpaceOrInvisible(int cp) {
    if (cp < 0x80) {
      return cp <= 0x20 || cp == 0x7F;
    }
    if (cp >= 0x4E00 && cp <= 0x9FFF) {
      return false; // the common case in Chinese text
    }
    if (Character.isWhitespace(cp) || Character.isSpaceChar(cp)) {
      return true;
    }
    int type = Character.getType(cp);
    return type == Character.FORMAT || type == Character.CONTROL;
  }

  /** A letter or digit of a script that separates words with spaces (not Han, kana or Hangul). */
  private static boolean isSpacedWordChar(int cp) {
    if (cp < 0x80) {
      return (cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9') || (cp >= 'A' && cp <= 'Z');
    }
    if (!Character.isLetterOrDigit(cp) || Character.isIdeographic(cp)) {
      return false;
    }
    Character.UnicodeScript script = Character.UnicodeScript.of(cp);
    return script != Character.UnicodeScript.HIRAGANA
        && script != Character.UnicodeScript.KATAKANA
        && script != Character.UnicodeScript.HAN;
  }
}
