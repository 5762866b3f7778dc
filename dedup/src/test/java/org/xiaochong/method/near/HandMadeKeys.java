package org.xiaochong.method.near;

import org.xiaochong.method.near.fingerprint.Evidence;

/**
 * Hand-made key sets for the near rule's tests ({@link NearRule.Stored}): every family empty, the
 * fields unknown and no evidence unless set, so a test names only what it is about.
 */
final class HandMadeKeys {
  private static final long[] NONE = new long[0];

  private final long[] keys;
  private long[] top = NONE;
  private long[] tel = NONE;
  private long[] numbers = NONE;
  private long[] grams = NONE;
  private int presentFields;
  private int[] keyFields;
  private int shortFields;
  private Evidence evidence = Evidence.NONE;

  private HandMadeKeys(long[] keys) {
    this.keys = keys;
  }

  /** A post with these keys (ascending), nothing else. */
  static HandMadeKeys keys(long... keys) {
    return new HandMadeKeys(keys);
  }

  /** The keys {@code from..to}, both included. */
  static long[] range(long from, long to) {
    long[] keys = new long[(int) (to - from + 1)];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = from + i;
    }
    return keys;
  }

  HandMadeKeys top(long... top) {
    this.top = top;
    return this;
  }

  HandMadeKeys tel(long... tel) {
    this.tel = tel;
    return this;
  }

  /** The keys of the number terms (a subset of the keys). */
  HandMadeKeys numbers(long... numbers) {
    this.numbers = numbers;
    return this;
  }

  /** The q-gram family (a subset of the keys). */
  HandMadeKeys grams(long... grams) {
    this.grams = grams;
    return this;
  }

  /** The mask of the fields present and, per key, the mask of its fields. */
  HandMadeKeys fields(int presentFields, int... keyFields) {
    this.presentFields = presentFields;
    this.keyFields = keyFields;
    return this;
  }

  HandMadeKeys shortFields(int shortFields) {
    this.shortFields = shortFields;
    return this;
  }

  HandMadeKeys evidence(Evidence evidence) {
    this.evidence = evidence;
    return this;
  }

  NearRule.Stored stored() {
    return new NearRule.Stored(
        keys,
        top,
        tel,
        numbers,
        NONE,
        grams,
        NONE,
        presentFields,
        keyFields,
        shortFields,
        evidence);
  }
}
