package org.xiaochong.spark.run;

import static org.apache.spark.sql.functions.col;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import org.apache.spark.util.LongAccumulator;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.MethodReport;
import org.xiaochong.method.simhash.FeatureFrequencies;
import org.xiaochong.method.simhash.SimhashMethod;
import org.xiaochong.pass.Window;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.spark.exact.ExactGroups;
import org.xiaochong.spark.exact.ExactKeys;
import org.xiaochong.spark.near.NearRecord;
import org.xiaochong.spark.near.NearStage;
import org.xiaochong.spark.read.JobConfig;
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
      Dataset<Row> decisions, CollectionAccumulator<long[]> honouredPairs, MethodReport report) {
    List<long[]> honoured() {
      return honouredPairs.value();
    }
  }

  private final SparkSession spark;
  private final JobConfig job;
  private final List<long[]> ranges;
  private final int partitions;
  private final Window window;
  private final Broadcast<long[]> marks;

  /**
   * @param ranges the id ranges the records are read in, one partition each
   */
  StageMethods(
      SparkSession spark,
      JobConfig job,
      List<long[]> ranges,
      Window window,
      Broadcast<long[]> marks) {
    this.spark = spark;
    this.job = job;
    this.ranges = ranges;
    this.partitions = ranges.size();
    this.window = window;
    this.marks = marks;
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
    Broadcast<FeatureFrequencies> frequencies =
        simhash && SimhashMethod.tfIdf(job.config().table(), job.config().methodSettings())
            ? JavaSparkContext.fromSparkContext(spark.sparkContext())
                .broadcast(FeatureCounts.count(spark, job, ranges))
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
          near ? NearRecord.encoder(config) : null;
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
        LongAccumulator groups = spark.sparkContext().longAccumulator("exact groups");
        Dataset<Row> decisions =
            ExactGroups.decide(
                live,
                partitions,
                window.since(),
                window.until(),
                marks,
                new ExactGroups.Counters(groups, honoured));
        return new Stage(decisions, honoured, new ExactReport(examined, groups));
      }
      case "simhash" -> {
        LongAccumulator matches = spark.sparkContext().longAccumulator("simhash matches");
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
                new SimhashStage.Counters(matches, honoured));
        return new Stage(
            decisions, honoured, new SimhashReport(examined, empty, maxDistance, matches));
      }
      case "near" -> {
        LongAccumulator compared = spark.sparkContext().longAccumulator("near compared");
        long inWindow = live.filter(col("time").between(window.since(), window.until())).count();
        Map<String, Long> empty = NearStage.emptyByReason(live, window.since(), window.until());
        Dataset<Row> decisions =
            NearStage.decide(
                spark,
                live,
                job.config().methodSettings(),
                window.since(),
                window.until(),
                marks,
                new NearStage.Counters(compared, honoured));
        double minSimilarity =
            org.xiaochong.method.near.NearSettings.of(job.config().methodSettings())
                .minSimilarity();
        return new Stage(
            decisions, honoured, new NearReport(inWindow, compared, empty, minSimilarity));
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

  /**
   * The simhash stage's report, as the single machine's simhash pass reports (without its index's
   * work).
   */
  private record SimhashReport(long examined, long empty, int maxDistance, LongAccumulator matches)
      implements MethodReport {
    @Override
    public Map<String, Object> json(long removed) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("removed", removed);
      json.put("examined", examined);
      json.put("max_distance", maxDistance);
      json.put("empty", empty);
      json.put("matches", matches.value());
      return json;
    }

    @Override
    public String consoleLine(long removed, boolean applied) {
      return String.format(
          "simhash: %,d examined, %,d within distance %d %s, %,d without text",
          examined, removed, maxDistance, applied ? "removed" : "to remove", empty);
    }
  }

  /**
   * The near stage's report: what the single machine's near pass reports of its work, less its
   * index's (key lookups, truncated texts, index documents added): the records it examined (those
   * of the window no earlier stage removed), the pairs it compared, the records without
   * fingerprints per reason.
   */
  private record NearReport(
      long examined, LongAccumulator compared, Map<String, Long> empty, double minSimilarity)
      implements MethodReport {
    @Override
    public Map<String, Object> json(long removed) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("removed", removed);
      json.put("examined", examined);
      json.put("candidates", compared.value());
      json.put("empty", empty);
      json.put("min_similarity", minSimilarity);
      return json;
    }

    @Override
    public String consoleLine(long removed, boolean applied) {
      return String.format(
          "near: %,d examined, %,d near duplicates %s, %,d candidates compared, %,d without"
              + " fingerprints %s (exact pass only)",
          examined,
          removed,
          applied ? "removed" : "to remove",
          compared.value(),
          empty.values().stream().mapToLong(Long::longValue).sum(),
          empty);
    }
  }

  /**
   * The exact stage's report, as the single machine's exact pass reports (without its index
   * lookups).
   */
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
      return String.format(
          "exact: %,d groups, %,d duplicates %s",
          groups.value(), removed, applied ? "removed" : "to remove");
    }
  }
}
