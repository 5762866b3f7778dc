package org.xiaochong.spark.cli;

import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

/** The job's SparkSession. */
public final class Sessions {
  private Sessions() {}

  /**
   * A session on {@code master} (null: the master spark-submit set, else {@code local[*]}), in UTC
   * (times are epoch milliseconds of the DATETIME read as UTC, as the single machine reads them),
   * with shuffles of {@code 2 x} the cores of a local master.
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
    // Spark's default of 200 shuffle partitions costs 200 tasks per shuffle whatever the data; the
    // job's own shuffles are sized by its input partitions, the rest by the cores.
    conf.setIfMissing(
        "spark.sql.shuffle.partitions", String.valueOf(2 * cores(conf.get("spark.master"))));
    SparkSession session = SparkSession.builder().config(conf).getOrCreate();
    session.sparkContext().setLogLevel("WARN");
    return session;
  }

  /**
   * The cores of a local master ({@code local[N]}, {@code local[*]}, {@code local}); 100 for a
   * cluster's.
   */
  static int cores(String master) {
    java.util.regex.Matcher local =
        java.util.regex.Pattern.compile("local(?:\\[(\\d+|\\*)(?:,\\d+)?])?").matcher(master);
    if (!local.matches()) {
      return 100;
    }
    String n = local.group(1);
    return n == null
        ? 1
        : n.equals("*") ? Runtime.getRuntime().availableProcessors() : Integer.parseInt(n);
  }
}
