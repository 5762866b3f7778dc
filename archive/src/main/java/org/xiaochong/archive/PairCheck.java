package org.xiaochong.archive;

import java.io.Closeable;
import org.xiaochong.source.SourceRecord;

/**
 * A method's rule applied to two rows as they hold now: the apply's re-check ({@link
 * DecisionCheck}) of a planned removal whose rows changed since the pass decided. Computed with the
 * method's own indexing code, so it agrees with what the pass would decide on the rows of now. Not
 * thread-safe: one per apply worker.
 */
public interface PairCheck extends Closeable {
  /** Whether {@code removed} and {@code kept} are duplicates by the method's rule. */
  boolean duplicates(SourceRecord removed, SourceRecord kept);

  @Override
  default void close() {}

  /**
   * The rule of a method without one of its own beyond the exact key: no pair qualifies by it, so a
   * changed row's removal stands only if the rows are still exact copies, which the apply always
   * checks.
   */
  PairCheck EXACT_KEY = (removed, kept) -> false;

  /** Opens the pair check of the method that is named {@code rule}, for one apply worker. */
  @FunctionalInterface
  interface Factory {
    /** No method's rule: a changed row stays unless it is still an exact copy. */
    Factory EXACT_KEY_ONLY = rule -> EXACT_KEY;

    /**
     * The pair check of the method named {@code rule}: {@link #EXACT_KEY} when it has none of its
     * own.
     */
    PairCheck open(String rule);
  }
}
