package org.xiaochong.spark.run;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.archive.ApartTable;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.archive.PlanMover;
import org.xiaochong.archive.RowsMovedException;
import org.xiaochong.archive.RunLog;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.FingerprintMethods;
import org.xiaochong.method.MethodReport;
import org.xiaochong.pass.Window;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.ApplyStart;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.run.PlanApply;
import org.xiaochong.run.RunSummaries;
import org.xiaochong.run.RunSummary;
import org.xiaochong.run.StageClock;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.TableSpec;
import org.xiaochong.spark.plan.Decisions;
import org.xiaochong.spark.plan.StagingTable;
import org.xiaochong.spark.read.IdRanges;
import org.xiaochong.spark.read.JobConfig;
import org.xiaochong.spark.read.ParquetRead;
import org.xiaochong.spark.read.RecordInput;

/**
 * One dedup run as a Spark job: read the table in id ranges, run each selected method's stage,
 * bring the decisions to the driver as a {@link DeletionPlan} (straight from the executors in a dry
 * run, through {@link StagingTable} when applying) and, with {@code apply}, archive and delete
 * through the single machine's apply ({@link PlanApply}: the run log, the plan table, the re-check
 * under row locks, the kept-apart marks). The decisions are those of {@code bin/dedup run --full}
 * on the same table.
 *
 * <p>The job keeps no index: each run examines every record of its window (a single-machine run's
 * default examines those indexed since its last applied run), and the single machine's index
 * follows the rows a Spark run removed at its next sync. Not thread-safe: one instance per run.
 *
 * <p>Over 300 lines because a run is one sequence (input, stages, staging, apply, summary) kept in
 * one place, in the order of the single machine's {@link DedupRunner}; the input, the stages and
 * their reports are classes of their own.
 */
public final class SparkRun {
  /**
   * What to run.
   *
   * @param partitions input partitions (id ranges); 0 picks one per 200k ids of the table's id
   *     span, at least two per core of the job ({@link IdRanges#defaultCount})
   * @param parquet a Parquet export to read the records from ({@link ParquetRead}), or null to read
   *     the table (from the replica of db.read-url when the config names one)
   * @param driverComponentSize near components of more records are decided on the driver
   */
  public record Options(
      List<FingerprintMethod> methods,
      LocalDateTime since,
      LocalDateTime until,
      boolean apply,
      int partitions,
      String parquet,
      long driverComponentSize) {
    public Options {
      methods = List.copyOf(methods);
      if (methods.isEmpty()) {
        throw new BadInputException(
            "a run needs at least one method (known: " + FingerprintMethods.knownNames() + ")");
      }
    }

    public String label() {
      return FingerprintMethods.label(methods);
    }
  }

  private final SparkSession spark;
  private final JobConfig job;
  private final Database database;
  private final Progress progress;
  private final Consumer<String> notes;
  private Runnable lockCheck = () -> {};

  public SparkRun(
      SparkSession spark,
      JobConfig job,
      Database database,
      Progress progress,
      Consumer<String> notes) {
    this.spark = spark;
    this.job = job;
    this.database = database;
    this.progress = progress;
    this.notes = notes;
  }

  /** Runs {@code lockCheck} before each batch of an apply ({@code TableLock#requireHeld}). */
  public SparkRun withLockCheck(Runnable lockCheck) {
    this.lockCheck = lockCheck;
    return this;
  }

  /**
   * Runs once.
   *
   * @throws BadInputException before any row moved (a bad window, schema or config; a table an
   *     apply refuses)
   * @throws RowsMovedException when an error stops an apply after rows moved
   */
  public DedupRunner.Outcome run(Options options) {
    DedupConfig config = job.config();
    TableSpec spec = config.table();
    Window window = Window.of(options.since(), options.until());
    for (FingerprintMethod method : options.methods()) {
      SparkMethods.of(method.name()); // a method the job does not run: refused before anything runs
    }
    StageClock clock = new StageClock();
    long start = System.nanoTime();
    RecordSource source = new RecordSource(database, spec).withChunkRows(config.readChunkRows());
    List<String> columns = source.checkSchema();
    ApartPairs apart = new ApartTable(database, spec.table()).load();
    PlanMover mover = null;
    List<Long> resumed = List.of();
    long movedByResume = 0;
    if (options.apply()) {
      mover =
          ApplyStart.mover(
                  database,
                  spec,
                  columns,
                  config.references(),
                  config.methodContext(null, notes).withApart(apart))
              .withSettings(config.apply())
              .withLockCheck(lockCheck);
      PlanMover.Resumed finished = mover.resumeInterrupted();
      resumed = finished.runs();
      movedByResume = finished.rows();
      StagingTable.ensure(database, spec.table());
    } else {
      ApplyStart.dryRunNotes(database, spec, config.references(), notes);
    }
    try {
      return decideAndApply(
          options, config, window, source, apart, mover, resumed, movedByResume, clock, start);
    } catch (RowsMovedException e) {
      throw e;
    } catch (RuntimeException e) {
      if (movedByResume > 0) {
        throw new RowsMovedException(
            String.format("finishing interrupted runs moved %,d rows", movedByResume),
            movedByResume,
            e);
      }
      throw e;
    }
  }

  private DedupRunner.Outcome decideAndApply(
      Options options,
      DedupConfig config,
      Window window,
      RecordSource source,
      ApartPairs apart,
      PlanMover mover,
      List<Long> resumed,
      long movedByResume,
      StageClock clock,
      long start) {
    TableSpec spec = config.table();
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    long t = System.nanoTime();
    DeletionPlan plan = new DeletionPlan();
    Map<String, MethodReport> reports = new LinkedHashMap<>();
    long tableRows = 0;
    long examined = 0;
    String jobId = UUID.randomUUID().toString().replace("-", "");
    Broadcast<long[]> marks = context.broadcast(apart.toArray());
    RecordInput input =
        RecordInput.open(spark, job, database, options.parquet(), options.partitions(), notes);
    if (input != null) {
      StageMethods stages =
          StageMethods.open(
              options.methods(),
              new StageContext(spark, job, input, window, marks, options.driverComponentSize()));
      Dataset<Row> read = input.read(stages.recordSchema(), stages.maker());
      int partitions = read.rdd().getNumPartitions();
      Dataset<Row> records = read.persist(StorageLevel.MEMORY_AND_DISK());
      try {
        tableRows = records.count();
        examined =
            window.isAll()
                ? tableRows
                : records
                    .filter(
                        org.apache
                            .spark
                            .sql
                            .functions
                            .col("time")
                            .between(window.since(), window.until()))
                    .count();
        clock.ended("read", t);
        List<Dataset<Row>> staged = new ArrayList<>();
        Dataset<Row> live = records;
        for (FingerprintMethod method : options.methods()) {
          t = System.nanoTime();
          Stage stage = stages.decide(method.name(), live, examined, partitions);
          DeletionPlan own = deliver(stage.decisions(), options.apply(), jobId);
          stage.honoured().forEach(apart::recordHonoured);
          addAll(plan, own);
          reports.put(method.name(), stage.report(plan));
          clock.ended(method.name(), t);
          if (options.methods().size() > 1) {
            live = stages.survivors(live, own);
          }
        }
      } finally {
        records.unpersist();
      }
      if (options.methods().size() > 1) {
        plan.collapseChains();
      }
    } else {
      options.methods().forEach(m -> reports.put(m.name(), MethodReport.notRun()));
    }
    int droppedApart = plan.dropApart(apart);
    requireNoKeptRowRemoved(plan);
    Map<String, Long> removed = RunSummaries.removedByRule(options.methods(), plan);
    PlanApply.Result applied = PlanApply.NOT_APPLIED;
    if (options.apply()) {
      try {
        applied =
            PlanApply.withoutIndex(database, new RunLog(database, spec.table()), mover, progress)
                .apply(
                    options.label(),
                    config.digest(),
                    options.since(),
                    options.until(),
                    tableRows,
                    plan,
                    removed,
                    source,
                    clock);
      } finally {
        StagingTable.drop(database, jobId);
      }
    }
    clock.ended("total", start);
    Map<String, Long> removedByKnown = RunSummaries.removedByKnown(removed);
    RunSummary summary =
        new RunSummary(
            applied.runId(),
            options.label(),
            options.apply(),
            tableRows,
            examined,
            0,
            0,
            0,
            removedByKnown,
            reports,
            resumed,
            applied.skippedChanged(),
            applied.decidedAgain(),
            clock.seconds(),
            List.of(),
            null,
            describe(options),
            0,
            applied.counts(),
            movedByResume,
            new RunSummary.ApartStats(apart.size(), apart.honoured(), droppedApart));
    return new DedupRunner.Outcome(summary, plan, applied.notMoved());
  }

  /**
   * The decisions on the driver. A dry run writes nothing to the database: they come straight from
   * the executors. An apply stages them first ({@link StagingTable}): what the archive applies is
   * then what the executors wrote, once, whatever task was retried.
   */
  private DeletionPlan deliver(Dataset<Row> decisions, boolean apply, String jobId) {
    if (!apply) {
      return Decisions.collect(decisions);
    }
    StagingTable.write(decisions, job, jobId);
    return StagingTable.read(database, jobId);
  }

  /** Adds the decisions of a stage the plan does not hold yet (by removed id). */
  private static void addAll(DeletionPlan plan, DeletionPlan own) {
    long[] planned = plan.removedIdsSorted();
    for (int i = 0; i < own.size(); i++) {
      if (java.util.Arrays.binarySearch(planned, own.removedId(i)) < 0) {
        plan.add(
            own.removedId(i),
            own.keptId(i),
            own.rule(i),
            own.score(i),
            own.removedState(i),
            own.keptState(i));
      }
    }
  }

  private static String describe(Options options) {
    if (options.since() == null && options.until() == null) {
      return "all records (Spark job)";
    }
    return "records with time "
        + (options.since() == null
            ? ""
            : "from " + options.since().toString().replace('T', ' ') + " ")
        + (options.until() == null ? "" : "until " + options.until().toString().replace('T', ' '));
  }

  /**
   * Stops the job before its apply when its plan removes a row that it keeps other rows in favour
   * of: the stages' merged plan must never archive a kept row (its chains are collapsed first).
   */
  static void requireNoKeptRowRemoved(DeletionPlan plan) {
    long keptAndRemoved = plan.keptAndRemoved();
    if (keptAndRemoved >= 0) {
      throw new IllegalStateException(
          "the job's plan removes row "
              + keptAndRemoved
              + " and keeps other rows in favour of it; stopped before the apply, nothing moved");
    }
  }
}
