package org.xiaochong.method;

import java.io.Closeable;
import java.util.Map;

/**
 * One method's part of {@code check}: the online form of its pass. It answers whether one incoming
 * record repeats a record of what a run built (the method's index, behind its prefilter) or one
 * added earlier in the same session, and, with {@code --add}, takes a new record in. {@link
 * OnlineChecker} asks the methods in order and stops at the first that finds the record's twin, so
 * a method only computes its keys ({@link #probe}) for records the methods before it found new.
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
   * @param rank its keep rank ({@code KeepPolicy#rank}, as the index keeps it), for the keep policy
   *     to weigh the incoming record against it
   * @param score 1.0 for an exact copy, else the method's similarity in [0, 1]
   */
  record Match(long id, long[] rank, double score) {}

  /**
   * One record the method compared an incoming one with, for {@code explain}.
   *
   * @param id the compared record
   * @param score the method's similarity (1.0 for the same exact key)
   * @param sharedKeys keys both hold (near keys, simhash blocks, 1 for the exact key)
   * @param outcome {@code duplicate} when the rule joins them (the near method adds why when the
   *     seller's repost lifted a difference: {@code duplicate: same seller, price or lot updated}),
   *     else the first test it fails, in the words of the rule ({@code similarity}, {@code phone},
   *     {@code subject}, ...)
   */
  record Candidate(long id, double score, int sharedKeys, String outcome) {
    /** The outcome of a pair the rule joins. */
    public static final String DUPLICATE = "duplicate";
  }

  /** The method's name: the verdict it gives. */
  String name();

  /**
   * Whether {@link #find} weighs several candidates and passes over those {@link
   * Excluded#passedOver} says to: then {@code check} asks it again for a twin among those that
   * outrank the incoming record, when the keep policy keeps the record over the twin it found
   * first. False by default: asked again, the method would answer the same twin.
   */
  default boolean findsAmongOutranking() {
    return false;
  }

  /** The record's keys (columns it does not read are ignored; a missing column is NULL). */
  P probe(Map<String, String> fields);

  /**
   * A computer of {@link #probe} for one other thread, so that records' keys (segmentation, the
   * costly part of a check) are computed on the callers' threads while the checks run one at a
   * time; it gives what {@code probe} gives for the same fields. Null (the default) when the
   * method's keys must be computed where its checks run. Each returned function is for one thread.
   */
  default java.util.function.Function<Map<String, String>, P> newProber() {
    return null;
  }

  /** {@link MethodCheck#find(Object, Excluded)} for one thread, with cursors of its own. */
  interface Finder<P> {
    Match find(P probe, Excluded excluded);
  }

  /**
   * A finder for one other thread: it answers as {@link #find(Object, Excluded)} does, reading the
   * same index and the records added so far, with index cursors of its own, so that several threads
   * find at once while no thread adds ({@code add} needs them all to have stopped). Null (the
   * default) when the method's finds must run one at a time. The lookup counters of {@link
   * #counters} may miss finds made at the same time.
   */
  default Finder<P> newFinder() {
    return null;
  }

  /** The record {@code probe} repeats, or null when it is new to this method. */
  Match find(P probe);

  /**
   * The record {@code probe} repeats, never the incoming record itself ({@link Excluded#isSelf}: a
   * method skips it as a candidate and takes the best of the others, so a retried add is judged as
   * the first was) and honouring the marks ({@link Excluded#markedApart}, {@code dedup_apart}). As
   * the method's pass decides: the exact check takes the twin the keep policy prefers among those
   * not marked; the near and simhash checks answer null when their best match is marked (a person
   * rejected the closest match).
   */
  Match find(P probe, Excluded excluded);

  /**
   * Adds a record judged new, so that later records of the stream are checked against it.
   *
   * @param record the record's columns as given to {@link #probe}: the keep policy's rank is
   *     computed from them and {@code regTime} ({@code KeepPolicy#rank}), as the index computes it
   */
  void add(long id, long regTime, Map<String, String> record, P probe);

  /**
   * The records {@code probe} was compared with and why each is or is not its duplicate, the most
   * similar first, at most {@code limit}. The default: the match of {@link #find}, if any.
   */
  default java.util.List<Candidate> explain(P probe, int limit) {
    Match match = find(probe);
    return match == null || limit < 1
        ? java.util.List.of()
        : java.util.List.of(new Candidate(match.id(), match.score(), 1, Candidate.DUPLICATE));
  }

  /**
   * Makes what {@link #add} added durable (a Lucene commit, which fsyncs) without closing; the
   * prefilter is saved only by {@link #close} (a filter older than the index is rebuilt on open).
   * Only on a writable check. Safe to call from another thread while one thread checks and adds
   * (IndexWriter allows it).
   */
  default void commit() {}

  /**
   * Its lookups for the summary line, e.g. {@code near keys: 12 index lookups, 30 skipped by the
   * prefilter}.
   */
  String counters();

  /**
   * Commits what {@link #add} added (and saves the prefilter for the new commit), then closes the
   * index.
   */
  @Override
  void close();
}
