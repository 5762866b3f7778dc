package org.xiaochong.archive;

import java.util.concurrent.ThreadLocalRandom;

/**
 * How gently an apply or a restore moves rows on a live table (config {@code apply.*}): the size of
 * a batch, each one transaction, by rows and by bytes; how long a batch waits for a row lock a site
 * session holds; how often a batch that waited in vain or was chosen as a deadlock victim is tried
 * again, after a backoff; and an optional pause between batches.
 *
 * <p>Why: a batch holds shared locks on the kept rows it reads (the newest posts, those the site
 * edits) until it commits. Short batches and a short lock wait keep the site's writes from waiting
 * long behind an apply, and the apply, not the site, gives way: its session's {@code
 * innodb_lock_wait_timeout} is a few seconds while the site keeps the server's (50 s by default),
 * and after a timeout the apply rolls its batch back and tries again later. The byte limit keeps a
 * batch under a replication transaction limit (Group Replication's {@code
 * group_replication_transaction_size_limit}, 150 MB by default; a moved row is written to the
 * binary log twice, its copy and its delete).
 *
 * @param batchRows plan rows per batch, at most
 * @param batchBytes source row bytes per batch, at most, estimated from the table's average row
 *     length
 * @param lockWaitSeconds the apply session's {@code innodb_lock_wait_timeout}
 * @param attempts tries of one batch before the command stops (resumable: the next run finishes it)
 * @param pauseMillis pause after each batch, per worker
 */
public record ApplySettings(
    int batchRows, long batchBytes, int lockWaitSeconds, int attempts, long pauseMillis) {
  public static final ApplySettings DEFAULTS = new ApplySettings(10_000, 32L << 20, 5, 8, 0);

  /**
   * The backoff before the second try; it doubles for each later one, up to {@link
   * #MAX_BACKOFF_MILLIS}.
   */
  static final long FIRST_BACKOFF_MILLIS = 1_000;

  static final long MAX_BACKOFF_MILLIS = 60_000;

  public ApplySettings {
    if (batchRows < 1 || batchRows > 1_000_000) {
      throw new IllegalArgumentException(
          "apply.batch-rows (" + batchRows + ") must be in [1, 1000000]");
    }
    if (batchBytes < 1024) {
      throw new IllegalArgumentException(
          "apply.batch-bytes (" + batchBytes + ") must be at least 1024");
    }
    if (lockWaitSeconds < 1 || lockWaitSeconds > 3600) {
      throw new IllegalArgumentException(
          "apply.lock-wait-seconds (" + lockWaitSeconds + ") must be in [1, 3600]");
    }
    if (attempts < 1 || attempts > 100) {
      throw new IllegalArgumentException("apply.attempts (" + attempts + ") must be in [1, 100]");
    }
    if (pauseMillis < 0 || pauseMillis > 60_000) {
      throw new IllegalArgumentException(
          "apply.pause-ms (" + pauseMillis + ") must be in [0, 60000]");
    }
  }

  /**
   * Plan rows per batch for a table whose rows average {@code averageRowBytes} (0 when unknown):
   * {@link #batchRows}, fewer where that many rows would exceed {@link #batchBytes}, at least one.
   */
  int rowsPerBatch(long averageRowBytes) {
    if (averageRowBytes <= 0) {
      return batchRows;
    }
    return (int) Math.max(1, Math.min(batchRows, batchBytes / averageRowBytes));
  }

  /**
   * The wait before try {@code attempt + 1} after {@code attempt} failed tries: exponential ({@link
   * #FIRST_BACKOFF_MILLIS} doubled per try, capped at {@link #MAX_BACKOFF_MILLIS}) with "equal
   * jitter" (a random half of it), so that the apply's two workers and a busy site do not retry in
   * step.
   */
  static long backoffMillis(int attempt) {
    long ceiling = Math.min(MAX_BACKOFF_MILLIS, FIRST_BACKOFF_MILLIS << Math.min(attempt - 1, 20));
    return ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
  }
}
