package org.xiaochong.bench.impcb;

import java.util.Arrays;

/**
 * One row of the fingerprint store (seed 000, section 2.3): the fingerprint, how many records carry
 * it ({@code refCount}, >= 1), the id of the record that was kept, and the k counter positions it
 * incremented, so a saturated counter can be recounted from the store on delete. Immutable (the
 * positions are copied in and out), thread-safe.
 */
record FingerprintEntry(Fingerprint fingerprint, long refCount, long keptId, int[] positions) {

  public FingerprintEntry {
    if (fingerprint == null) {
      throw new IllegalArgumentException("fingerprint must not be null");
    }
    if (refCount < 1) {
      throw new IllegalArgumentException(
          String.format("refCount (%s) of %s must be >= 1", refCount, fingerprint));
    }
    if (positions == null || positions.length == 0) {
      throw new IllegalArgumentException("positions of " + fingerprint + " must not be empty");
    }
    positions = positions.clone();
  }

  @Override
  public int[] positions() {
    return positions.clone();
  }

  /** How often {@code position} occurs among this entry's positions (0 if never). */
  public int occurrencesOf(int position) {
    int count = 0;
    for (int p : positions) {
      if (p == position) {
        count++;
      }
    }
    return count;
  }

  /** The same row with another reference count. */
  public FingerprintEntry withRefCount(long newRefCount) {
    return new FingerprintEntry(fingerprint, newRefCount, keptId, positions);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof FingerprintEntry that
        && fingerprint.equals(that.fingerprint)
        && refCount == that.refCount
        && keptId == that.keptId
        && Arrays.equals(positions, that.positions);
  }

  @Override
  public int hashCode() {
    return fingerprint.hashCode() * 31 + Arrays.hashCode(positions);
  }

  @Override
  public String toString() {
    return "FingerprintEntry{"
        + fingerprint
        + ", refCount="
        + refCount
        + ", keptId="
        + keptId
        + ", positions="
        + Arrays.toString(positions)
        + "}";
  }
}
