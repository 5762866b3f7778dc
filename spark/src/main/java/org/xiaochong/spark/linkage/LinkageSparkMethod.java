package org.xiaochong.spark.linkage;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.util.CollectionAccumulator;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.method.linkage.FrozenLinkage;
import org.xiaochong.method.linkage.LinkageMethod;
import org.xiaochong.spark.run.MethodStage;
import org.xiaochong.spark.run.SparkMethod;
import org.xiaochong.spark.run.Stage;
import org.xiaochong.spark.run.StageContext;

/**
 * The linkage method on Spark: each record's compared values, made in the read by the single
 * machine's code and carried joined in the column {@code linkage}, then {@link LinkageStage}. It
 * decides with the column kinds and weights the single machine learned and froze with its linkage
 * index ({@code <index.dir>/linkage}), read on the driver and shipped to the executors: training
 * samples at most 20,000 records, so one machine learns them, and the job applies them to a table
 * of any size, deciding as {@code dedup run} would.
 */
public final class LinkageSparkMethod implements SparkMethod {
  static final String COLUMN = "linkage";

  /** Between a record's values in {@link #COLUMN}; the values never hold it (as the index). */
  static final char SEPARATOR = '\u001F';

  @Override
  public String name() {
    return LinkageMethod.NAME;
  }

  @Override
  public MethodStage open(StageContext context) {
    DedupConfig config = context.job().config();
    FrozenLinkage rules =
        FrozenLinkage.load(
            config.indexDir().resolve(LinkageMethod.NAME), config.table(), config.methodSettings());
    return new MethodStage() {
      @Override
      public List<StructField> columns() {
        return List.of(DataTypes.createStructField(COLUMN, DataTypes.StringType, false));
      }

      @Override
      public ColumnMaker maker() {
        return ignored ->
            (record, values, from) ->
                values[from] = String.join(String.valueOf(SEPARATOR), rules.values(record));
      }

      @Override
      public Stage decide(Dataset<Row> live, long examined, int partitions) {
        CollectionAccumulator<long[]> honoured = context.honouredPairs(name());
        LinkageStage.Outcome outcome =
            LinkageStage.decide(
                context.spark(),
                live,
                rules,
                context.window().since(),
                context.window().until(),
                examined,
                context.marks(),
                honoured);
        return new Stage(
            outcome.decisions(),
            honoured,
            plan ->
                rules.report(
                    outcome.counts().apply(plan.count(DeletionPlan.Rule.of(name()))),
                    plan.collapseChains()));
      }
    };
  }
}
