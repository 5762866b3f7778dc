package org.xiaochong.spark.run;

import java.util.List;
import org.xiaochong.source.BadInputException;
import org.xiaochong.spark.exact.ExactSparkMethod;
import org.xiaochong.spark.linkage.LinkageSparkMethod;
import org.xiaochong.spark.near.NearSparkMethod;
import org.xiaochong.spark.simhash.SimhashSparkMethod;

/**
 * The methods a Spark job runs, by name. The only place a method is named outside its package:
 * adding one is a line here. Immutable; thread-safe.
 */
public final class SparkMethods {
  private static final List<SparkMethod> ALL =
      List.of(
          new ExactSparkMethod(),
          new NearSparkMethod(),
          new SimhashSparkMethod(),
          new LinkageSparkMethod());

  private SparkMethods() {}

  /** The names of the methods, in the order listed. */
  public static List<String> names() {
    return ALL.stream().map(SparkMethod::name).toList();
  }

  /**
   * The method named {@code name}.
   *
   * @throws BadInputException when the job has no method of that name
   */
  public static SparkMethod of(String name) {
    for (SparkMethod method : ALL) {
      if (method.name().equals(name)) {
        return method;
      }
    }
    throw new BadInputException("dedup-spark runs the methods " + names() + ", not " + name);
  }
}
