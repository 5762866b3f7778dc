package org.xiaochong.zone;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.apache.lucene.util.BitUtil;
import org.xbill.DNS.Record;

/**
 * The exact key of a resource record: MD5 over its canonical form (RFC 4034 §6.2, as dnsjava writes
 * it): owner name in lower-case uncompressed wire form, type (2 bytes), class (2 bytes), the TTL (4
 * bytes) unless TTL-insensitive, then the rdata in canonical wire form (names lower-cased for the
 * types §6.2 lists). The wire name is self-delimiting and the other fields are fixed width, so two
 * different records never frame to the same bytes. Text differences that do not change the record
 * (case of names, relative vs absolute names, hex case, base64 split over lines, TTL "1D" vs
 * "86400") give the same key.
 *
 * <p>Not thread-safe (one digest per instance).
 */
final class RecordKey {
  private final boolean withTtl;
  private final MessageDigest md5;
  private final byte[] fixed = new byte[8];

  RecordKey(boolean withTtl) {
    this.withTtl = withTtl;
    try {
      this.md5 = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must provide MD5", e);
    }
  }

  /** The 16-byte key of {@code record}. */
  byte[] of(Record record) {
    md5.update(record.getName().toWireCanonical());
    int type = record.getType();
    int dclass = record.getDClass();
    long ttl = record.getTTL();
    fixed[0] = (byte) (type >>> 8);
    fixed[1] = (byte) type;
    fixed[2] = (byte) (dclass >>> 8);
    fixed[3] = (byte) dclass;
    fixed[4] = (byte) (ttl >>> 24);
    fixed[5] = (byte) (ttl >>> 16);
    fixed[6] = (byte) (ttl >>> 8);
    fixed[7] = (byte) ttl;
    md5.update(fixed, 0, withTtl ? 8 : 4);
    md5.update(record.rdataToWireCanonical());
    return md5.digest();
  }

  static long high(byte[] key) {
    return (long) BitUtil.VH_BE_LONG.get(key, 0);
  }

  static long low(byte[] key) {
    return (long) BitUtil.VH_BE_LONG.get(key, 8);
  }
}
