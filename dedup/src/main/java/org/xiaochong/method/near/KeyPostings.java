package org.xiaochong.method.near;

import java.util.Arrays;

/**
 * In-memory postings of 64-bit keys: for each key, the positions of the records that hold it, in
 * the order they were added (ascending: the near pass adds records in its newest-first order). An
 * open-addressing map from key to one growable int array per key; about 40 bytes per distinct key
 * plus 4 per posting. Built by one thread, then read by many (no writes after {@link #add} calls
 * end).
 */
final class KeyPostings {
  private static final int[] NONE = new int[0];

  private long[] keys = new long[1 << 12];
  private int[] slotList = new int[1 << 12]; // list number + 1 per slot; 0: empty slot
  private int[][] lists = new int[1 << 10][];
  private int[] sizes = new int[1 << 10];
  private int listCount;

  /** Adds one posting; {@code pos} is not below any earlier position of the same key. */
  void add(long key, int pos) {
    int slot = slot(key);
    if (slotList[slot] == 0) {
      if (2 * (listCount + 1) > keys.length) {
        grow();
        slot = slot(key);
      }
      if (listCount == lists.length) {
        lists = Arrays.copyOf(lists, listCount * 2);
        sizes = Arrays.copyOf(sizes, listCount * 2);
      }
      keys[slot] = key;
      slotList[slot] = listCount + 1;
      lists[listCount] = new int[2];
      listCount++;
    }
    int list = slotList[slot] - 1;
    int size = sizes[list];
    if (size == lists[list].length) {
      lists[list] = Arrays.copyOf(lists[list], size * 2);
    }
    lists[list][size] = pos;
    sizes[list] = size + 1;
  }

  /**
   * The positions holding {@code key}, ascending, in {@code [0, size(key))} of the array returned.
   */
  int[] positions(long key) {
    int list = slotList[slot(key)] - 1;
    return list < 0 ? NONE : lists[list];
  }

  /** How many positions {@link #positions} holds for {@code key}. */
  int size(long key) {
    int list = slotList[slot(key)] - 1;
    return list < 0 ? 0 : sizes[list];
  }

  /** The slot of {@code key}: where it is, or the empty slot where it would go. */
  private int slot(long key) {
    int mask = keys.length - 1;
    int slot = (int) (key ^ (key >>> 32)) & mask; // the keys are MD5 prefixes: uniform already
    while (slotList[slot] != 0 && keys[slot] != key) {
      slot = (slot + 1) & mask;
    }
    return slot;
  }

  private void grow() {
    long[] oldKeys = keys;
    int[] oldSlotList = slotList;
    keys = new long[oldKeys.length * 2];
    slotList = new int[oldKeys.length * 2];
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldSlotList[i] != 0) {
        int slot = slot(oldKeys[i]);
        keys[slot] = oldKeys[i];
        slotList[slot] = oldSlotList[i];
      }
    }
  }
}
