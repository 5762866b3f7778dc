package org.xiaochong.spark.run;

import org.xiaochong.method.FingerprintMethod;

/**
 * One fingerprint method as a stage of the Spark job, found by name in {@link SparkMethods}: the
 * Spark form of the single machine's {@link FingerprintMethod} of the same name, with the same
 * decisions. Stateless and thread-safe; what one run holds is in the {@link MethodStage} it opens.
 */
public interface SparkMethod {
  /** The name of the single machine's method ({@link FingerprintMethod#name}), its rule label. */
  String name();

  /**
   * The method's part of one run, opened on the driver before the records are read, in the order
   * the run lists its methods. What its columns need first (a broadcast of counts over the table)
   * is prepared here.
   */
  MethodStage open(StageContext context);
}
