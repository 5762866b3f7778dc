package org.xiaochong.fingerprint;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import org.apache.commons.codec.digest.DigestUtils;
import org.apache.lucene.util.BytesRefBuilder;
import org.xiaochong.normalize.TextNormalizer;

/**
 * The exact-duplicate key of a record: one MD5 over its normalized fields (seed 002, 第一步 ①②).
 *
 * <p>Framing: each field is written as {@code name 0x1F byteLength 0x1F value 0x1E}, so that no two
 * different field lists share a byte string: ("ab","c") and ("a","bc") differ in the lengths, and a
 * value cannot fake a field boundary because the length, not a delimiter, ends it. The seed simply
 * concatenates the fields, which merges such pairs.
 *
 * <p>Not thread-safe (it reuses one MessageDigest): one instance per thread.
 */
public final class ExactKey {
  private static final byte UNIT_SEPARATOR = 0x1F;
  private static final byte RECORD_SEPARATOR = 0x1E;

  private final byte[][] names;
  private final boolean[] isPhone;
  private final MessageDigest md5 = DigestUtils.getMd5Digest();
  private final StringBuilder normalized = new StringBuilder(1024);
  private final BytesRefBuilder normalizedUtf8 = new BytesRefBuilder();
  private final BytesRefBuilder message = new BytesRefBuilder();
  private byte[] utf8 = new byte[4096];
  private final byte[] digits = new byte[10];

  /**
   * @param fields the field names, in key order
   * @param phoneFields the fields compared by their digits only
   */
  public ExactKey(List<String> fields, List<String> phoneFields) {
    names = new byte[fields.size()][];
    isPhone = new boolean[fields.size()];
    for (int i = 0; i < fields.size(); i++) {
      names[i] = fields.get(i).getBytes(StandardCharsets.UTF_8);
      isPhone[i] = phoneFields.contains(fields.get(i));
    }
  }

  /**
   * The 16-byte MD5 of the normalized, framed values (aligned with the field list; null = empty).
   */
  public byte[] compute(String[] values) {
    if (values.length < names.length) {
      throw new IllegalArgumentException(
          "got " + values.length + " values for " + names.length + " fields");
    }
    message.clear();
    for (int i = 0; i < names.length; i++) {
      normalized.setLength(0);
      if (isPhone[i]) {
        normalized.append(TextNormalizer.normalizePhone(values[i]));
      } else {
        TextNormalizer.normalizeText(values[i], normalized);
      }
      int length = encodeUtf8(normalized); // may replace the buffer: read it after
      frame(i, utf8, length);
    }
    return digest();
  }

  /**
   * As {@link #compute(String[])} for values given as UTF-8 (how the database sends them): the same
   * key as {@code compute} of the decoded strings, computed without decoding text fields into
   * strings (see {@link TextNormalizer#normalizeUtf8}). Null values are empty.
   */
  public byte[] computeUtf8(byte[][] values) {
    if (values.length < names.length) {
      throw new IllegalArgumentException(
          "got " + values.length + " values for " + names.length + " fields");
    }
    message.clear();
    for (int i = 0; i < names.length; i++) {
      normalizedUtf8.clear();
      byte[] value = values[i];
      if (isPhone[i]) {
        String digitsOnly =
            TextNormalizer.normalizePhone(
                value == null ? null : new String(value, StandardCharsets.UTF_8));
        normalizedUtf8.copyChars(digitsOnly);
      } else if (value != null) {
        TextNormalizer.normalizeUtf8(value, 0, value.length, normalizedUtf8);
      }
      frame(i, normalizedUtf8.bytes(), normalizedUtf8.length());
    }
    return digest();
  }

  /**
   * Appends one framed field to the message: {@code name 0x1F byteLength 0x1F value 0x1E}. The
   * whole message is hashed at once ({@link #digest}): a MessageDigest call per piece (six a field,
   * ~11 ns each) cost three quarters of what hashing the data did (200k generated rows: 88 ms
   * against 115).
   */
  private void frame(int field, byte[] value, int length) {
    message.append(names[field], 0, names[field].length);
    message.append(UNIT_SEPARATOR);
    message.append(digits, 0, writeDigits(length));
    message.append(UNIT_SEPARATOR);
    message.append(value, 0, length);
    message.append(RECORD_SEPARATOR);
  }

  private byte[] digest() {
    md5.reset();
    md5.update(message.bytes(), 0, message.length());
    return md5.digest();
  }

  /** The decimal ASCII digits of {@code value} (>= 0) into {@code digits}; returns their count. */
  private int writeDigits(int value) {
    // Same bytes as Integer.toString(value).getBytes(US_ASCII), without two allocations per field.
    int n = 1;
    for (int rest = value; rest >= 10; rest /= 10) {
      n++;
    }
    for (int i = n - 1; i >= 0; i--) {
      digits[i] = (byte) ('0' + value % 10);
      value /= 10;
    }
    return n;
  }

  /**
   * UTF-8 of the builder into the reused buffer; returns the byte count. Same bytes as {@code
   * toString().getBytes(UTF_8)}, including '?' for a lone surrogate.
   */
  private int encodeUtf8(CharSequence text) {
    int needed = text.length() * 3;
    if (utf8.length < needed) {
      utf8 = new byte[Math.max(needed, utf8.length * 2)];
    }
    int n = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        utf8[n++] = (byte) c;
      } else if (c < 0x800) {
        utf8[n++] = (byte) (0xC0 | (c >> 6));
        utf8[n++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, text.charAt(++i));
        utf8[n++] = (byte) (0xF0 | (cp >> 18));
        utf8[n++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
        utf8[n++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
        utf8[n++] = (byte) (0x80 | (cp & 0x3F));
      } else if (Character.isSurrogate(c)) {
        utf8[n++] = '?'; // what String.getBytes(UTF_8) writes for a lone surrogate
      } else {
        utf8[n++] = (byte) (0xE0 | (c >> 12));
        utf8[n++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        utf8[n++] = (byte) (0x80 | (c & 0x3F));
      }
    }
    return n;
  }

  /** Lower-case hex of a key, for reports and tests. */
  public static String hex(byte[] key) {
    return org.apache.commons.codec.binary.Hex.encodeHexString(key);
  }
}
