package org.xiaochong.spark.run;

import java.util.List;
import java.util.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.util.CollectionAccumulator;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.method.MethodReport;
import org.xiaochong.spark.plan.Decisions;

/**
 * One method's stage in a run: its decisions (lazy: computed when delivered), then, once they are,
 * the marked pairs it honoured and its report.
 *
 * @param decisions rows of {@link Decisions#SCHEMA}
 * @param honouredPairs the kept-apart marks the stage honoured, as {@code [smaller, larger]}
 * @param reporter the stage's report once its decisions are in the run's plan
 */
public record Stage(
    Dataset<Row> decisions,
    CollectionAccumulator<long[]> honouredPairs,
    Function<DeletionPlan, MethodReport> reporter) {
  /** A stage whose report does not depend on the plan. */
  public Stage(
      Dataset<Row> decisions, CollectionAccumulator<long[]> honoured, MethodReport report) {
    this(decisions, honoured, plan -> report);
  }

  /** The marked pairs the stage honoured. Call once its decisions are delivered. */
  public List<long[]> honoured() {
    return honouredPairs.value();
  }

  /**
   * The stage's report, once its decisions are in {@code plan} (the near stage re-points earlier
   * removals to its survivors there, as the single machine's near pass does).
   */
  public MethodReport report(DeletionPlan plan) {
    return reporter.apply(plan);
  }
}
