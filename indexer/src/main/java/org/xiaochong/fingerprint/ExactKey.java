package org.xiaochong.fingerprint;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import org.apache.commons.codec.digest.DigestUtils;
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

  /** The 16-byte MD5 of the normalized, framed values (aligned with the field list; null = empty). */
  public byte[] compute(String[] values) {
    if (values.length < names.length) {
      throw new IllegalArgumentException(
          "got " + values.length + " values for " + names.length + " fields");
    }
    md5.reset();
    for (int i = 0; i < names.length; i++) {
      String normalized =
          isPhone[i] ? TextNormalizer.normalizePhone(values[i]) : TextNormalizer.normalizeText(values[i]);
      byte[] value = normalized.getBytes(StandardCharsets.UTF_8);
      md5.update(names[i]);
      md5.update(UNIT_SEPARATOR);
      md5.update(Integer.toString(value.length).getBytes(StandardCharsets.US_ASCII));
      md5.update(UNIT_SEPARATOR);
      md5.update(value);
      md5.update(RECORD_SEPARATOR);
    }
    return md5.digest();
  }

  /** Lower-case hex of a key, for reports and tests. */
  public static String hex(byte[] key) {
    return org.apache.commons.codec.binary.Hex.encodeHexString(key);
  }
}
