package org.xiaochong.spark.near;

import java.util.List;
import java.util.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.util.CollectionAccumulator;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.method.near.NearMethod;
import org.xiaochong.method.near.NearSettings;
import org.xiaochong.method.near.NearStats;
import org.xiaochong.pass.Window;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.spark.count.PartitionCounter;
import org.xiaochong.spark.graph.ComponentSizes;
import org.xiaochong.spark.run.MethodStage;
import org.xiaochong.spark.run.SparkMethod;
import org.xiaochong.spark.run.Stage;
import org.xiaochong.spark.run.StageContext;

/**
 * The near method on Spark: each record's near fingerprints, made in the read by the single
 * machine's code and carried as bytes ({@link NearRecord}) in the column {@code near}, then {@link
 * NearStage}. The read's fingerprinting time per key family ({@link KeyTimes}) goes to the report.
 */
public final class NearSparkMethod implements SparkMethod {
  static final String COLUMN = "near";

  @Override
  public String name() {
    return NearMethod.NAME;
  }

  @Override
  public MethodStage open(StageContext context) {
    KeyTimes keyTimes = KeyTimes.create(context.spark().sparkContext());
    return new MethodStage() {
      @Override
      public List<StructField> columns() {
        return List.of(DataTypes.createStructField(COLUMN, DataTypes.BinaryType, false));
      }

      @Override
      public ColumnMaker maker() {
        return encoder(keyTimes);
      }

      @Override
      public Stage decide(Dataset<Row> live, long examined, int partitions) {
        return stage(context, keyTimes, live);
      }
    };
  }

  /**
   * The encoded near fingerprints of each record; the partitions' key times to {@code keyTimes}.
   */
  private static MethodStage.ColumnMaker encoder(KeyTimes keyTimes) {
    return config -> {
      Function<SourceRecord, byte[]> encode = NearRecord.encoder(config, keyTimes);
      return (record, values, from) -> values[from] = encode.apply(record);
    };
  }

  private Stage stage(StageContext context, KeyTimes keyTimes, Dataset<Row> live) {
    CollectionAccumulator<long[]> honoured = context.honouredPairs(name());
    NearStage.Counters counters =
        new NearStage.Counters(
            PartitionCounter.create(context.spark().sparkContext(), "near lookups"),
            PartitionCounter.create(context.spark().sparkContext(), "near compared"),
            PartitionCounter.create(context.spark().sparkContext(), "near merge compared"),
            honoured,
            new ComponentSizes());
    Window window = context.window();
    WindowCounts counts = WindowCounts.of(live, window.since(), window.until());
    Dataset<Row> decisions =
        NearStage.decide(
            context.spark(),
            live,
            context.job().config().methodSettings(),
            window.since(),
            window.until(),
            context.marks(),
            context.driverComponentSize(),
            counters);
    double minSimilarity = NearSettings.of(context.job().config().methodSettings()).minSimilarity();
    long indexed = live.count();
    return new Stage(
        decisions,
        honoured,
        plan ->
            new NearReport(
                NearMethod.report(
                    new NearStats(
                        counts.examined(),
                        plan.count(DeletionPlan.Rule.of(name())),
                        0,
                        counters.lookups().value(),
                        counters.compared().value() + counters.merged().value(),
                        counts.empty(),
                        counts.truncated(),
                        plan.collapseChains(),
                        indexed,
                        keyTimes.value()),
                    minSimilarity),
                counters.components()));
  }
}
