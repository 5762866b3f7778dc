package org.xiaochong.index;

import java.math.BigInteger;

/** Id arithmetic of a sync's parallel slices and merge walks. Stateless. */
final class IdSlices {
  private IdSlices() {}

  /**
   * Where slice {@code part} of {@code parts} equal slices of the ids {@code [range[0], range[1]]}
   * starts: {@code range[0] + span * part / parts}, computed without overflow; for {@code part ==
   * parts}, the end after the max id, or Long.MAX_VALUE when that does not fit (so Long.MAX_VALUE
   * itself is excluded only in theory).
   */
  static long bound(long[] range, int part, int parts) {
    BigInteger min = BigInteger.valueOf(range[0]);
    BigInteger span = BigInteger.valueOf(range[1]).subtract(min).add(BigInteger.ONE);
    BigInteger bound =
        min.add(span.multiply(BigInteger.valueOf(part)).divide(BigInteger.valueOf(parts)));
    return bound.bitLength() > 63 ? Long.MAX_VALUE : bound.longValueExact();
  }

  /** The first index of {@code sorted[0, size)} whose value is >= {@code key}. */
  static int lowerBound(long[] sorted, int size, long key) {
    int lo = 0;
    int hi = size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
