package org.xiaochong.spark.run;

import static org.apache.spark.sql.functions.col;

import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FilterFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.CollectionAccumulator;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.MethodReport;
import org.xiaochong.method.near.NearMethod;
import org.xiaochong.method.near.NearStats;
import org.xiaochong.method.simhash.FeatureFrequencies;
import org.xiaochong.method.simhash.SimhashMethod;
import org.xiaochong.pass.Window;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.spark.count.PartitionCounter;
import org.xiaochong.spark.exact.ExactGroups;
import org.xiaochong.spark.exact.ExactKeys;
import org.xiaochong.spark.graph.ComponentSizes;
import org.xiaochong.spark.near.KeyTimes;
import org.xiaochong.spark.near.NearRecord;
import org.xiaochong.spark.near.NearStage;
import org.xiaochong.spark.near.WindowCounts;
import org.xiaochong.spark.read.JobConfig;
import org.xiaochong.spark.read.RecordInput;
import org.xiaochong.spark.read.TableRead;
import org.xiaochong.spark.simhash.FeatureCounts;
import org.xiaochong.spark.simhash.SimhashStage;

/**
 * The methods' stages of a job: what each record carries for them (the columns of the records
 * read), and each method's stage over the records still live. Not thread-safe: one per run.
 */
final class StageMethods {
  static final List<String> NAMES = List.of("exact", "near", "simhash");

  /**
   * One method's stage: its decisions (lazy: computed when delivered), then, once they are, the
   * marked pairs it honoured and its report.
   */
  record Stage(
      Dataset<Row> decisions,
      CollectionAccumulator<long[]> honouredPairs,
      java.util.function.Function<DeletionPlan, MethodReport> reporter) {
    Stage(Dataset<Row> decisions, CollectionAccumulator<long[]> honoured, MethodReport report) {
      this(decisions, honoured, plan -> report);
    }

    List<long[]> honoured() {
      return honouredPairs.value();
    }

    /**
     * The stage's report, once its decisions are in {@code plan} (the near stage re-points earlier
     * removals to its survivors there, as the single machine's near pass does).
     */
    MethodReport report(DeletionPlan plan) {
      return reporter.apply(plan);
    }
  }

  private final SparkSession spark;
  private final JobConfig job;
  private final RecordInput input;
  private final Window window;
  private final Broadcast<long[]> marks;
  private final long driverComponentSize;
  private final KeyTimes keyTimes;
  private int partitions = 1;

  /**
   * @param input where the records come from (the feature counts of tf-idf read it again)
   * @param driverComponentSize components of more records are decided on the driver
   */
  StageMethods(
      SparkSession spark,
      JobConfig job,
      RecordInput input,
      Window window,
      Broadcast<long[]> marks,
      long driverComponentSize) {
    this.spark = spark;
    this.job = job;
    this.input = input;
    this.window = window;
    this.marks = marks;
    this.driverComponentSize = driverComponentSize;
    this.keyTimes = KeyTimes.create(spark.sparkContext());
  }

  /** The input's partitions: the stages' shuffles are cut to as many. */
  void partitions(int partitions) {
    this.partitions = partitions;
  }

  static boolean supported(String method) {
    return NAMES.contains(method);
  }

  private static boolean uses(List<FingerprintMethod> methods, String name) {
    return methods.stream().anyMatch(m -> m.name().equals(name));
  }

  /**
   * The columns of a record for these methods: those of {@link ExactKeys#schema} (the exact key is
   * cheap, and every run needs id, time, checksum and keep rank), then the simhash (null without
   * features) when simhash runs.
   */
  StructType recordSchema(List<FingerprintMethod> methods) {
    StructType schema = ExactKeys.schema(job.config().table().keepPolicy());
    if (uses(methods, "simhash")) {
      schema = schema.add("simhash", DataTypes.LongType, true);
    }
    if (uses(methods, "near")) {
      schema = schema.add("near", DataTypes.BinaryType, false);
    }
    return schema;
  }

  /**
   * Makes the rows of {@link #recordSchema}: each method's fingerprint by the single machine's
   * code. With simhash under tf-idf weights, the table's feature frequencies are counted first
   * ({@link FeatureCounts}, a job of its own) and broadcast to the fingerprints.
   */
  TableRead.RowMaker maker(List<FingerprintMethod> methods) {
    TableRead.RowMaker exact = ExactKeys.maker();
    boolean simhash = uses(methods, "simhash");
    boolean near = uses(methods, "near");
    KeyTimes times = keyTimes;
    Broadcast<FeatureFrequencies> frequencies =
        simhash && SimhashMethod.tfIdf(job.config().table(), job.config().methodSettings())
            ? JavaSparkContext.fromSparkContext(spark.sparkContext())
                .broadcast(FeatureCounts.count(input))
            : null;
    return config -> {
      java.util.function.Function<SourceRecord, Row> keys = exact.open(config);
      java.util.function.Function<SourceRecord, Long> fingerprint =
          simhash
              ? SimhashMethod.fingerprinter(
                  config.table(),
                  config.methodSettings(),
                  frequencies == null ? null : frequencies.value())
              : null;
      java.util.function.Function<SourceRecord, byte[]> nearKeys =
          near ? NearRecord.encoder(config, times) : null;
      return record -> {
        Row base = keys.apply(record);
        if (fingerprint == null && nearKeys == null) {
          return base;
        }
        Object[] values =
            new Object[base.length() + (fingerprint == null ? 0 : 1) + (near ? 1 : 0)];
        int i = 0;
        for (; i < base.length(); i++) {
          values[i] = base.get(i);
        }
        if (fingerprint != null) {
          values[i++] = fingerprint.apply(record);
        }
        if (nearKeys != null) {
          values[i] = nearKeys.apply(record);
        }
        return RowFactory.create(values);
      };
    };
  }

  /** Runs the stage of {@code method} over {@code live} (the records no earlier stage removed). */
  Stage run(String method, Dataset<Row> live, long examined) {
    CollectionAccumulator<long[]> honoured =
        spark.sparkContext().collectionAccumulator(method + " apart honoured");
    switch (method) {
      case "exact" -> {
        PartitionCounter groups = PartitionCounter.create(spark.sparkContext(), "exact groups");
        Dataset<Row> decisions =
            ExactGroups.decide(
                live,
                partitions,
                window.since(),
                window.until(),
                marks,
                new ExactGroups.Counters(groups, honoured));
        return new Stage(decisions, honoured, new StageReports.ExactReport(examined, groups));
      }
      case "simhash" -> {
        PartitionCounter matches = PartitionCounter.create(spark.sparkContext(), "simhash matches");
        ComponentSizes components = new ComponentSizes();
        int maxDistance =
            SimhashMethod.maxDistance(job.config().table(), job.config().methodSettings());
        long empty =
            live.filter(
                    col("simhash")
                        .isNull()
                        .and(col("time").between(window.since(), window.until())))
                .count();
        Dataset<Row> decisions =
            SimhashStage.decide(
                spark,
                live,
                maxDistance,
                window.since(),
                window.until(),
                marks,
                driverComponentSize,
                new SimhashStage.Counters(matches, honoured, components));
        return new Stage(
            decisions,
            honoured,
            new StageReports.SimhashReport(examined, empty, maxDistance, matches, components));
      }
      case "near" -> {
        NearStage.Counters counters =
            new NearStage.Counters(
                PartitionCounter.create(spark.sparkContext(), "near lookups"),
                PartitionCounter.create(spark.sparkContext(), "near compared"),
                PartitionCounter.create(spark.sparkContext(), "near merge compared"),
                honoured,
                new ComponentSizes());
        WindowCounts counts = WindowCounts.of(live, window.since(), window.until());
        Dataset<Row> decisions =
            NearStage.decide(
                spark,
                live,
                job.config().methodSettings(),
                window.since(),
                window.until(),
                marks,
                driverComponentSize,
                counters);
        double minSimilarity =
            org.xiaochong.method.near.NearSettings.of(job.config().methodSettings())
                .minSimilarity();
        long indexed = live.count();
        return new Stage(
            decisions,
            honoured,
            plan ->
                new StageReports.NearReport(
                    NearMethod.report(
                        new NearStats(
                            counts.examined(),
                            plan.count(DeletionPlan.Rule.of("near")),
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
      default ->
          throw new BadInputException("dedup-spark runs the methods " + NAMES + ", not " + method);
    }
  }

  /** The records of {@code live} that {@code removed} does not remove. */
  Dataset<Row> survivors(Dataset<Row> live, DeletionPlan removed) {
    Broadcast<long[]> ids =
        org.apache.spark.api.java.JavaSparkContext.fromSparkContext(spark.sparkContext())
            .broadcast(removed.removedIdsSorted());
    return live.filter(
        (FilterFunction<Row>)
            row -> java.util.Arrays.binarySearch(ids.value(), row.getLong(0)) < 0);
  }

  static MethodReport emptyReport(String method) {
    return MethodReport.notRun();
  }
}
