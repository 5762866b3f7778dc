package org.xiaochong.run;

import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.DirectoryReader;
import org.xiaochong.archive.ArchiveTables;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.archive.PlanMover;
import org.xiaochong.archive.PlanTable;
import org.xiaochong.archive.RunLog;
import org.xiaochong.archive.RunWatermark;
import org.xiaochong.index.IndexSchema;
import java.util.Optional;
import org.xiaochong.index.ExactSegmentIndexer;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSync;
import org.xiaochong.fingerprint.NearConfig;
import org.xiaochong.fingerprint.TopTermsMd5;
import org.xiaochong.index.NearDocumentMaker;
import org.xiaochong.index.RecordIndexer;
import org.xiaochong.pass.ExactPass;
import org.xiaochong.pass.NearPass;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.Window;
import org.xiaochong.prefilter.GroupPrefilter;
import org.xiaochong.prefilter.ExactKeyFilter;
import org.xiaochong.prefilter.FilterFile;
import org.xiaochong.prefilter.IndexKeyFilter;
import org.xiaochong.prefilter.NearKeyFilter;
import org.xiaochong.prefilter.PrefilterSettings;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.TableSpec;

/**
 * One dedup run, end to end: bring the index up to date with the table, run the passes over the
 * window, and (with {@code apply}) archive and delete the planned rows, then drop them from the index.
 * A dry run writes nothing to the database (a read-only user can run it); it only updates the index.
 *
 * <p>Not thread-safe: one instance per run.
 */
public final class DedupRunner {
  /**
   * What to run. {@code since}/{@code until} may be null (unbounded).
   *
   * @param incremental without since/until: examine only the records indexed since the last applied
   *     run of this table with this index (all records when there is none); false examines all records
   */
  public record Options(String method, LocalDateTime since, LocalDateTime until, boolean apply, boolean rebuildIndex,
      boolean incremental) {
    public Options {
      if (!method.equals("exact") && !method.equals("near") && !method.equals("both")) {
        throw new IllegalArgumentException("method must be exact, near or both, not '" + method + "'");
      }
    }

    /** A run over all records of the time window (not incremental). */
    public Options(String method, LocalDateTime since, LocalDateTime until, boolean apply, boolean rebuildIndex) {
      this(method, since, until, apply, rebuildIndex, false);
    }

    /** Whether the run takes its window from the last applied run's watermark. */
    public boolean fromWatermark() {
      return incremental && since == null && until == null;
    }

    public boolean exact() {
      return !method.equals("near");
    }

    public boolean near() {
      return !method.equals("exact");
    }

    public Window window() {
      return Window.of(since, until);
    }
  }

  /** The result of a run: its summary and its decisions. */
  public record Outcome(RunSummary summary, DeletionPlan plan) {}

  private final Database database;
  private final TableSpec spec;
  private final FingerprintIndex index;
  private final String configDigest;
  private final int threads;
  private final Progress progress;
  private PrefilterSettings prefilterSettings = PrefilterSettings.DEFAULT;
  private java.util.function.Consumer<String> notes = note -> {};

  private FingerprintIndex nearIndex;
  private NearConfig nearConfig;
  /** The near rule's settings for the apply's re-check of near removals (also without a near index). */
  private NearConfig nearRule = NearConfig.defaults();

  private String updatedColumn;

  /**
   * Finds changed rows through this DATETIME/TIMESTAMP column of the table (source.updated-column)
   * instead of comparing every row's checksum; null (the default) compares them all.
   */
  public DedupRunner withUpdatedColumn(String column) {
    this.updatedColumn = column;
    return this;
  }

  /**
   * The near index and settings, needed for {@code --method near|both}. The runner does not close the
   * index.
   */
  public DedupRunner withNear(FingerprintIndex nearIndex, NearConfig nearConfig) {
    this.nearIndex = nearIndex;
    this.nearConfig = nearConfig;
    this.nearRule = nearConfig;
    return this;
  }

  /**
   * The configured near settings, for re-checking near removals before they move (an exact run may
   * finish an interrupted near run); {@link NearConfig#defaults()} unless set.
   */
  public DedupRunner withNearRule(NearConfig nearConfig) {
    this.nearRule = nearConfig;
    return this;
  }

  /** Uses these prefilter settings instead of {@link PrefilterSettings#DEFAULT}. */
  public DedupRunner withPrefilter(PrefilterSettings settings) {
    this.prefilterSettings = settings;
    return this;
  }

  /** Receives one-line notes for the user (e.g. a prefilter rebuilt, and why). */
  public DedupRunner withNotes(java.util.function.Consumer<String> notes) {
    this.notes = notes;
    return this;
  }

  public DedupRunner(Database database, TableSpec spec, FingerprintIndex index, String configDigest, int threads, Progress progress) {
    this.database = database;
    this.spec = spec;
    this.index = index;
    this.configDigest = configDigest;
    this.threads = threads;
    this.progress = progress;
  }

  /** Brings the index up to date with the table (the {@code index} command; the first stage of a run). */
  public IndexSync.Result syncIndex(RecordSource source) {
    return syncIndex(source, ExactSegmentIndexer.SegmentKeys.NONE);
  }

  /** As {@link #syncIndex(RecordSource)}, telling {@code segmentKeys} the keys of the segments it adds. */
  private IndexSync.Result syncIndex(RecordSource source, ExactSegmentIndexer.SegmentKeys segmentKeys) {
    if (updatedColumn != null) {
      source.checkUpdatedColumn(updatedColumn);
    }
    long rows = progressTotal(source);
    try (Progress.Stage stage = progress.start("index", rows)) {
      return new IndexSync(source, index, () -> new ExactSegmentIndexer(index, spec, segmentKeys), threads)
          .withUpdatedColumn(updatedColumn).run(stage);
    }
  }

  /** A sync of the index and the exact filter that is in step with it (null when the prefilter is off). */
  private record Synced(IndexSync.Result sync, ExactKeyFilter filter) {}

  /**
   * Brings the index up to date and {@code filter} with it: {@link #syncInStep}, except on a first build,
   * where the filter is made from the keys as they are indexed rather than rebuilt from the finished
   * index.
   */
  private Synced syncIndexAndFilter(RecordSource source, ExactKeyFilter filter) {
    boolean firstBuild = filter != null && index.writer().getDocStats().numDocs == 0; // no reader needed
    if (!firstBuild) {
      return new Synced(syncInStep(index, filter, () -> syncIndex(source)), filter);
    }
    ExactKeyFilter.Collector keys = new ExactKeyFilter.Collector();
    IndexSync.Result sync = syncIndex(source, keys);
    return new Synced(sync, keys.filter(prefilterSettings.countersPerKey(), prefilterSettings.hashes()));
  }

  /**
   * Brings the index, and the near index when there is one, up to date with the table, keeping their
   * prefilters in step (the {@code restore} command: the restored rows' keys are put back instead of
   * rebuilding the filters). Returns the sync of the index.
   */
  public IndexSync.Result syncIndexesInStep(RecordSource source) {
    Synced synced = syncIndexAndFilter(source, openFilter(ExactKeyFilter.KIND, index));
    IndexSync.Result sync = synced.sync();
    saveFilter(synced.filter(), index);
    if (nearIndex != null) {
      NearKeyFilter nearFilter = openFilter(NearKeyFilter.KIND, nearIndex);
      syncInStep(nearIndex, nearFilter, () -> syncNearIndex(source));
      saveFilter(nearFilter, nearIndex);
    }
    return sync;
  }

  /**
   * Brings the near index up to date with the table: fingerprints (smartcn) for rows not yet in it.
   * One {@link TopTermsMd5} is shared by the worker threads (it is thread-safe).
   */
  public IndexSync.Result syncNearIndex(RecordSource source) {
    return syncNearIndex(source, new long[0]);
  }

  /**
   * As {@link #syncNearIndex(RecordSource)}, leaving out the rows of {@code skipSorted}: rows the exact
   * pass of this run removes need no near fingerprints (segmenting is the costly stage), and a later
   * sync adds them if they are still in the table (a dry run).
   */
  public IndexSync.Result syncNearIndex(RecordSource source, long[] skipSorted) {
    if (nearIndex == null) {
      throw new IllegalStateException("no near index: call withNear first");
    }
    long rows = progressTotal(source);
    try (TopTermsMd5 fingerprinter = new TopTermsMd5(nearConfig);
        Progress.Stage stage = progress.start("near index", rows)) {
      return new IndexSync(source, nearIndex,
          () -> RecordIndexer.documents(nearIndex, new NearDocumentMaker(spec, fingerprinter)), threads)
          .skipping(org.xiaochong.index.IdSet.of(skipSorted))
          .withUpdatedColumn(updatedColumn)
          .run(stage);
    }
  }

  /** The row count for a progress bar; a COUNT(*) scan is only worth it when a bar is shown. */
  private long progressTotal(RecordSource source) {
    return progress == Progress.NONE ? -1 : source.count();
  }

  public Outcome run(Options options) {
    Window window = options.window(); // validates the window before any work
    if (options.near() && nearIndex == null) {
      throw new IllegalStateException("--method " + options.method() + " needs the near index: call withNear first");
    }
    Map<String, Double> seconds = new LinkedHashMap<>();
    long start = System.nanoTime();
    RecordSource source = new RecordSource(database, spec);
    List<String> columns = source.checkSchema();
    RunLog runLog = new RunLog(database, spec.table());
    RunWatermark watermark = new RunWatermark(database, spec.table());
    PlanMover mover = null;
    List<Long> resumed = List.of();
    if (options.apply()) {
      mover = new PlanMover(ArchiveTables.ensure(database, spec, columns), nearRule);
      watermark.ensureColumns();
      resumed = mover.resumeInterrupted();
    }
    // A near index built in this run holds records no earlier run's near pass saw: all are examined.
    boolean nearIsNew = options.near() && nearIndex.writer().getDocStats().numDocs == 0;

    long t = System.nanoTime();
    ExactKeyFilter opened = openFilter(ExactKeyFilter.KIND, index);
    NearKeyFilter nearFilter = nearIndex == null ? null : openFilter(NearKeyFilter.KIND, nearIndex);
    if (opened != null) {
      seconds.put("prefilter", elapsed(t));
      t = System.nanoTime();
    }
    Synced synced = syncIndexAndFilter(source, opened);
    IndexSync.Result sync = synced.sync();
    ExactKeyFilter prefilter = synced.filter();
    seconds.put("index", elapsed(t));
    long syncSeqReached = index.syncSeq();
    ChosenWindow chosen = chooseWindow(options, watermark, nearIsNew);
    window = chosen.window();

    t = System.nanoTime();
    DeletionPlan plan = new DeletionPlan();
    ExactPass.Result exact = new ExactPass.Result(0, 0, 0, 0, 0, List.of());
    if (options.exact()) {
      try (DirectoryReader reader = index.openReader()) {
        GroupPrefilter groupPrefilter = prefilter == null ? GroupPrefilter.NONE : prefilter;
        exact = new ExactPass(new IndexSnapshot(reader), groupPrefilter).run(window, plan);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      seconds.put("exact", elapsed(t));
    }

    RunSummary.NearStats nearStats = null;
    NearPass.Result near = null;
    if (options.near()) {
      t = System.nanoTime();
      IndexSync.Result nearSync = syncInStep(nearIndex, nearFilter, () -> syncNearIndex(source, plan.removedIdsSorted()));
      seconds.put("near_index", elapsed(t));
      t = System.nanoTime();
      try (DirectoryReader reader = nearIndex.openReader()) {
        near = new NearPass(new IndexSnapshot(reader), nearConfig)
            .run(window, plan.removedIdsSorted(DeletionPlan.Rule.EXACT), plan);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      long repointed = plan.collapseChains();
      Map<String, Long> empty = new LinkedHashMap<>();
      near.empty().forEach((reason, count) -> empty.put(reason.name().toLowerCase(java.util.Locale.ROOT), count));
      nearStats = new RunSummary.NearStats(near.recordsExamined(), near.removed(), near.skippedExact(), near.lookups(),
          near.candidates(), empty, near.truncated(), repointed, nearSync.added());
      seconds.put("near", elapsed(t));
    }

    long runId = 0;
    long skippedExact = 0; // planned rows the apply left in place, per rule
    long skippedNear = 0;
    long decidedAgain = 0;
    if (options.apply()) {
      t = System.nanoTime();
      runId = runLog.startRun(options.method(), true, configDigest, options.since(), options.until());
      try {
        // The plan is written while the first batches move (see writePlanAndApply): "plan" is the
        // time until it was all written, "apply" the rest.
        PlanMover.Applied applied;
        try (Progress.Stage stage = progress.start("apply", plan.size())) {
          applied = mover.writePlanAndApply(runId, plan, stage);
        }
        seconds.put("plan", elapsed(t, applied.planWrittenNanos()));
        t = applied.planWrittenNanos();
        skippedExact = applied.skippedExact();
        skippedNear = applied.skippedNear();
        decidedAgain = applied.decidedAgain();
        runLog.finishRun(runId, "applied", sync.tableRows(), plan.count(DeletionPlan.Rule.EXACT) - skippedExact,
            plan.count(DeletionPlan.Rule.NEAR) - skippedNear, applied.skippedChanged() == 0 ? null
                : applied.skippedChanged() + " planned rows left in place: they or their kept rows changed since the plan");
      } catch (RuntimeException e) {
        // Batches already committed stay archived (nothing is lost); the run stays 'applying' and the
        // next run finishes it.
        try {
          runLog.finishRun(runId, "applying", sync.tableRows(), 0, 0, "interrupted: " + Database.rootMessage(e));
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
      // The rows are moved and the run is recorded; what is left is cleanup. The server deletes the
      // plan rows (~0.4 s for 261k) while this thread drops the ids from the indexes.
      long finishedRun = runId;
      java.util.concurrent.CompletableFuture<Void> planDropped =
          java.util.concurrent.CompletableFuture.runAsync(() -> new PlanTable(database).drop(finishedRun));
      RuntimeException failure = null;
      try {
        long[] removed = plan.removedIdsSorted();
        deleteInStep(index, prefilter, removed);
        if (nearIndex != null) {
          deleteInStep(nearIndex, nearFilter, removed);
        }
        // Saved here, under the generations the deletes made, while the server still drops the plan.
        saveFilter(prefilter, index);
        saveFilter(nearFilter, nearIndex);
      } catch (RuntimeException e) {
        failure = e;
      }
      try {
        planDropped.join();
      } catch (java.util.concurrent.CompletionException e) {
        RuntimeException cause = e.getCause() instanceof RuntimeException r ? r : e;
        if (failure == null) {
          failure = cause;
        } else {
          failure.addSuppressed(cause);
        }
      }
      if (failure != null) {
        throw failure;
      }
      if (skippedExact + skippedNear > 0) {
        // The rows left in place were dropped from the indexes with the others: index them again, as
        // they are now, so that check and the next run see what they hold.
        syncIndexesInStep(source);
      }
      seconds.put("apply", elapsed(t));
    }
    if (options.apply() && window.isAll() || options.apply() && chosen.sinceRun() > 0) {
      // Every record indexed up to syncSeqReached has now been examined by an applied run (a time
      // window examines only part of them: no watermark).
      watermark.record(runId, index.indexId(), syncSeqReached);
    }
    // Saved under the generations they now match (an applied run saved them after its deletes, or
    // threw); a crash before this line only costs a rebuild.
    if (!options.apply()) {
      saveFilter(prefilter, index);
      saveFilter(nearFilter, nearIndex);
    }
    seconds.put("total", elapsed(start));
    long examined = options.exact() ? exact.recordsExamined() : nearStats.examined();
    RunSummary summary = new RunSummary(runId, options.method(), options.apply(), sync.tableRows(),
        examined, sync.added(), sync.changed(), sync.deleted(), exact.groups(),
        plan.count(DeletionPlan.Rule.EXACT) - skippedExact, plan.count(DeletionPlan.Rule.NEAR) - skippedNear,
        exact.lookups(), exact.lookupsSkipped(), resumed, skippedExact + skippedNear, decidedAgain, seconds,
        exact.samples(),
        prefilter == null ? null : new RunSummary.PrefilterStats(prefilter.lookups(), prefilter.skipped(),
            exact.lookupsAlone(), prefilter.memoryBytes(), prefilter.saturated(), nearFilterStats(nearFilter, near)),
        nearStats, chosen.description(), chosen.sinceRun());
    return new Outcome(summary, plan);
  }

  /** The window of a run, how to describe it, and the applied run whose watermark it starts from (0: none). */
  private record ChosenWindow(Window window, String description, long sinceRun) {}

  /**
   * The records the passes examine. A time window (--since/--until) as given; otherwise, when the
   * options ask for it, the records indexed (added or changed) since the last applied run of this table
   * with this index covering the run's passes, against the whole index; all records without such a
   * run (a first run, another or rebuilt index, a new near index) or when not incremental (--full).
   * Rows an applied run planned but did not move were dropped from the index with the rest of its plan,
   * so the next sync indexes them again with a new sync number: they are examined again.
   */
  private ChosenWindow chooseWindow(Options options, RunWatermark watermark, boolean nearIsNew) {
    if (!options.fromWatermark()) {
      if (options.since() == null && options.until() == null) {
        return new ChosenWindow(Window.ALL, "all records" + (options.incremental() ? "" : " (--full)"), 0);
      }
      return new ChosenWindow(options.window(), "records with time " + (options.since() == null ? ""
          : "from " + options.since().toString().replace('T', ' ') + " ") + (options.until() == null ? ""
          : "until " + options.until().toString().replace('T', ' ')), 0);
    }
    Optional<RunWatermark.Mark> mark = Optional.empty();
    Optional<RunWatermark.Mark> exactMark = options.exact()
        ? watermark.last(index.indexId(), List.of("exact", "both")) : Optional.empty();
    Optional<RunWatermark.Mark> nearMark = options.near()
        ? watermark.last(index.indexId(), List.of("near", "both")) : Optional.empty();
    if (options.exact() && options.near()) {
      // Both passes: from the older of the two watermarks, so each pass sees all it has not seen.
      if (exactMark.isPresent() && nearMark.isPresent()) {
        mark = exactMark.get().syncSeq() <= nearMark.get().syncSeq() ? exactMark : nearMark;
      }
    } else {
      mark = options.exact() ? exactMark : nearMark;
    }
    if (mark.isEmpty()) {
      return new ChosenWindow(Window.ALL, "all records (no earlier applied " + options.method()
          + " run with this index)", 0);
    }
    if (nearIsNew) {
      return new ChosenWindow(Window.ALL, "all records (the near index is new)", 0);
    }
    long seq = mark.get().syncSeq();
    try (DirectoryReader reader = index.openReader()) {
      return new ChosenWindow(Window.ofIds(FingerprintIndex.liveIdsIndexedAfter(reader, seq)),
          "records indexed since run " + mark.get().runId(), mark.get().runId());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * The near pass's side of the prefilter. The pass does not ask the near filter: it reads every key's
   * document frequency from the term dictionary once ({@code KeyFrequencies}), which is the exact form
   * of the same filter (a count per key with no false positives), so a Bloom probe could only repeat
   * an answer the pass already has. {@code skipped} counts the keys that map proved held by the record
   * alone (the lookups the filter would skip); the filter itself is kept in step for {@code check}.
   */
  private static RunSummary.NearPrefilterStats nearFilterStats(NearKeyFilter nearFilter, NearPass.Result near) {
    if (nearFilter == null) {
      return null;
    }
    return new RunSummary.NearPrefilterStats(near == null ? 0 : near.lookups(), near == null ? 0 : near.keysAlone(),
        nearFilter.keys(), nearFilter.memoryBytes(), nearFilter.saturated());
  }

  /** The filter of {@code kind} for the index at its current generation (loaded or rebuilt); null when disabled. */
  private <F extends IndexKeyFilter> F openFilter(IndexKeyFilter.Kind<F> kind, FingerprintIndex keyIndex) {
    if (!prefilterSettings.enabled()) {
      return null;
    }
    try (DirectoryReader reader = keyIndex.openReader()) {
      return kind.openOrRebuild(filterDir(), keyIndex.commitGeneration(), reader,
          prefilterSettings.countersPerKey(), prefilterSettings.hashes(), notes);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private void saveFilter(IndexKeyFilter filter, FingerprintIndex keyIndex) {
    if (filter != null) {
      filter.save(filterDir(), keyIndex.commitGeneration());
    }
  }

  /** Where both filters are saved: {@code <index.dir>/prefilter}. */
  private java.nio.file.Path filterDir() {
    return index.path().resolve(FilterFile.DIR);
  }

  /**
   * Runs {@code sync} on {@code keyIndex} and keeps {@code filter} in step with it instead of
   * rebuilding it: the keys of the records the sync took out (rows gone, and the old documents of
   * edited rows) are taken out, those of the records it indexed put in. The sync says which they are,
   * so the ids of the two readers need not be compared.
   */
  private static IndexSync.Result syncInStep(FingerprintIndex keyIndex, IndexKeyFilter filter,
      java.util.function.Supplier<IndexSync.Result> sync) {
    if (filter == null) {
      return sync.get();
    }
    try (DirectoryReader before = keyIndex.openReader()) {
      IndexSync.Result result = sync.get();
      try (DirectoryReader after = keyIndex.openReader()) {
        filter.follow(before, after, result.leftIds(), result.cameIds());
      }
      return result;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Deletes the records with these ids from {@code keyIndex}, commits, and takes their keys out of {@code filter}. */
  private static void deleteInStep(FingerprintIndex keyIndex, IndexKeyFilter filter, long[] idsSorted) {
    try (DirectoryReader before = filter == null ? null : keyIndex.openReader()) {
      keyIndex.deleteIds(idsSorted, 0, idsSorted.length);
      keyIndex.commit();
      if (filter != null) {
        try (DirectoryReader after = keyIndex.openReader()) {
          filter.followDeletes(before, after, idsSorted);
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static double elapsed(long startNanos) {
    return elapsed(startNanos, System.nanoTime());
  }

  private static double elapsed(long startNanos, long endNanos) {
    return Math.round((endNanos - startNanos) / 1e6) / 1e3;
  }
}
