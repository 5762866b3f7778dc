package org.xiaochong.check;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.xiaochong.method.Excluded;
import org.xiaochong.method.MethodCheck;

/**
 * One thread's own key computers ({@link MethodCheck#newProber}) and index cursors ({@link
 * MethodCheck#newFinder}), for one {@link OnlineChecker} only: {@link #probe} gives what the
 * checker's {@code check} would compute itself, and {@link #check} answers as the checker does. The
 * records' keys (segmentation, most of a check's cost) are so computed on the callers' threads. Not
 * thread-safe: one per thread.
 */
final class ThreadProbers {
  private final OnlineChecker checker;
  private final List<Function<Map<String, String>, ?>> probers = new ArrayList<>();
  private final List<MethodCheck.Finder<?>> finders = new ArrayList<>();
  private final boolean concurrent;

  ThreadProbers(OnlineChecker checker, List<MethodCheck<?>> checks) {
    this.checker = checker;
    boolean all = true;
    for (MethodCheck<?> check : checks) {
      Function<Map<String, String>, ?> prober = check.newProber();
      MethodCheck.Finder<?> finder = check.newFinder();
      probers.add(prober);
      finders.add(finder);
      all &= prober != null && finder != null;
    }
    this.concurrent = all;
  }

  /**
   * Whether every method computes keys and finds with state of its own: then {@link #check} may run
   * on several threads at once, while no record is added.
   */
  boolean concurrent() {
    return concurrent;
  }

  /**
   * As {@link OnlineChecker#check(Long, Map, Object[], Excluded.Outranks)}, with this thread's
   * cursors; only when {@link #concurrent}, and while no thread adds.
   */
  OnlineChecker.Verdict check(
      Long id, Map<String, String> fields, Object[] precomputed, Excluded.Outranks outranks) {
    if (!concurrent) {
      throw new IllegalStateException(
          "a method of " + checker.methods() + " finds one record at a time");
    }
    return checker.check(id, fields, precomputed, finders, outranks);
  }

  /** The record's keys for each method that computes them elsewhere (null for the others). */
  Object[] probe(Map<String, String> fields) {
    Object[] probes = new Object[probers.size()];
    for (int i = 0; i < probes.length; i++) {
      probes[i] = probers.get(i) == null ? null : probers.get(i).apply(fields);
    }
    return probes;
  }

  /** The checker they compute keys for. */
  OnlineChecker checker() {
    return checker;
  }
}
