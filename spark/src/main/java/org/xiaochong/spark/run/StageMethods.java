package org.xiaochong.spark.run;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.FilterFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.CollectionAccumulator;
import org.apache.spark.util.LongAccumulator;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.MethodReport;
import org.xiaochong.pass.Window;
import org.xiaochong.source.BadInputException;
import org.xiaochong.spark.exact.ExactGroups;
import org.xiaochong.spark.exact.ExactKeys;
import org.xiaochong.spark.read.JobConfig;
import org.xiaochong.spark.read.TableRead;

/**
 * The methods' stages of a job: what each record carries for them (the columns of the records
 * read), and each method's stage over the records still live. Not thread-safe: one per run.
 */
final class StageMethods {
  static final List<String> NAMES = List.of("exact");

  /**
   * One method's stage: its decisions (lazy: computed when delivered), then, once they are, the marked
   * pairs it honoured and its report.
   */
  record Stage(Dataset<Row> decisions, CollectionAccumulator<long[]> honouredPairs, MethodReport report) {
    List<long[]> honoured() {
      return honouredPairs.value();
    }
  }

  private final SparkSession spark;
  private final JobConfig job;
  private final int partitions;
  private final Window window;
  private final Broadcast<long[]> marks;

  StageMethods(SparkSession spark, JobConfig job, int partitions, Window window, Broadcast<long[]> marks) {
    this.spark = spark;
    this.job = job;
    this.partitions = partitions;
    this.window = window;
    this.marks = marks;
  }

  static boolean supported(String method) {
    return NAMES.contains(method);
  }

  /** The columns of a record for these methods. */
  StructType recordSchema(List<FingerprintMethod> methods) {
    return ExactKeys.SCHEMA;
  }

  TableRead.RowMaker maker(List<FingerprintMethod> methods) {
    return ExactKeys.maker();
  }

  /** Runs the stage of {@code method} over {@code live} (the records no earlier stage removed). */
  Stage run(String method, Dataset<Row> live, long examined) {
    CollectionAccumulator<long[]> honoured = spark.sparkContext().collectionAccumulator(method + " apart honoured");
    switch (method) {
      case "exact" -> {
        LongAccumulator groups = spark.sparkContext().longAccumulator("exact groups");
        Dataset<Row> decisions = ExactGroups.decide(live, partitions, window.since(), window.until(), marks,
            new ExactGroups.Counters(groups, honoured));
        return new Stage(decisions, honoured, new ExactReport(examined, groups));
      }
      default -> throw new BadInputException("dedup-spark runs the methods " + NAMES + ", not " + method);
    }
  }

  /** The records of {@code live} that {@code removed} does not remove. */
  Dataset<Row> survivors(Dataset<Row> live, DeletionPlan removed) {
    Broadcast<long[]> ids = org.apache.spark.api.java.JavaSparkContext.fromSparkContext(spark.sparkContext())
        .broadcast(removed.removedIdsSorted());
    return live.filter((FilterFunction<Row>) row -> java.util.Arrays.binarySearch(ids.value(), row.getLong(0)) < 0);
  }

  static MethodReport emptyReport(String method) {
    return MethodReport.notRun();
  }

  /** The exact stage's report, as the single machine's exact pass reports (without its index lookups). */
  private record ExactReport(long examined, LongAccumulator groups) implements MethodReport {
    @Override
    public Map<String, Object> json(long removed) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("groups", groups.value());
      json.put("removed", removed);
      return json;
    }

    @Override
    public String consoleLine(long removed, boolean applied) {
      return String.format("exact: %,d groups, %,d duplicates %s", groups.value(), removed,
          applied ? "removed" : "to remove");
    }
  }
}
