package org.xiaochong.normalize;

import org.apache.lucene.util.BytesRefBuilder;

/**
 * The UTF-8 fast path of {@link TextNormalizer#normalizeUtf8}: the steps of {@link
 * TextNormalizer#normalizeText(String, StringBuilder)} for NFKC-stable text, read straight from its
 * UTF-8 bytes, CJK ideographs copied as they are. Stateless and thread-safe.
 */
final class StableUtf8Normalizer {
  private StableUtf8Normalizer() {}

  /**
   * The loop of {@link TextNormalizer#normalizeText(String, StringBuilder)} for NFKC-stable text,
   * reading UTF-8. Returns false, with {@code out} as it was, at the first byte that is not part of
   * a code point {@code TextNormalizer.isNfkcStable} lets through (the BMP ranges it allows are all
   * three-byte sequences with lead bytes 0xE3-0xEF, so anything else, including a malformed or
   * overlong sequence or a surrogate, fails the range checks).
   */
  static boolean normalize(byte[] utf8, int from, int to, BytesRefBuilder out) {
    // The output is never longer than the input (a kept space stands for at least one dropped byte,
    // a folded char is at most as long as it was), so the buffer is sized once and written
    // directly.
    int start = out.length();
    int at = start;
    out.grow(at + (to - from));
    byte[] dest = out.bytes();
    boolean spacePending = false;
    int previous = -1;
    for (int i = from; i < to; ) {
      int lead = utf8[i] & 0xFF;
      int cp;
      if (lead < 0x80) {
        if (lead < 0x20 && lead != '\n' && lead != '\t' && lead != '\r' || lead == 0x7F) {
          return false;
        }
        cp = lead;
        i++;
      } else {
        if ((lead & 0xF0) != 0xE0
            || i + 2 >= to
            || (utf8[i + 1] & 0xC0) != 0x80
            || (utf8[i + 2] & 0xC0) != 0x80) {
          return false;
        }
        cp = ((lead & 0x0F) << 12) | ((utf8[i + 1] & 0x3F) << 6) | (utf8[i + 2] & 0x3F);
        if (cp >= 0x4E00 && cp <= 0x9FFF) {
          // A CJK ideograph: kept as it is (see normalizeText), its three bytes copied.
          dest[at] = utf8[i];
          dest[at + 1] = utf8[i + 1];
          dest[at + 2] = utf8[i + 2];
          at += 3;
          i += 3;
          spacePending = false;
          previous = cp;
          continue;
        }
        if (!((cp >= 0x3000 && cp <= 0x3035)
            || (cp >= 0xFF01 && cp <= 0xFF5E)
            || (cp >= 0x3400 && cp <= 0x4DBF))) {
          return false;
        }
        i += 3;
        cp = TextNormalizer.foldFast(cp);
      }
      cp = TextNormalizer.foldNonIdeograph(cp);
      if (cp < 0) {
        spacePending = true;
        continue;
      }
      if (spacePending && TextNormalizer.keepsSpaceBetween(previous, cp)) {
        dest[at++] = ' ';
      }
      spacePending = false;
      at = putUtf8(cp, dest, at);
      previous = cp;
    }
    out.setLength(at);
    return true;
  }

  /**
   * Writes the UTF-8 of a code point below U+10000 (all NFKC-stable text holds) at {@code at};
   * returns the end.
   */
  private static int putUtf8(int cp, byte[] dest, int at) {
    if (cp < 0x80) {
      dest[at] = (byte) cp;
      return at + 1;
    }
    if (cp < 0x800) {
      dest[at] = (byte) (0xC0 | (cp >> 6));
      dest[at + 1] = (byte) (0x80 | (cp & 0x3F));
      return at + 2;
    }
    dest[at] = (byte) (0xE0 | (cp >> 12));
    dest[at + 1] = (byte) (0x80 | ((cp >> 6) & 0x3F));
    dest[at + 2] = (byte) (0x80 | (cp & 0x3F));
    return at + 3;
  }
}
