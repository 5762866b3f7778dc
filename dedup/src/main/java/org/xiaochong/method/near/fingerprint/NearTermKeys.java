package org.xiaochong.method.near.fingerprint;

import java.util.Arrays;
import java.util.List;
import org.apache.lucene.util.BitUtil;
import org.xiaochong.normalize.TextNormalizer;

/**
 * The term-level steps of {@link TopTermsMd5} that need no analyzer: the 64-bit key of a term, the
 * q-gram and shingle key families (step 10), an id-like number field (step 4a), the word count of a
 * short field and the sentence breaks (step 5). Stateless; thread-safe.
 */
final class NearTermKeys {
  private NearTermKeys() {}

  /**
   * The q-gram keys of the Latin words and digit runs of {@code folded} (step 10), in text order,
   * repeats included.
   */
  static long[] gramKeys(String folded) {
    long[] keys = new long[16];
    int count = 0;
    StringBuilder gram =
        new StringBuilder(TopTermsMd5.GRAM_PREFIX.length() + TopTermsMd5.GRAM_SIZE);
    int n = folded.length();
    int i = 0;
    while (i < n) {
      if (!isLatinOrDigit(folded.charAt(i))) {
        i++;
        continue;
      }
      int start = i;
      while (i < n && isLatinOrDigit(folded.charAt(i))) {
        i++;
      }
      if (i - start < 2) {
        continue;
      }
      String padded = "^" + folded.substring(start, i) + "$";
      for (int g = 0; g + TopTermsMd5.GRAM_SIZE <= padded.length(); g++) {
        gram.setLength(0);
        gram.append(TopTermsMd5.GRAM_PREFIX).append(padded, g, g + TopTermsMd5.GRAM_SIZE);
        if (count == keys.length) {
          keys = Arrays.copyOf(keys, count * 2);
        }
        keys[count++] = key(gram.toString());
      }
    }
    return Arrays.copyOf(keys, count);
  }

  /**
   * The shingle keys of a token sequence (step 10): one per run of {@link TopTermsMd5#SHINGLE_SIZE}
   * neighbouring tokens.
   */
  static long[] shingleKeys(List<String> sequence) {
    if (sequence.size() < TopTermsMd5.SHINGLE_SIZE) {
      return TopTermsMd5.NO_KEYS;
    }
    long[] keys = new long[sequence.size() - TopTermsMd5.SHINGLE_SIZE + 1];
    StringBuilder shingle = new StringBuilder();
    for (int i = 0; i < keys.length; i++) {
      shingle.setLength(0);
      shingle.append(TopTermsMd5.SHINGLE_PREFIX).append(sequence.get(i));
      for (int j = 1; j < TopTermsMd5.SHINGLE_SIZE; j++) {
        shingle.append(' ').append(sequence.get(i + j));
      }
      keys[i] = key(shingle.toString());
    }
    return keys;
  }

  /** The 64-bit key of a term: the first 8 bytes of its MD5, big-endian. */
  static long key(String term) {
    return (long) BitUtil.VH_BE_LONG.get(TopTermsMd5.md5(term), 0);
  }

  /**
   * True when a whole text field is one run of 7+ digits without a phone's shape (a mobile number
   * or a land line with its area code, {@link NumericTerms#isMobile}, {@link
   * NumericTerms#isLandLine}): a date of birth (19560409), an id number, a postcode. Step 4a: such
   * a field gives one number term, not a {@code tel:} term, so the phone veto ("both carry phones
   * and share none") does not read two mistyped ids as two sellers' phones, and the number veto
   * sees them as numbers. Phone columns are declared ({@code fields.phone}); a phone-shaped field
   * value and a 7+ digit run inside free text (a phone or QQ number among words) stay {@code tel:}
   * terms as before.
   */
  static boolean isIdNumber(String normalized) {
    int n = normalized.length();
    if (n < 7) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char c = normalized.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    String digits = TextNormalizer.normalizePhone(normalized);
    return !NumericTerms.isMobile(digits) && !NumericTerms.isLandLine(digits);
  }

  /**
   * Most words (runs of letters and digits) of a short field, {@value}: a name, a street, a suburb,
   * a code. Its q-grams stand for it in the typo-tolerant view ({@link Fingerprints#sortedTypo}).
   */
  static final int SHORT_FIELD_WORDS = 3;

  /** Runs of ASCII letters and digits in normalized text. */
  static int words(String text) {
    int n = 0;
    boolean in = false;
    for (int i = 0; i < text.length(); i++) {
      boolean w = isLatinOrDigit(text.charAt(i));
      if (w && !in) {
        n++;
      }
      in = w;
    }
    return n;
  }

  /** True when the text holds a Han character (it is segmented by smartcn, step 6). */
  static boolean hasHan(String text) {
    for (int i = 0; i < text.length(); ) {
      int c = text.codePointAt(i);
      if (Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN) {
        return true;
      }
      i += Character.charCount(c);
    }
    return false;
  }

  /** Lower-case ASCII letters and digits (the text is lower-cased by step 1). */
  static boolean isLatinOrDigit(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }

  /** Replaces each run of punctuation and white space by one '\n' (see step 5 above). */
  static String breakSentences(String text) {
    StringBuilder out = new StringBuilder(text.length());
    boolean inBreak = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (isBreak(c)) {
        if (!inBreak) {
          out.append(TopTermsMd5.SENTENCE_BREAK);
          inBreak = true;
        }
      } else {
        out.append(c);
        inBreak = false;
      }
    }
    return out.toString();
  }

  private static boolean isBreak(char c) {
    if (c < 0x80) {
      return !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'));
    }
    if (c >= 0x4E00 && c <= 0x9FFF) {
      return false; // a CJK ideograph (or unassigned): most chars of a Chinese post, never a break
    }
    if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
      return true;
    }
    switch (Character.getType(c)) {
      case Character.CONNECTOR_PUNCTUATION:
      case Character.DASH_PUNCTUATION:
      case Character.START_PUNCTUATION:
      case Character.END_PUNCTUATION:
      case Character.INITIAL_QUOTE_PUNCTUATION:
      case Character.FINAL_QUOTE_PUNCTUATION:
      case Character.OTHER_PUNCTUATION:
        return true;
      default:
        return false;
    }
  }
}
