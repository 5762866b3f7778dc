package org.xiaochong.spark.exact;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.util.CollectionAccumulator;
import org.xiaochong.method.exact.ExactMethod;
import org.xiaochong.spark.count.PartitionCounter;
import org.xiaochong.spark.read.RecordColumns;
import org.xiaochong.spark.run.MethodStage;
import org.xiaochong.spark.run.SparkMethod;
import org.xiaochong.spark.run.Stage;
import org.xiaochong.spark.run.StageContext;

/**
 * The exact method on Spark: {@link ExactGroups} over the exact key every record carries in its
 * base columns ({@link RecordColumns}), so it adds no column.
 */
public final class ExactSparkMethod implements SparkMethod {
  @Override
  public String name() {
    return ExactMethod.NAME;
  }

  @Override
  public MethodStage open(StageContext context) {
    return (live, examined, partitions) -> {
      CollectionAccumulator<long[]> honoured = context.honouredPairs(name());
      PartitionCounter groups =
          PartitionCounter.create(context.spark().sparkContext(), "exact groups");
      Dataset<Row> decisions =
          ExactGroups.decide(
              live,
              partitions,
              context.window().since(),
              context.window().until(),
              context.marks(),
              new ExactGroups.Counters(groups, honoured));
      return new Stage(decisions, honoured, new ExactReport(examined, groups));
    };
  }
}
