package org.xiaochong.check;

import java.util.List;
import org.xiaochong.method.Excluded;
import org.xiaochong.policy.KeepPolicy;

/**
 * Which of an incoming record and the twin a check found the keep policy ({@link KeepPolicy}, the
 * rule of every run) keeps, and the verdict that says so: a new record that repeats an older one is
 * kept ({@link Deduplicator#KEEP_NEW}) and supersedes it, one that repeats a newer record is the
 * one to drop ({@link Deduplicator#KEEP_EXISTING}). Stateless.
 */
final class KeepDecision {
  private KeepDecision() {}

  /**
   * Whether the keep policy prefers a record (id, keep rank) over the incoming {@code record}. A
   * record without an id (not stored yet) is the latest insert: on a tie of times it is kept. The
   * record's rank is computed at the first question, once: most records have no twin to ask about.
   * For one record and thread.
   */
  static Excluded.Outranks outranks(KeepPolicy policy, Deduplicator.Record record) {
    long id = record.id() == null ? Long.MAX_VALUE : record.id();
    return new Excluded.Outranks() {
      private long[] rank;

      @Override
      public boolean test(long otherId, long[] otherRank) {
        if (rank == null) {
          rank = policy.rank(record.time(), record.fields());
        }
        return !KeepPolicy.isPreferred(rank, id, otherRank, otherId);
      }
    };
  }

  /** Whether the keep policy keeps the incoming record over its twin (always for a new one). */
  static boolean keepsNew(Excluded.Outranks outranks, OnlineChecker.Verdict found) {
    return found.isNew() || !outranks.test(found.keptId(), found.keptRank());
  }

  /** The verdict for the record: what the check found, what is kept, whether it was added. */
  static Deduplicator.Verdict verdict(
      Deduplicator.Record record, OnlineChecker.Verdict found, boolean keepNew, boolean added) {
    return new Deduplicator.Verdict(
        record.id(),
        found.verdict(),
        found.keptId(),
        found.score(),
        keepNew ? Deduplicator.KEEP_NEW : Deduplicator.KEEP_EXISTING,
        !found.isNew() && keepNew ? List.of(found.keptId()) : List.of(),
        added);
  }
}
