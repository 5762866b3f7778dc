package org.xiaochong.normalize;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Text broken by a wrong encoding ("mojibake"): UTF-8 bytes that a crawler or an export read as
 * ISO-8859-1 or Windows-1252, so "café" became "cafÃ©" and "don’t" became "donâ€™t". Broken text is
 * made of a few characters that recur in every broken record (Ã, Â, â€, Ì£), so two records that
 * share nothing else look alike to a key-set similarity; on the FreeDB CDs, where 2,236 of 9,763
 * records hold such text, 98 of the near pass's 139 wrong removals joined two broken records.
 *
 * <p>{@link #clean} repairs what can be repaired, the way Python's ftfy does for this case: the
 * characters map back to the bytes they were read from, and when those bytes are valid UTF-8 their
 * decoding is the text. When they are not (a converter already replaced some bytes with '?', or the
 * text was broken twice), the characters of the broken range are dropped: they carry no reliable
 * letters, and the ASCII words around them stay. No Java library does this (ICU's charset detector
 * guesses the encoding of bytes, not the damage inside a decoded string).
 *
 * <p>Detection: a UTF-8 lead byte read as a Latin-1 letter (U+00C2–U+00F4) directly followed by a
 * continuation byte read as Latin-1 or Windows-1252 (U+0080–U+00BF, or one of the Windows-1252
 * characters of bytes 0x80–0x9F such as € ™ ’), or any C1 control character (U+0080–U+009F). Real
 * text almost never has an accented capital or small letter followed by such a symbol. Thread-safe.
 */
public final class Mojibake {
  private Mojibake() {}

  /** Windows-1252's characters for bytes 0x80-0x9F (U+FFFD where the byte is undefined). */
  private static final String CP1252_HIGH =
      "€\uFFFD‚ƒ„…†‡ˆ‰Š‹Œ\uFFFDŽ\uFFFD\uFFFD‘’“”•–—˜™š›œ\uFFFDžŸ";

  /**
   * The text, repaired or with its broken characters dropped when it shows the signature; else
   * itself.
   */
  public static String clean(String text) {
    if (text == null || !isBroken(text)) {
      return text;
    }
    String repaired = repair(text);
    return repaired != null ? repaired : dropBroken(text);
  }

  /**
   * True when the text shows the signature of UTF-8 read as ISO-8859-1 or Windows-1252 (class
   * comment).
   */
  public static boolean isBroken(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        continue;
      }
      if (c <= 0x9F) {
        return true; // a C1 control: never text
      }
      if (c >= 0xC2 && c <= 0xF4 && i + 1 < text.length()) {
        int next = byteOf(text.charAt(i + 1));
        if (next >= 0x80 && next <= 0xBF) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The UTF-8 decoding of the bytes the characters were read from, or null when that is no valid
   * UTF-8.
   */
  private static String repair(String text) {
    byte[] bytes = new byte[text.length()];
    for (int i = 0; i < text.length(); i++) {
      int b = byteOf(text.charAt(i));
      if (b < 0) {
        return null; // a character no single byte decodes to: not (only) this damage
      }
      bytes[i] = (byte) b;
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /**
   * The text without the characters a broken byte can turn into (U+0080–U+00FF and Windows-1252's).
   */
  private static String dropBroken(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      out.append(c < 0x80 || byteOf(c) < 0 ? c : ' ');
    }
    return out.toString();
  }

  /** The byte ISO-8859-1 or Windows-1252 reads as {@code c}, or -1 when none does. */
  private static int byteOf(char c) {
    if (c <= 0xFF) {
      return c;
    }
    int at = CP1252_HIGH.indexOf(c);
    return at < 0 || c == '\uFFFD' ? -1 : 0x80 + at;
  }
}
