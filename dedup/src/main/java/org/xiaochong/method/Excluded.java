package org.xiaochong.method;

import java.util.OptionalLong;
import java.util.function.LongPredicate;

/**
 * The records an incoming record may not be matched with, as {@link MethodCheck#find} is told:
 *
 * <ul>
 *   <li><b>itself</b>: a record given with its id never repeats the record of that id. When an add
 *       is retried (the client lost the first answer), the first one is in the index already; the
 *       retry must be judged against the other records, as the first was, and never be told to drop
 *       itself. A method skips its own id as a candidate and goes on with the others.
 *   <li><b>the records it is marked apart from</b> ({@code dedup apart}): what a method does with
 *       one is its pass's rule ({@link MethodCheck#find}).
 * </ul>
 *
 * <p>It also notes whether a method met the record itself ({@link #selfSeen}): then the record is
 * indexed already, and an add does not index it twice. One instance per incoming record and thread;
 * not thread-safe.
 *
 * <p>A check may also want only the twins the keep policy prefers over the incoming record ({@link
 * #onlyOutranking}): a method that weighs several candidates ({@code near}) then passes over the
 * others ({@link #passedOver}) and answers the best of the rest. A check that only tells which
 * candidates outrank the record ({@link #rankedBy}, {@link #outranks}) lets such a method answer as
 * the run decides: a twin that outranks the record counts only when the run keeps it.
 */
public final class Excluded {
  private final boolean hasSelf;
  private final long self;
  private final LongPredicate markedApart;
  private final Outranks outranks; // null: not known
  private final boolean onlyOutranking;
  private boolean selfSeen;

  /** Whether the keep policy prefers the record of that id and keep rank over the incoming one. */
  @FunctionalInterface
  public interface Outranks {
    boolean test(long id, long[] rank);
  }

  private Excluded(
      boolean hasSelf,
      long self,
      LongPredicate markedApart,
      Outranks outranks,
      boolean onlyOutranking) {
    this.hasSelf = hasSelf;
    this.self = self;
    this.markedApart = markedApart;
    this.outranks = outranks;
    this.onlyOutranking = onlyOutranking;
  }

  /** Nothing excluded: a record without an id and without marks. */
  public static Excluded none() {
    return new Excluded(false, 0, other -> false, null, false);
  }

  /**
   * @param self the incoming record's id, or null for a record not stored yet
   * @param markedApart the records it is marked apart from
   */
  public static Excluded of(Long self, LongPredicate markedApart) {
    return new Excluded(self != null, self == null ? 0 : self, markedApart, null, false);
  }

  /** This exclusion that also passes over every candidate that does not outrank the record. */
  public Excluded onlyOutranking(Outranks outranks) {
    return new Excluded(hasSelf, self, markedApart, outranks, true);
  }

  /** This exclusion knowing which candidates outrank the record ({@link #outranks}). */
  public Excluded rankedBy(Outranks outranks) {
    return new Excluded(hasSelf, self, markedApart, outranks, false);
  }

  /**
   * Whether a candidate of that id and keep rank is passed over because it does not outrank the
   * incoming record ({@link #onlyOutranking}); never without it.
   */
  public boolean passedOver(long id, long[] rank) {
    return onlyOutranking && !outranks.test(id, rank);
  }

  /**
   * Whether the keep policy prefers a candidate of that id and keep rank over the incoming record;
   * false when not known ({@link #rankedBy}, {@link #onlyOutranking}).
   */
  public boolean outranks(long id, long[] rank) {
    return outranks != null && outranks.test(id, rank);
  }

  /** The incoming record's id; empty for a record not stored yet. */
  public OptionalLong self() {
    return hasSelf ? OptionalLong.of(self) : OptionalLong.empty();
  }

  /** Whether {@code id} is the incoming record itself (noted: {@link #selfSeen}). */
  public boolean isSelf(long id) {
    if (hasSelf && id == self) {
      selfSeen = true;
      return true;
    }
    return false;
  }

  /** Whether the incoming record is marked apart from {@code id}. */
  public boolean markedApart(long id) {
    return markedApart.test(id);
  }

  /** Whether {@code id} is the record itself or one it is marked apart from. */
  public boolean selfOrMarked(long id) {
    return isSelf(id) || markedApart(id);
  }

  /** Whether a method met the incoming record's own id among its candidates. */
  public boolean selfSeen() {
    return selfSeen;
  }
}
