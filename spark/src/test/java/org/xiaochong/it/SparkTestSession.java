package org.xiaochong.it;

import org.apache.spark.sql.SparkSession;
import org.xiaochong.spark.cli.Sessions;

/** One local[2] SparkSession for every test of the JVM (a session takes seconds to start). */
final class SparkTestSession {
  private static SparkSession session;

  private SparkTestSession() {}

  static synchronized SparkSession get() {
    if (session == null) {
      System.setProperty("spark.sql.shuffle.partitions", "4");
      session = Sessions.open("local[2]");
      SparkSession started = session;
      Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "spark-stop"));
    }
    return session;
  }
}
