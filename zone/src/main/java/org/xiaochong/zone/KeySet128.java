package org.xiaochong.zone;

/**
 * Set of 128-bit keys (MD5 digests) in two parallel long arrays, open addressing with linear
 * probing, load factor between 1/4 and 1/2: 34 to 68 bytes per key, no object per key (a HashSet of
 * 16-byte keys costs ~100). The slot is a multiplicative hash (Fibonacci hashing) of both halves,
 * so keys that are not uniform in one half (a simhash stored with a constant other half) do not
 * pile up in one run of slots. Not thread-safe.
 */
final class KeySet128 {
  private long[] high;
  private long[] low;
  private boolean[] used;
  private int size;

  KeySet128(int expected) {
    int capacity = Integer.highestOneBit(Math.max(16, expected) * 2 - 1) * 2;
    high = new long[capacity];
    low = new long[capacity];
    used = new boolean[capacity];
  }

  int size() {
    return size;
  }

  /** Adds the key; true if it was not there. */
  boolean add(long keyHigh, long keyLow) {
    if (2 * (size + 1) > high.length) {
      grow();
    }
    return insert(keyHigh, keyLow);
  }

  boolean contains(long keyHigh, long keyLow) {
    int mask = high.length - 1;
    for (int slot = slot(keyHigh, keyLow); used[slot]; slot = (slot + 1) & mask) {
      if (high[slot] == keyHigh && low[slot] == keyLow) {
        return true;
      }
    }
    return false;
  }

  private boolean insert(long keyHigh, long keyLow) {
    int mask = high.length - 1;
    int slot = slot(keyHigh, keyLow);
    while (used[slot]) {
      if (high[slot] == keyHigh && low[slot] == keyLow) {
        return false;
      }
      slot = (slot + 1) & mask;
    }
    used[slot] = true;
    high[slot] = keyHigh;
    low[slot] = keyLow;
    size++;
    return true;
  }

  /** The top log2(capacity) bits of (high ^ low) * 2^64 / golden ratio. */
  private int slot(long keyHigh, long keyLow) {
    return (int)
        (((keyHigh ^ keyLow) * 0x9E37_79B9_7F4A_7C15L)
            >>> (64 - Integer.numberOfTrailingZeros(high.length)));
  }

  private void grow() {
    long[] oldHigh = high;
    long[] oldLow = low;
    boolean[] oldUsed = used;
    high = new long[oldHigh.length * 2];
    low = new long[oldHigh.length * 2];
    used = new boolean[oldHigh.length * 2];
    size = 0;
    for (int i = 0; i < oldHigh.length; i++) {
      if (oldUsed[i]) {
        insert(oldHigh[i], oldLow[i]);
      }
    }
  }
}
