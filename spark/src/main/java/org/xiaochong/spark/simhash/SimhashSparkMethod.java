package org.xiaochong.spark.simhash;

import static org.apache.spark.sql.functions.col;

import java.util.List;
import java.util.function.Function;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.util.CollectionAccumulator;
import org.xiaochong.method.simhash.FeatureFrequencies;
import org.xiaochong.method.simhash.SimhashMethod;
import org.xiaochong.pass.Window;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.spark.count.PartitionCounter;
import org.xiaochong.spark.graph.ComponentSizes;
import org.xiaochong.spark.run.MethodStage;
import org.xiaochong.spark.run.SparkMethod;
import org.xiaochong.spark.run.Stage;
import org.xiaochong.spark.run.StageContext;

/**
 * The simhash method on Spark: each record's 64-bit simhash, made in the read by the single
 * machine's fingerprinter ({@link SimhashMethod#fingerprinter}) in the column {@code simhash} (null
 * without features), then {@link SimhashStage}. Under {@code simhash.weights=tf-idf} the table's
 * feature frequencies are counted first ({@link FeatureCounts}, a job of its own, when the stage
 * opens) and broadcast to the fingerprints.
 */
public final class SimhashSparkMethod implements SparkMethod {
  static final String COLUMN = "simhash";

  @Override
  public String name() {
    return SimhashMethod.NAME;
  }

  @Override
  public MethodStage open(StageContext context) {
    Broadcast<FeatureFrequencies> frequencies =
        SimhashMethod.tfIdf(context.job().config().table(), context.job().config().methodSettings())
            ? JavaSparkContext.fromSparkContext(context.spark().sparkContext())
                .broadcast(FeatureCounts.count(context.input()))
            : null;
    return new MethodStage() {
      @Override
      public List<StructField> columns() {
        return List.of(DataTypes.createStructField(COLUMN, DataTypes.LongType, true));
      }

      @Override
      public ColumnMaker maker() {
        return fingerprints(frequencies);
      }

      @Override
      public Stage decide(Dataset<Row> live, long examined, int partitions) {
        return stage(context, live, examined);
      }
    };
  }

  /** The simhash of each record, under the broadcast frequencies of tf-idf (null under tf). */
  private static MethodStage.ColumnMaker fingerprints(Broadcast<FeatureFrequencies> frequencies) {
    return config -> {
      Function<SourceRecord, Long> fingerprint =
          SimhashMethod.fingerprinter(
              config.table(),
              config.methodSettings(),
              frequencies == null ? null : frequencies.value());
      return (record, values, from) -> values[from] = fingerprint.apply(record);
    };
  }

  private Stage stage(StageContext context, Dataset<Row> live, long examined) {
    CollectionAccumulator<long[]> honoured = context.honouredPairs(name());
    PartitionCounter matches =
        PartitionCounter.create(context.spark().sparkContext(), "simhash matches");
    ComponentSizes components = new ComponentSizes();
    Window window = context.window();
    int maxDistance =
        SimhashMethod.maxDistance(
            context.job().config().table(), context.job().config().methodSettings());
    long empty =
        live.filter(col(COLUMN).isNull().and(col("time").between(window.since(), window.until())))
            .count();
    Dataset<Row> decisions =
        SimhashStage.decide(
            context.spark(),
            live,
            maxDistance,
            window.since(),
            window.until(),
            context.marks(),
            context.driverComponentSize(),
            new SimhashStage.Counters(matches, honoured, components));
    return new Stage(
        decisions, honoured, new SimhashReport(examined, empty, maxDistance, matches, components));
  }
}
