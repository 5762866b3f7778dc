package org.xiaochong.run;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.archive.PlanMover;
import org.xiaochong.archive.PlanTable;
import org.xiaochong.archive.RowsMovedException;
import org.xiaochong.archive.RunLog;
import org.xiaochong.prefilter.RecordKeyFilter;
import org.xiaochong.progress.Progress;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;

/**
 * The apply stage of a run: logs the run, writes the plan and moves its rows ({@link PlanMover}),
 * records the removals per method, then drops the removed ids from the record index and every own
 * index, keeping their filters in step. A run without a local index (the Spark job, {@link
 * #withoutIndex}) does the same but the last step: the next run's index sync drops the rows it
 * finds gone. Not thread-safe: one instance per run.
 */
public final class PlanApply {
  /**
   * What the apply did; {@link #NOT_APPLIED} for a dry run.
   *
   * @param counts per method: planned, moved and left in place (why)
   * @param notMoved the planned rows that did not move, by removed id
   */
  public record Result(
      long runId,
      long skippedChanged,
      long decidedAgain,
      Map<String, RunSummary.ApplyCounts> counts,
      Map<Long, PlanMover.Outcome> notMoved) {}

  public static final Result NOT_APPLIED = new Result(0, 0, 0, Map.of(), Map.of());

  private final Database database;
  private final RunLog runLog;
  private final PlanMover mover;
  private final RecordIndex records;
  private final RecordKeyFilter recordFilter;
  private final MethodRuns runs;
  private final Progress progress;

  PlanApply(
      Database database,
      RunLog runLog,
      PlanMover mover,
      RecordIndex records,
      RecordKeyFilter recordFilter,
      MethodRuns runs,
      Progress progress) {
    this.database = database;
    this.runLog = runLog;
    this.mover = mover;
    this.records = records;
    this.recordFilter = recordFilter;
    this.runs = runs;
    this.progress = progress;
  }

  /** The apply of a run that keeps no local index (records and own indexes): the Spark job. */
  public static PlanApply withoutIndex(
      Database database, RunLog runLog, PlanMover mover, Progress progress) {
    return new PlanApply(database, runLog, mover, null, null, null, progress);
  }

  /**
   * Applies {@code plan}. On return {@code removed} (planned removals per method) holds the rows
   * moved per method, and {@code clock} the stages {@code plan} and {@code apply}.
   */
  public Result apply(
      String method,
      String configDigest,
      LocalDateTime since,
      LocalDateTime until,
      long tableRows,
      DeletionPlan plan,
      Map<String, Long> removed,
      RecordSource source,
      StageClock clock) {
    long t = System.nanoTime();
    mover.requireReferencesUnchanged(); // a key or trigger added during the passes stops it here
    long runId = runLog.startRun(method, true, configDigest, since, until);
    PlanMover.Applied applied;
    Map<Long, PlanMover.Outcome> notMoved;
    Map<String, RunSummary.ApplyCounts> counts;
    try {
      // The plan is written while the first batches move (see writePlanAndApply): "plan" is the
      // time until it was all written, "apply" the rest.
      try (Progress.Stage stage = progress.start("apply", plan.size())) {
        applied = mover.writePlanAndApply(runId, plan, stage);
      }
      clock.ended("plan", t, applied.planWrittenNanos());
      t = applied.planWrittenNanos();
      // Read before the plan rows are dropped below; only when some planned rows did not move.
      long leftInPlace = applied.skippedChanged() + applied.keptReferenced();
      boolean anyGone = applied.rowsMoved() + leftInPlace < plan.size();
      notMoved = leftInPlace == 0 && !anyGone ? Map.of() : mover.notMoved(runId, anyGone);
      counts = counts(plan, notMoved);
      counts.forEach((rule, c) -> removed.computeIfPresent(rule, (r, n) -> c.moved()));
      runLog.finishRun(runId, "applied", tableRows, removed, message(counts));
    } catch (RuntimeException e) {
      // Batches already committed stay archived (nothing is lost); the run stays 'applying' and the
      // next run finishes it.
      try {
        runLog.finishRun(
            runId, "applying", tableRows, Map.of(), "interrupted: " + Database.rootMessage(e));
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      long moved;
      try {
        moved = mover.archivedRows(runId);
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
        throw e;
      }
      if (moved > 0) {
        throw new RowsMovedException(
            String.format(
                "run %d archived and deleted %,d rows (the next run --apply" + " finishes it)",
                runId, moved),
            moved,
            e);
      }
      throw e;
    }
    // The rows are moved and the run is recorded; what is left is cleanup. The server deletes the
    // plan rows (~0.4 s for 261k) while this thread drops the ids from the indexes.
    CompletableFuture<Void> planDropped =
        CompletableFuture.runAsync(() -> new PlanTable(database).drop(runId));
    RuntimeException failure = null;
    try {
      if (records != null) {
        long[] removedIds = plan.removedIdsSorted();
        records.delete(recordFilter, removedIds);
        runs.delete(removedIds);
        // Saved here, under the generations the deletes made, while the server still drops the
        // plan.
        records.save(recordFilter);
        runs.save();
      }
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
      throw new RowsMovedException(
          String.format(
              "run %d archived and deleted %,d rows (recorded as applied; the"
                  + " next run brings the indexes up to date)",
              runId, applied.rowsMoved()),
          applied.rowsMoved(),
          failure);
    }
    long gone = counts.values().stream().mapToLong(RunSummary.ApplyCounts::gone).sum();
    if (records != null && applied.skippedChanged() + applied.keptReferenced() + gone > 0) {
      // The rows left in place were dropped from the indexes with the others: index them again, as
      // they are now, so that check and the next run see what they hold. A gone row whose kept row
      // left is still in the table too.
      RecordIndex.Synced synced = records.syncWithFilter(source, records.openFilter());
      records.save(synced.filter());
      runs.syncAndSave(source);
    }
    clock.ended("apply", t);
    return new Result(runId, applied.skippedChanged(), applied.decidedAgain(), counts, notMoved);
  }

  /** Per rule (method): planned rows, and what became of them. */
  static Map<String, RunSummary.ApplyCounts> counts(
      DeletionPlan plan, Map<Long, PlanMover.Outcome> notMoved) {
    Map<String, long[]> byRule = new LinkedHashMap<>(); // planned, then one count per outcome
    int outcomes = PlanMover.Outcome.values().length;
    for (int i = 0; i < plan.size(); i++) {
      long[] n = byRule.computeIfAbsent(plan.rule(i).label, r -> new long[1 + outcomes]);
      n[0]++;
      n[1 + notMoved.getOrDefault(plan.removedId(i), PlanMover.Outcome.MOVED).ordinal()]++;
    }
    Map<String, RunSummary.ApplyCounts> counts = new LinkedHashMap<>();
    byRule.forEach(
        (rule, n) ->
            counts.put(
                rule,
                new RunSummary.ApplyCounts(
                    n[0],
                    n[1 + PlanMover.Outcome.MOVED.ordinal()],
                    n[1 + PlanMover.Outcome.KEPT_CHANGED.ordinal()],
                    n[1 + PlanMover.Outcome.KEPT_REFERENCED.ordinal()],
                    n[1 + PlanMover.Outcome.GONE.ordinal()])));
    return counts;
  }

  /** The run log's message: the planned rows that did not move, and why; null when all moved. */
  private static String message(Map<String, RunSummary.ApplyCounts> counts) {
    long changed = counts.values().stream().mapToLong(RunSummary.ApplyCounts::keptChanged).sum();
    long referenced =
        counts.values().stream().mapToLong(RunSummary.ApplyCounts::keptReferenced).sum();
    long gone = counts.values().stream().mapToLong(RunSummary.ApplyCounts::gone).sum();
    List<String> parts = new ArrayList<>();
    if (changed > 0) {
      parts.add(
          changed + " planned rows left in place: they or their kept rows changed since the plan");
    }
    if (referenced > 0) {
      parts.add(referenced + " planned rows left in place: rows of other tables reference them");
    }
    if (gone > 0) {
      parts.add(gone + " planned rows not moved: they or their kept rows had left the table");
    }
    return parts.isEmpty() ? null : String.join("; ", parts);
  }
}
