package org.xiaochong.check;

import java.util.List;
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
   * Whether the keep policy keeps the incoming record over its twin (always for a new one). A
   * record without an id (not stored yet) is the latest insert: on a tie of times it is kept.
   */
  static boolean keepsNew(
      KeepPolicy policy, Deduplicator.Record record, OnlineChecker.Verdict found) {
    return found.isNew()
        || KeepPolicy.isPreferred(
            policy.rank(record.time(), record.fields()),
            record.id() == null ? Long.MAX_VALUE : record.id(),
            found.keptRank(),
            found.keptId());
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
