package org.xiaochong.check;

import java.util.List;

/**
 * Records' keys computed on the caller's thread, outside the {@link Deduplicator}'s lock, with that
 * thread's {@link ThreadProbers} for the checker of that moment, so that several callers segment at
 * once while the checks take turns. Thread-safe: each thread has probers of its own.
 */
final class KeysAhead {
  /** Keys computed ahead for the checker of that moment; none when it has been replaced since. */
  record Ahead(OnlineChecker checker, ThreadProbers probers, Object[][] probes) {
    static final Ahead NONE = new Ahead(null, null, null);

    Object[] of(OnlineChecker current, int i) {
      return current == checker && probes != null ? probes[i] : null;
    }
  }

  /** Each thread's key computers, for the checker they were made for. */
  private final ThreadLocal<ThreadProbers> probers = new ThreadLocal<>();

  /**
   * Each record's keys for {@code current} (null: none). A failure (the checker closed by a reopen
   * meanwhile) leaves the keys to the check.
   */
  Ahead compute(OnlineChecker current, List<Deduplicator.Record> records) {
    if (current == null) {
      return Ahead.NONE;
    }
    ThreadProbers mine = probers.get();
    Object[][] probes = new Object[records.size()][];
    try {
      if (mine == null || mine.checker() != current) {
        mine = current.newProbers(); // its finders open cursors: fails if closed meanwhile too
        probers.set(mine);
      }
      for (int i = 0; i < probes.length; i++) {
        probes[i] = mine.probe(records.get(i).fields());
      }
    } catch (RuntimeException closedMeanwhile) {
      return Ahead.NONE;
    }
    return new Ahead(current, mine, probes);
  }
}
