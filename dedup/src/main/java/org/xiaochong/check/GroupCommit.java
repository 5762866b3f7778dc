package org.xiaochong.check;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The syncs that make what a {@link Deduplicator} adds durable (fsyncs of its {@link AddLog}),
 * shared by its callers (group commit): each add takes a number, and {@link #sync} returns once a
 * sync ("commit" here) covers the numbers taken before it was called. One caller commits for all
 * that wait: a commit takes every add numbered until it starts, so concurrent callers share one
 * fsync instead of queueing one each. The commit itself runs outside this class's lock, so adds go
 * on meanwhile. Thread-safe.
 */
final class GroupCommit {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition committedChanged = lock.newCondition();
  private final Runnable commit;

  /** Number of the last add; an add is durable once {@link #committedSeq} reaches it. */
  private long addedSeq;

  private long committedSeq;
  private boolean committing;

  /** Commits made by {@link #sync}, each covering every add made until it started. */
  private long commits;

  /**
   * @param commit makes every add made so far durable
   */
  GroupCommit(Runnable commit) {
    this.commit = commit;
  }

  /** One more add, to be covered by the next commit. */
  void added() {
    lock.lock();
    try {
      addedSeq++;
    } finally {
      lock.unlock();
    }
  }

  /** Returns once every add numbered before the call is committed. */
  void sync() {
    lock.lock();
    try {
      long target = addedSeq;
      while (committedSeq < target) {
        if (committing) {
          committedChanged.awaitUninterruptibly();
          continue;
        }
        committing = true;
        long covering =
            addedSeq; // every add numbered so far is in the writers before the commit starts
        lock.unlock();
        boolean done = false;
        try {
          commit.run();
          done = true;
        } finally {
          lock.lock();
          committing = false;
          if (done) {
            committedSeq = Math.max(committedSeq, covering);
            commits++;
          }
          committedChanged.signalAll();
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Every add so far was committed otherwise (the writers closed, which commits). */
  void allCommitted() {
    lock.lock();
    try {
      committedSeq = addedSeq;
      committedChanged.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Whether every add is committed and no commit is running. */
  boolean idle() {
    lock.lock();
    try {
      return !committing && committedSeq >= addedSeq;
    } finally {
      lock.unlock();
    }
  }

  /** Commits made by {@link #sync} so far. */
  long commits() {
    lock.lock();
    try {
      return commits;
    } finally {
      lock.unlock();
    }
  }
}
