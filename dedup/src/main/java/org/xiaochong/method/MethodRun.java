package org.xiaochong.method;

import java.io.Closeable;
import java.util.OptionalLong;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.pass.Window;
import org.xiaochong.source.RecordSource;

/**
 * A fingerprint method's part of one run, in the order the runner calls it: {@link #sync} after the
 * record index is up to date, {@link #pass} over the window, then (applied runs) {@link #delete} of
 * the removed ids, {@link #save} and {@link #close}. A method whose keys are in the record index
 * ({@link #ownsIndex()} false) has nothing to sync or delete: the runner keeps that index in step.
 *
 * <p>Not thread-safe: one instance per run.
 */
public interface MethodRun extends Closeable {
  /** Whether the method keeps an index of its own (timed as the stage {@code <name>_index}). */
  boolean ownsIndex();

  /**
   * Whether its own index held no record when opened: no earlier run's pass of this method saw any
   * record, so the run examines all records instead of the incremental window.
   */
  boolean indexIsNew();

  /**
   * Brings its own index (and its prefilter) up to date with the table, leaving out {@code
   * skipSorted}: rows the earlier passes of this run removed need no fingerprints, and a later sync
   * adds them if they are still in the table. Returns the documents added; empty without an own
   * index.
   */
  OptionalLong sync(RecordSource source, long[] skipSorted);

  /**
   * Runs the pass over {@code window}: adds a removal to {@code plan}, with this method's rule, for
   * each duplicate it finds. Records already in {@code plan} (removed by an earlier method) take no
   * part; the pass may re-point earlier removals whose kept record it removes.
   */
  MethodReport pass(RecordKeys records, DeletionPlan plan, Window window);

  /**
   * Drops these ids (ascending) from its own index and prefilter, committed; nothing without an own
   * index.
   */
  void delete(long[] idsSorted);

  /** Saves its prefilter under its index's current generation; nothing when it has none. */
  void save();

  /**
   * Its own prefilter's work in this run, for {@code prefilter.<name>} in {@code summary.json};
   * null when it has none.
   */
  default java.util.Map<String, Object> prefilterJson() {
    return null;
  }

  /** Closes what it opened; does not throw on an index that was never written. */
  @Override
  void close();
}
