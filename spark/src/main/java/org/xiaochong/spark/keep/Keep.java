package org.xiaochong.spark.keep;

import org.xiaochong.policy.KeepLatestPolicy;

/**
 * The keep policy as the Spark job asks it: every keep comparison of the job goes through here, so
 * the job and the single machine's passes keep the same record ({@link KeepLatestPolicy}, the one
 * definition of the rule).
 */
public final class Keep {
  private Keep() {}

  /** Positive when record A is kept over record B, negative when B is kept over A (see {@link KeepLatestPolicy#compare}). */
  public static int compare(long timeA, long idA, long timeB, long idB) {
    return KeepLatestPolicy.compare(timeA, idA, timeB, idB);
  }
}
