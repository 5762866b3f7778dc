package org.xiaochong.spark.keep;

import org.xiaochong.policy.KeepPolicy;

/**
 * The keep policy as the Spark job asks it: every keep comparison of the job goes through here, so
 * the job and the single machine's passes keep the same record ({@link KeepPolicy}, the one
 * definition of the rule). The job runs under {@code keep.policy=latest} only ({@code JobConfig}
 * refuses the others), where a record's rank is its time.
 */
public final class Keep {
  private Keep() {}

  /**
   * Positive when record A is kept over record B, negative when B is kept over A (see {@link
   * KeepPolicy#compare}).
   */
  public static int compare(long timeA, long idA, long timeB, long idB) {
    return KeepPolicy.compare(timeA, idA, timeB, idB);
  }
}
