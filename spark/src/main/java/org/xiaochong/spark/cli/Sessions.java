package org.xiaochong.spark.cli;

import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

/** The job's SparkSession. */
public final class Sessions {
  private Sessions() {}

  /**
   * A session on {@code master} (null: the master spark-submit set, else {@code local[*]}), in UTC
   * (times are epoch milliseconds of the DATETIME read as UTC, as the single machine reads them), with
   * shuffles of {@code 2 x} the cores of a local master.
   */
  public static SparkSession open(String master) {
    SparkConf conf = new SparkConf(true);
    if (master != null) {
      conf.setMaster(master);
    } else if (!conf.contains("spark.master")) {
      conf.setMaster("local[*]");
    }
    conf.setAppName("xiaochong dedup");
    conf.setIfMissing("spark.sql.session.timeZone", "UTC");
    conf.setIfMissing("spark.ui.enabled", "false");
    conf.setIfMissing("spark.ui.showConsoleProgress", "false");
    conf.setIfMissing("spark.sql.adaptive.enabled", "false");
    return SparkSession.builder().config(conf).getOrCreate();
  }
}
