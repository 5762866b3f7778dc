package org.xiaochong.spark.run;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FilterFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.spark.read.RecordColumns;
import org.xiaochong.spark.read.TableRead;

/**
 * The stages of a run's methods ({@link SparkMethods}): the columns of the records read (the base
 * columns, then each method's in the run's order) and each method's stage over the records still
 * live. Not thread-safe: one per run.
 */
final class StageMethods {
  private final StageContext context;
  private final Map<String, MethodStage> stages;

  private StageMethods(StageContext context, Map<String, MethodStage> stages) {
    this.context = context;
    this.stages = stages;
  }

  /**
   * Opens the stage of each of {@code methods}, in their order, on the driver.
   *
   * @throws org.xiaochong.source.BadInputException for a method the job does not run
   */
  static StageMethods open(List<FingerprintMethod> methods, StageContext context) {
    Map<String, MethodStage> stages = new LinkedHashMap<>();
    for (FingerprintMethod method : methods) {
      stages.put(method.name(), SparkMethods.of(method.name()).open(context));
    }
    return new StageMethods(context, stages);
  }

  /**
   * The columns of a record: those of {@link RecordColumns#schema} (every run needs id, time,
   * checksum and keep rank, and the exact key is cheap), then each stage's {@link
   * MethodStage#columns}.
   */
  StructType recordSchema() {
    StructType schema = RecordColumns.schema(context.job().config().table().keepPolicy());
    for (MethodStage stage : stages.values()) {
      for (StructField column : stage.columns()) {
        schema = schema.add(column);
      }
    }
    return schema;
  }

  /** Makes the rows of {@link #recordSchema}: the base columns, then each stage's values. */
  TableRead.RowMaker maker() {
    TableRead.RowMaker base = RecordColumns.maker();
    List<MethodStage.ColumnMaker> makers = new ArrayList<>();
    List<Integer> widths = new ArrayList<>();
    for (MethodStage stage : stages.values()) {
      if (!stage.columns().isEmpty()) {
        makers.add(stage.maker());
        widths.add(stage.columns().size());
      }
    }
    int added = widths.stream().mapToInt(Integer::intValue).sum();
    return config -> {
      Function<SourceRecord, Row> keys = base.open(config);
      if (makers.isEmpty()) {
        return keys;
      }
      MethodStage.ColumnValues[] columns = new MethodStage.ColumnValues[makers.size()];
      for (int m = 0; m < columns.length; m++) {
        columns[m] = makers.get(m).open(config);
      }
      return record -> {
        Row row = keys.apply(record);
        Object[] values = new Object[row.length() + added];
        int i = 0;
        for (; i < row.length(); i++) {
          values[i] = row.get(i);
        }
        for (int m = 0; m < columns.length; m++) {
          columns[m].put(record, values, i);
          i += widths.get(m);
        }
        return RowFactory.create(values);
      };
    };
  }

  /**
   * Runs the stage of {@code method} over {@code live} (the records no earlier stage removed).
   *
   * @param partitions the input's partitions: the stages' shuffles are cut to as many
   */
  Stage decide(String method, Dataset<Row> live, long examined, int partitions) {
    return stages.get(method).decide(live, examined, partitions);
  }

  /** The records of {@code live} that {@code removed} does not remove. */
  Dataset<Row> survivors(Dataset<Row> live, DeletionPlan removed) {
    Broadcast<long[]> ids =
        JavaSparkContext.fromSparkContext(context.spark().sparkContext())
            .broadcast(removed.removedIdsSorted());
    return live.filter(
        (FilterFunction<Row>) row -> Arrays.binarySearch(ids.value(), row.getLong(0)) < 0);
  }
}
