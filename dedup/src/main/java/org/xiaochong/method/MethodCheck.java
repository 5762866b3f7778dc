package org.xiaochong.method;

import java.io.Closeable;
import java.util.Map;
import java.util.function.LongPredicate;

/**
 * One method's part of {@code check}: the online form of its pass. It answers whether one incoming
 * record repeats a record of what a run built (the method's index, behind its prefilter) or one added
 * earlier in the same session, and, with {@code --add}, takes a new record in. {@link OnlineChecker}
 * asks the methods in order and stops at the first that finds the record's twin, so a method only
 * computes its keys ({@link #probe}) for records the methods before it found new.
 *
 * <p>Not thread-safe: one instance per stream. A writable instance holds its index's write lock
 * until {@link #close}, which commits what {@link #add} added.
 *
 * @param <P> one record as this method sees it (its keys): made once by {@link #probe}, given back
 *     to {@link #find} and {@link #add}
 */
public interface MethodCheck<P> extends Closeable {
  /**
   * The record an incoming one repeats.
   *
   * @param id the id of the record that would be kept: among the records that qualify, the most
   *     similar one, ties broken by the keep policy
   * @param score 1.0 for an exact copy, else the method's similarity in [0, 1]
   */
  record Match(long id, double score) {}

  /** The method's name: the verdict it gives. */
  String name();

  /** The record's keys (columns it does not read are ignored; a missing column is NULL). */
  P probe(Map<String, String> fields);

  /** The record {@code probe} repeats, or null when it is new to this method. */
  Match find(P probe);

  /**
   * The record {@code probe} repeats, honouring the marks: {@code apart} says which records the
   * incoming one is marked apart from ({@code dedup_apart}). As the method's pass decides: the exact
   * check takes the twin the keep policy prefers among those not marked; the near and simhash checks answer null when their best
   * match is marked (a person rejected the closest match). The default is the latter.
   */
  default Match find(P probe, LongPredicate apart) {
    Match match = find(probe);
    return match == null || apart.test(match.id()) ? null : match;
  }

  /**
   * Adds a record judged new, so that later records of the stream are checked against it.
   *
   * @param record the record's columns as given to {@link #probe}: the keep policy's rank is computed
   *     from them and {@code regTime} ({@code KeepPolicy#rank}), as the index computes it
   */
  void add(long id, long regTime, Map<String, String> record, P probe);

  /** Its lookups for the summary line, e.g. {@code near keys: 12 index lookups, 30 skipped by the prefilter}. */
  String counters();

  /** Commits what {@link #add} added (and saves the prefilter for the new commit), then closes the index. */
  @Override
  void close();
}
