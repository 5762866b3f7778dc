package org.xiaochong.index;

import java.util.Arrays;

/**
 * A growable array of longs, for ids and keys collected by the million (no boxing: a table may have
 * 100M ids). Not thread-safe.
 */
public final class LongList {
  private long[] values = new long[1024];
  private int size;

  public void add(long value) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = value;
  }

  public int size() {
    return size;
  }

  /** The backing array, not copied: its first {@link #size()} entries are the values. */
  public long[] values() {
    return values;
  }

  /** Calls {@code consumer} with each value, in order. */
  void forEach(java.util.function.LongConsumer consumer) {
    for (int i = 0; i < size; i++) {
      consumer.accept(values[i]);
    }
  }

  /** A copy of the values. */
  public long[] toArray() {
    return Arrays.copyOf(values, size);
  }
}
