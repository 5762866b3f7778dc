package org.xiaochong.run;

import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.archive.ApartTable;
import org.xiaochong.archive.ApplySettings;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.archive.PlanMover;
import org.xiaochong.archive.ReferencedRows;
import org.xiaochong.archive.RowsMovedException;
import org.xiaochong.archive.RunLog;
import org.xiaochong.archive.RunWatermark;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSync;
import org.xiaochong.index.RecordSegmentIndexer;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.FingerprintMethods;
import org.xiaochong.method.MethodContext;
import org.xiaochong.method.MethodReport;
import org.xiaochong.method.PairEvidence;
import org.xiaochong.method.RecordKeys;
import org.xiaochong.pass.Window;
import org.xiaochong.prefilter.PrefilterSettings;
import org.xiaochong.prefilter.RecordKeyFilter;
import org.xiaochong.progress.Progress;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.TableSpec;

/**
 * One dedup run, end to end: bring the record index up to date with the table, run each selected
 * fingerprint method's pass over the window in the order given, and (with {@code apply}) archive
 * and delete the planned rows, then drop them from the indexes ({@link PlanApply}). A dry run
 * writes nothing to the database (a read-only user can run it); it only updates the indexes.
 *
 * <p>Over 300 lines because its nested {@link Options} and {@link Outcome} and its {@code with...}
 * settings (about half the class) are the API the CLI, the Spark job and the tools call; the stages
 * of a run beside them are split out ({@link ChosenWindow}, {@link ApplyStart}, {@link PlanApply},
 * {@link RunSummaries}).
 *
 * <p>Not thread-safe: one instance per run.
 */
public final class DedupRunner {
  /**
   * What to run. {@code since}/{@code until} may be null (unbounded).
   *
   * @param methods the fingerprint methods, in the order their passes run (at least one)
   * @param incremental without since/until: examine only the records indexed since the last applied
   *     run of this table with this index (all records when there is none); false examines all
   *     records
   */
  public record Options(
      List<FingerprintMethod> methods,
      LocalDateTime since,
      LocalDateTime until,
      boolean apply,
      boolean rebuildIndex,
      boolean incremental) {
    public Options {
      methods = List.copyOf(methods);
      if (methods.isEmpty()) {
        throw new IllegalArgumentException(
            "a run needs at least one method (known: " + FingerprintMethods.knownNames() + ")");
      }
    }

    /**
     * As given to {@code --method}: names, comma-separated, or an alias ({@link
     * FingerprintMethods#parse}).
     */
    public Options(
        String methods,
        LocalDateTime since,
        LocalDateTime until,
        boolean apply,
        boolean rebuildIndex,
        boolean incremental) {
      this(FingerprintMethods.parse(methods), since, until, apply, rebuildIndex, incremental);
    }

    /** A run over all records of the time window (not incremental). */
    public Options(
        String methods,
        LocalDateTime since,
        LocalDateTime until,
        boolean apply,
        boolean rebuildIndex) {
      this(methods, since, until, apply, rebuildIndex, false);
    }

    /**
     * The methods' names, comma-separated: the run's {@code method} in the run log and the summary.
     */
    public String label() {
      return FingerprintMethods.label(methods);
    }

    /** Whether the run takes its window from the last applied run's watermark. */
    public boolean fromWatermark() {
      return incremental && since == null && until == null;
    }

    public Window window() {
      return Window.of(since, until);
    }
  }

  /**
   * What a run did.
   *
   * @param summary its counts and seconds
   * @param plan its decisions
   * @param notMoved the planned removals an apply did not carry out, and why (empty for a dry run)
   * @param evidence for each method of the run that weighs columns, its pair charts ({@link
   *     PairEvidence}), by method name
   */
  public record Outcome(
      RunSummary summary,
      DeletionPlan plan,
      Map<Long, PlanMover.Outcome> notMoved,
      Map<String, PairEvidence> evidence) {
    public Outcome {
      notMoved = Map.copyOf(notMoved);
      evidence = Map.copyOf(evidence);
    }

    /** An outcome without pair charts. */
    public Outcome(RunSummary summary, DeletionPlan plan, Map<Long, PlanMover.Outcome> notMoved) {
      this(summary, plan, notMoved, Map.of());
    }

    /** What became of the planned removal of {@code removedId}: "planned" in a dry run. */
    public String outcomeOf(long removedId) {
      if (!summary.applied()) {
        return "planned";
      }
      return notMoved.getOrDefault(removedId, PlanMover.Outcome.MOVED).label();
    }
  }

  private final Database database;
  private final TableSpec spec;
  private final FingerprintIndex index;
  private final String configDigest;
  private final int threads;
  private final Progress progress;
  private PrefilterSettings prefilterSettings = PrefilterSettings.DEFAULT;
  private Consumer<String> notes = note -> {};
  private String recordDigest = "";
  private String updatedColumn;
  private Map<String, String> methodSettings = Map.of();
  private ReferencedRows.Settings references = ReferencedRows.Settings.DEFAULT;
  private long movedByResume;
  private ApplySettings applySettings = ApplySettings.DEFAULTS;
  private Runnable lockCheck = () -> {};
  private int readChunkRows = RecordSource.DEFAULT_CHUNK_ROWS;
  private StageClock.Listener stageListener = StageClock.Listener.NONE;

  public DedupRunner(
      Database database,
      TableSpec spec,
      FingerprintIndex index,
      String configDigest,
      int threads,
      Progress progress) {
    this.database = database;
    this.spec = spec;
    this.index = index;
    this.configDigest = configDigest;
    this.threads = threads;
    this.progress = progress;
  }

  /**
   * Finds changed rows through this DATETIME/TIMESTAMP column of the table (source.updated-column)
   * instead of comparing every row's checksum; null (the default) compares them all.
   */
  public DedupRunner withUpdatedColumn(String column) {
    this.updatedColumn = column;
    return this;
  }

  /**
   * The settings the methods read: the record index's fields digest (the base of each method's own
   * index digest) and the values of the methods' own keys ({@code near.*}, {@code simhash.*};
   * missing keys take their defaults). Defaults: "", none.
   */
  public DedupRunner withMethodSettings(String recordDigest, Map<String, String> settings) {
    this.recordDigest = recordDigest;
    this.methodSettings = Map.copyOf(settings);
    return this;
  }

  /**
   * What an apply does with rows that foreign keys of other tables reference, and with the table's
   * DELETE triggers ({@code apply.*}). Default: {@link ReferencedRows.Settings#DEFAULT} (refuse).
   */
  public DedupRunner withReferences(ReferencedRows.Settings settings) {
    this.references = settings;
    return this;
  }

  /** Uses these prefilter settings instead of {@link PrefilterSettings#DEFAULT}. */
  public DedupRunner withPrefilter(PrefilterSettings settings) {
    this.prefilterSettings = settings;
    return this;
  }

  /**
   * Reads the table at most {@code rows} rows per statement (index.read-chunk-rows; {@link
   * RecordSource}).
   */
  public DedupRunner withReadChunkRows(int rows) {
    this.readChunkRows = rows;
    return this;
  }

  /** Moves rows with these settings instead of {@link ApplySettings#DEFAULTS}. */
  public DedupRunner withApplySettings(ApplySettings settings) {
    this.applySettings = settings;
    return this;
  }

  /**
   * Runs {@code lockCheck} after the index sync, after the passes and before each batch of an apply
   * ({@link TableLock#requireHeld}): it throws when the table lock is lost, which stops the run
   * there (an apply stopped between batches is resumable; before the first, nothing was written).
   */
  public DedupRunner withLockCheck(Runnable lockCheck) {
    this.lockCheck = lockCheck;
    return this;
  }

  /**
   * Tells {@code listener} of each stage of a run as it ends, with where it began and ended (a
   * profile of the stages' CPU, as the bench prints it). Default: nobody.
   */
  public DedupRunner withStageListener(StageClock.Listener listener) {
    this.stageListener = listener;
    return this;
  }

  /** Receives one-line notes for the user (e.g. a prefilter rebuilt, and why). */
  public DedupRunner withNotes(Consumer<String> notes) {
    this.notes = notes;
    return this;
  }

  private RecordIndex recordIndex() {
    return new RecordIndex(index, spec, threads, updatedColumn, progress, prefilterSettings, notes);
  }

  private MethodContext context(boolean rebuild) {
    return new MethodContext(
        spec,
        index,
        recordDigest,
        prefilterSettings,
        rebuild,
        threads,
        updatedColumn,
        progress,
        notes,
        methodSettings);
  }

  private MethodContext context(boolean rebuild, ApartPairs apart) {
    return context(rebuild).withApart(apart);
  }

  /**
   * Brings the record index up to date with the table (the {@code index} command; the first stage
   * of a run).
   */
  public IndexSync.Result syncIndex(RecordSource source) {
    return recordIndex().sync(source, RecordSegmentIndexer.SegmentKeys.NONE);
  }

  /**
   * Brings the record index, and each method's own index that was built, up to date with the table,
   * keeping their prefilters in step (the {@code restore} command: the restored rows' keys are put
   * back instead of rebuilding the filters). Returns the sync of the record index.
   */
  public IndexSync.Result syncIndexesInStep(RecordSource source) {
    RecordIndex records = recordIndex();
    RecordIndex.Synced synced = records.syncWithFilter(source, records.openFilter());
    records.save(synced.filter());
    try (MethodRuns built = MethodRuns.openBuilt(FingerprintMethods.known(), context(false))) {
      built.syncAndSave(source);
    }
    return synced.sync();
  }

  /**
   * Runs once.
   *
   * @throws org.xiaochong.source.BadInputException before any row moved (a bad window, schema or
   *     config; a table an apply refuses: no transactions, referenced by foreign keys)
   * @throws RowsMovedException when an error stops an apply after rows moved
   */
  public Outcome run(Options options) {
    movedByResume = 0;
    try {
      return runOnce(options);
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

  private Outcome runOnce(Options options) {
    Window window = options.window(); // validates the window before any work
    StageClock clock = new StageClock(stageListener);
    long start = System.nanoTime();
    RecordSource source = new RecordSource(database, spec).withChunkRows(readChunkRows);
    List<String> columns = source.checkSchema();
    RunLog runLog = new RunLog(database, spec.table());
    RunWatermark watermark = new RunWatermark(database, spec.table());
    RecordIndex records = recordIndex();
    long t = System.nanoTime();
    RecordKeyFilter opened = records.openFilter();
    ApartPairs apart =
        new ApartTable(database, spec.table())
            .load(); // read once: every pass honours the same marks
    apart.save(
        index.path().resolve(ApartPairs.FILE)); // for check, which does not open the database
    // Opened before the apply starts, so that a method that cannot run stops the run before any row
    // moves. An applied run also keeps the other methods' built indexes in step with the rows it
    // removes.
    try (MethodRuns runs =
        MethodRuns.open(
            options.methods(), options.apply(), context(options.rebuildIndex(), apart))) {
      if (opened != null) {
        clock.ended("prefilter", t);
      }
      PlanMover mover = null;
      List<Long> resumed = List.of();
      if (options.apply()) {
        mover =
            ApplyStart.mover(database, spec, columns, references, context(false))
                .withSettings(applySettings)
                .withLockCheck(lockCheck);
        watermark.ensureColumns();
        PlanMover.Resumed finished = mover.resumeInterrupted();
        resumed = finished.runs();
        movedByResume = finished.rows();
      } else {
        ApplyStart.dryRunNotes(database, spec, references, notes);
      }
      t = System.nanoTime();
      RecordIndex.Synced synced = records.syncWithFilter(source, opened);
      lockCheck.run(); // a lock lost during the sync stops the run before its passes
      IndexSync.Result sync = synced.sync();
      RecordKeyFilter prefilter = synced.filter();
      clock.ended("index", t);
      long syncSeqReached = index.syncSeq();
      ChosenWindow chosen = ChosenWindow.choose(options, watermark, index, runs.newIndexOf());
      window = chosen.window();

      DeletionPlan plan = new DeletionPlan();
      Map<String, MethodReport> reports =
          runs.passes(source, new RecordKeys(index, prefilter), plan, window, clock);
      lockCheck.run(); // and one lost during the passes before anything is written
      // Each pass honours the marks; a chain collapsed across methods (a kept row that a later
      // method removed) can still point a removal to a row it is marked apart from: that row stays.
      int droppedApart = plan.dropApart(apart);

      Map<String, Long> removed = RunSummaries.removedByRule(options.methods(), plan);
      PlanApply.Result applied = PlanApply.NOT_APPLIED;
      if (options.apply()) {
        applied =
            new PlanApply(database, runLog, mover, records, prefilter, runs, progress)
                .apply(
                    options.label(),
                    configDigest,
                    options.since(),
                    options.until(),
                    sync.tableRows(),
                    plan,
                    removed,
                    source,
                    clock);
      }
      if (options.apply() && window.isAll() || options.apply() && chosen.sinceRun() > 0) {
        // Every record indexed up to syncSeqReached has now been examined by an applied run (a time
        // window examines only part of them: no watermark).
        watermark.record(applied.runId(), index.indexId(), syncSeqReached);
      }
      // Saved under the generations they now match (an applied run saved them after its deletes, or
      // threw); a crash before this line only costs a rebuild.
      if (!options.apply()) {
        records.save(prefilter);
        runs.save();
      }
      clock.ended("total", start);
      RunSummary summary =
          RunSummaries.of(
              options,
              sync,
              reports,
              removed,
              applied,
              resumed,
              movedByResume,
              clock.seconds(),
              prefilter,
              runs,
              chosen,
              new RunSummary.ApartStats(apart.size(), apart.honoured(), droppedApart));
      return new Outcome(summary, plan, applied.notMoved(), pairEvidence(options.methods()));
    }
  }

  /**
   * The pair charts of the methods that weigh columns, for the report. Rows may have moved by now:
   * a chart that cannot be opened is left out with a note, never an error of the run.
   */
  private Map<String, PairEvidence> pairEvidence(List<FingerprintMethod> methods) {
    Map<String, PairEvidence> evidence = new java.util.TreeMap<>();
    for (FingerprintMethod method : methods) {
      try {
        method.openPairEvidence(context(false)).ifPresent(e -> evidence.put(method.name(), e));
      } catch (RuntimeException e) {
        notes.accept(
            "the report shows no weight chart for " + method.name() + ": " + e.getMessage());
      }
    }
    return evidence;
  }
}
