package org.xiaochong.check;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * Records' keys computed on the caller's thread, outside the {@link Deduplicator}'s lock, with key
 * computers ({@link ThreadProbers}) for the checker of that moment, so that several callers segment
 * at once while the checks take turns. Thread-safe: a caller takes key computers no other caller
 * holds, and gives them back ({@link #release}) when its check is done.
 *
 * <p>The key computers are pooled, not kept per thread: the service runs each request on a thread
 * of its own (a virtual thread), so key computers kept per thread would be made again for every
 * request.
 */
final class KeysAhead {
  /** Keys computed ahead for the checker of that moment; none when it has been replaced since. */
  record Ahead(OnlineChecker checker, ThreadProbers probers, Object[][] probes) {
    static final Ahead NONE = new Ahead(null, null, null);

    Object[] of(OnlineChecker current, int i) {
      return current == checker && probes != null ? probes[i] : null;
    }
  }

  /** Key computers no caller holds; some may be for a checker replaced since (dropped when met). */
  private final ConcurrentLinkedDeque<ThreadProbers> idle = new ConcurrentLinkedDeque<>();

  /**
   * Each record's keys for {@code current} (null: none). A failure (the checker closed by a reopen
   * meanwhile) leaves the keys to the check. The caller gives the result's key computers back with
   * {@link #release} once its check is done.
   */
  Ahead compute(OnlineChecker current, List<Deduplicator.Record> records) {
    if (current == null) {
      return Ahead.NONE;
    }
    ThreadProbers mine = null;
    Object[][] probes = new Object[records.size()][];
    try {
      mine = take(current); // a new one's finders open cursors: fails if closed meanwhile too
      for (int i = 0; i < probes.length; i++) {
        probes[i] = mine.probe(records.get(i).fields());
      }
    } catch (RuntimeException closedMeanwhile) {
      return Ahead.NONE;
    }
    return new Ahead(current, mine, probes);
  }

  /** Gives back the key computers of {@code ahead}, which its caller no longer uses. */
  void release(Ahead ahead) {
    if (ahead.probers() != null) {
      idle.offerFirst(ahead.probers());
    }
  }

  /** Idle key computers for {@code current}, or new ones. */
  private ThreadProbers take(OnlineChecker current) {
    for (ThreadProbers probers = idle.pollFirst(); probers != null; probers = idle.pollFirst()) {
      if (probers.checker() == current) {
        return probers;
      }
    }
    return current.newProbers();
  }
}
