package org.xiaochong.run;

import java.time.LocalDateTime;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.archive.PlanMover;
import org.xiaochong.archive.PlanTable;
import org.xiaochong.archive.RunLog;
import org.xiaochong.prefilter.ExactKeyFilter;
import org.xiaochong.progress.Progress;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;

/**
 * The apply stage of a run: logs the run, writes the plan and moves its rows ({@link PlanMover}),
 * records the removals per method, then drops the removed ids from the record index and every own
 * index, keeping their filters in step. Not thread-safe: one instance per run.
 */
final class PlanApply {
  /** What the apply did; {@link #NOT_APPLIED} for a dry run. */
  record Result(long runId, long skippedChanged, long decidedAgain) {}

  static final Result NOT_APPLIED = new Result(0, 0, 0);

  private final Database database;
  private final RunLog runLog;
  private final PlanMover mover;
  private final RecordIndex records;
  private final ExactKeyFilter recordFilter;
  private final MethodRuns runs;
  private final Progress progress;

  PlanApply(Database database, RunLog runLog, PlanMover mover, RecordIndex records, ExactKeyFilter recordFilter,
      MethodRuns runs, Progress progress) {
    this.database = database;
    this.runLog = runLog;
    this.mover = mover;
    this.records = records;
    this.recordFilter = recordFilter;
    this.runs = runs;
    this.progress = progress;
  }

  /**
   * Applies {@code plan}. On return {@code removed} (planned removals per method) holds the rows moved
   * per method, and {@code seconds} the stages {@code plan} and {@code apply}.
   */
  Result apply(String method, String configDigest, LocalDateTime since, LocalDateTime until, long tableRows,
      DeletionPlan plan, Map<String, Long> removed, RecordSource source, Map<String, Double> seconds) {
    long t = System.nanoTime();
    long runId = runLog.startRun(method, true, configDigest, since, until);
    PlanMover.Applied applied;
    try {
      // The plan is written while the first batches move (see writePlanAndApply): "plan" is the
      // time until it was all written, "apply" the rest.
      try (Progress.Stage stage = progress.start("apply", plan.size())) {
        applied = mover.writePlanAndApply(runId, plan, stage);
      }
      seconds.put("plan", DedupRunner.elapsed(t, applied.planWrittenNanos()));
      t = applied.planWrittenNanos();
      if (applied.skippedChanged() > 0) {
        // Read before the plan rows are dropped below.
        runLog.skippedByRule(runId).forEach((rule, skipped) -> removed.computeIfPresent(rule, (r, n) -> n - skipped));
      }
      runLog.finishRun(runId, "applied", tableRows, removed, applied.skippedChanged() == 0 ? null
          : applied.skippedChanged() + " planned rows left in place: they or their kept rows changed since the plan");
    } catch (RuntimeException e) {
      // Batches already committed stay archived (nothing is lost); the run stays 'applying' and the
      // next run finishes it.
      try {
        runLog.finishRun(runId, "applying", tableRows, Map.of(), "interrupted: " + Database.rootMessage(e));
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    // The rows are moved and the run is recorded; what is left is cleanup. The server deletes the
    // plan rows (~0.4 s for 261k) while this thread drops the ids from the indexes.
    CompletableFuture<Void> planDropped = CompletableFuture.runAsync(() -> new PlanTable(database).drop(runId));
    RuntimeException failure = null;
    try {
      long[] removedIds = plan.removedIdsSorted();
      records.delete(recordFilter, removedIds);
      runs.delete(removedIds);
      // Saved here, under the generations the deletes made, while the server still drops the plan.
      records.save(recordFilter);
      runs.save();
    } catch (RuntimeException e) {
      failure = e;
    }
    try {
      planDropped.join();
    } catch (CompletionException e) {
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
    if (applied.skippedChanged() > 0) {
      // The rows left in place were dropped from the indexes with the others: index them again, as
      // they are now, so that check and the next run see what they hold.
      RecordIndex.Synced synced = records.syncWithFilter(source, records.openFilter());
      records.save(synced.filter());
      runs.syncAndSave(source);
    }
    seconds.put("apply", DedupRunner.elapsed(t));
    return new Result(runId, applied.skippedChanged(), applied.decidedAgain());
  }
}
