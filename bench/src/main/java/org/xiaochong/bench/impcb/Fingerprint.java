package org.xiaochong.bench.impcb;

import java.util.HexFormat;
import org.xiaochong.bloom.CountingBloomFilter;

/**
 * A 128-bit fingerprint (an MD5 digest) as two big-endian halves: {@code high} = bytes 0-7, {@code
 * low} = bytes 8-15. These are the h1, h2 of {@link CountingBloomFilter}. Immutable, thread-safe.
 */
public record Fingerprint(long high, long low) {

  /** The fingerprint of a 16-byte MD5 digest. */
  public static Fingerprint ofMd5(byte[] md5) {
    return new Fingerprint(CountingBloomFilter.high(md5), CountingBloomFilter.low(md5));
  }

  /** The 16 digest bytes, big-endian. */
  public byte[] toBytes() {
    byte[] bytes = new byte[CountingBloomFilter.KEY_BYTES];
    for (int i = 0; i < 8; i++) {
      bytes[i] = (byte) (high >>> (56 - 8 * i));
      bytes[8 + i] = (byte) (low >>> (56 - 8 * i));
    }
    return bytes;
  }

  @Override
  public String toString() {
    return HexFormat.of().formatHex(toBytes());
  }
}
