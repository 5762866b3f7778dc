package org.xiaochong.policy;

/**
 * Which record of a duplicate group survives: the one with the latest time (seed 002, 第一步 ⑦:
 * "REG_TIME 值最大的记录"); on a tie the larger id, i.e. the later insert. A NULL time is {@code
 * Long.MIN_VALUE}, so it loses to any real time. Stateless.
 */
public final class KeepLatestPolicy {
  private KeepLatestPolicy() {}

  /** True when record (timeA, idA) should be kept over record (timeB, idB). */
  public static boolean isPreferred(long timeA, long idA, long timeB, long idB) {
    return timeA != timeB ? timeA > timeB : idA > idB;
  }
}
