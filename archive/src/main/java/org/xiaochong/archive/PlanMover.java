package org.xiaochong.archive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.LongConsumer;
import org.xiaochong.archive.ApplyWorkers.PlanWritten;
import org.xiaochong.concurrent.ParallelTasks;
import org.xiaochong.source.Database;

/**
 * Moves the rows a run's plan removes from the source table into {@code <table>_removed}, batch by
 * batch, on {@link ApplyWorkers#PARALLEL_BATCHES} workers, each batch in one transaction ({@link
 * BatchMover}), as gently as its {@link ApplySettings} say: batch size by rows and bytes, a short
 * lock wait, retries with backoff, a pause between batches.
 *
 * <p>The command's table lock is checked before each batch ({@link #withLockCheck}): a run whose
 * lock was lost (its session killed, a proxy's idle timeout, a failover) stops before the next
 * batch, so it never moves rows beside a second run; it stays {@code applying} and the next run
 * finishes it.
 *
 * <p>Nothing is lost: a row moves only after the plan row that names it is committed (the plan is
 * written first, or, in {@link #writePlanAndApply}, a batch ahead of the moves). A crash between
 * batches leaves the run in status {@code applying}; {@link #resumeInterrupted} finishes it (replay
 * is idempotent: a batch only moves rows still in the source).
 *
 * <p>Thread-safe (state lives in the database).
 */
public final class PlanMover {
  /**
   * Plan rows per transaction of the plan writer and, by default, of the apply ({@link
   * ApplySettings}).
   */
  static final int BATCH = 10_000;

  private final ArchiveTables tables;
  private final PairCheck.Factory pairChecks;
  private final PlanTable plans;
  private final PlanRows planRows;
  private final RunLog runLog;
  private final ReferencedRows referenced;
  private ApplySettings settings = ApplySettings.DEFAULTS;
  private Runnable lockCheck = () -> {};

  /**
   * A mover whose apply keeps a changed row only while it is still an exact copy of its kept row.
   */
  public PlanMover(ArchiveTables tables) {
    this(tables, PairCheck.Factory.EXACT_KEY_ONLY);
  }

  /**
   * @param pairChecks the methods' rules, to decide again on rows changed since the pass ({@link
   *     DecisionCheck})
   */
  public PlanMover(ArchiveTables tables, PairCheck.Factory pairChecks) {
    this(tables, pairChecks, ReferencedRows.NONE);
  }

  /**
   * @param referenced the foreign keys that reference the table, checked against the owner's choice
   *     ({@link ReferencedRows#check}): their child rows are re-pointed, or the rows they reference
   *     stay
   */
  public PlanMover(ArchiveTables tables, PairCheck.Factory pairChecks, ReferencedRows referenced) {
    this.referenced = referenced;
    this.tables = tables;
    this.pairChecks = pairChecks;
    Database database = tables.database();
    this.plans = new PlanTable(database);
    this.planRows = new PlanRows(tables);
    this.runLog = new RunLog(database, tables.spec().table());
  }

  /** Moves with these settings instead of {@link ApplySettings#DEFAULTS}. */
  public PlanMover withSettings(ApplySettings settings) {
    this.settings = settings;
    return this;
  }

  /**
   * Runs {@code lockCheck} before each batch: it throws when the command's table lock is lost,
   * which stops the apply there (the batches committed stay moved; the run stays {@code applying}).
   */
  public PlanMover withLockCheck(Runnable lockCheck) {
    this.lockCheck = lockCheck;
    return this;
  }

  /**
   * What {@link #writePlanAndApply} did.
   *
   * @param skipped planned rows left in place, by rule: they or their kept rows changed since the
   *     plan
   * @param referenced planned rows left in place, by rule: rows of other tables reference them
   *     ({@link ReferencedRows})
   * @param planWrittenNanos {@link System#nanoTime()} when the last plan row was committed
   */
  public record Applied(
      long rowsMoved,
      Map<String, Long> skipped,
      long decidedAgain,
      Map<String, Long> referenced,
      long planWrittenNanos) {
    /** Planned rows left in place because they changed, all rules. */
    public long skippedChanged() {
      return Moved.total(skipped);
    }

    /** Planned rows left in place because child rows reference them, all rules. */
    public long keptReferenced() {
      return Moved.total(referenced);
    }
  }

  /**
   * Rows moved by some batches, planned rows left in place (by rule) because what they or their
   * kept row hold now no longer makes them duplicates ({@link DecisionCheck}), and planned rows
   * decided again because they or their kept row changed since the pass decided (moved or left in
   * place).
   */
  public record Moved(
      long rows, Map<String, Long> skipped, long decidedAgain, Map<String, Long> referenced) {
    static final Moved NONE = new Moved(0, Map.of(), 0, Map.of());

    public Moved {
      skipped = Map.copyOf(skipped);
      referenced = Map.copyOf(referenced);
    }

    /** No row left in place because of references. */
    public Moved(long rows, Map<String, Long> skipped, long decidedAgain) {
      this(rows, skipped, decidedAgain, Map.of());
    }

    /** Planned rows left in place because they changed, all rules. */
    public long skippedChanged() {
      return total(skipped);
    }

    /** Planned rows left in place because child rows reference them, all rules. */
    public long keptReferenced() {
      return total(referenced);
    }

    static long total(Map<String, Long> counts) {
      return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    Moved plus(Moved other) {
      return new Moved(
          rows + other.rows,
          sum(skipped, other.skipped),
          decidedAgain + other.decidedAgain,
          sum(referenced, other.referenced));
    }

    private static Map<String, Long> sum(Map<String, Long> a, Map<String, Long> b) {
      Map<String, Long> sum = new TreeMap<>(a);
      b.forEach((rule, n) -> sum.merge(rule, n, Long::sum));
      return sum;
    }

    static Moved sum(List<Moved> parts) {
      return parts.stream().reduce(NONE, Moved::plus);
    }
  }

  /**
   * Reads the foreign keys and DELETE triggers of the table again ({@link
   * ReferencedRows#requireUnchanged}): call it right before the first batch of a new run.
   */
  public void requireReferencesUnchanged() {
    referenced.requireUnchanged(tables.database(), tables.spec());
  }

  /**
   * Writes the plan of a run and moves its rows, the two overlapped: the plan goes in, in seq
   * order, a batch per transaction on one connection, and the apply workers take each batch as soon
   * as its plan rows are committed. No row moves before the plan row that names it is committed, so
   * a failure leaves the plan rows written so far (each a decision that stands on its own) and
   * whole batches moved or not, which {@link #resumeInterrupted} finishes. Writing the plan is a
   * fifth of the work of moving the rows, so the writer stays ahead, and the server works on both
   * while the client formats the plan (bench/RESULTS.md).
   *
   * @param progress called with the plan rows handled per batch
   */
  public Applied writePlanAndApply(long runId, DeletionPlan plan, LongConsumer progress) {
    int[] order = plan.orderByRemovedId();
    PlanWritten written = new PlanWritten();
    long[] planWrittenNanos = {System.nanoTime()};
    Callable<Moved> writer =
        () -> {
          try {
            plans.write(runId, plan, order, written::committed);
            planWrittenNanos[0] = System.nanoTime();
            return Moved.NONE;
          } finally {
            written.finished(); // a worker waiting for rows that will never come stops
          }
        };
    List<Callable<Moved>> tasks = new ArrayList<>();
    tasks.add(writer);
    tasks.addAll(
        workers()
            .forRun(runId, order.length, plan.rules(), written::awaitCommitted, false, progress));
    Moved moved =
        Moved.sum(
            ParallelTasks.runAll(tasks, tasks.size(), "xiaochong-apply", "applying run " + runId));
    followMarks(runId);
    return new Applied(
        moved.rows(),
        moved.skipped(),
        moved.decidedAgain(),
        moved.referenced(),
        planWrittenNanos[0]);
  }

  /**
   * Moves the planned rows of a run (its plan already written, some of its batches maybe moved by
   * an interrupted apply) into the archive, batch by batch.
   *
   * @param progress called with the plan rows handled per batch
   */
  public Moved apply(long runId, LongConsumer progress) {
    Moved apart = new Moved(0, planRows.skipApart(runId), 0);
    int planSize = plans.size(runId);
    List<Callable<Moved>> workers =
        workers().forRun(runId, planSize, plans.rules(runId), seqEnd -> true, true, progress);
    Moved moved =
        apart.plus(
            Moved.sum(
                ParallelTasks.runAll(
                    workers, workers.size(), "xiaochong-apply", "applying run " + runId)));
    followMarks(runId);
    return moved;
  }

  /**
   * After a run's rows moved: the rows it kept for rows of a marked group join the group ({@link
   * ApartTable#followRemovals}), and the marks of rows gone for good are pruned ({@link
   * ApartTable#prune}). Both repeat harmlessly when a resume applies the run again.
   */
  private void followMarks(long runId) {
    ApartTable.followRemovals(tables.database(), tables.spec(), runId);
    ApartTable.prune(tables.database(), tables.spec());
  }

  /** What a planned row's apply did, as {@code decisions.jsonl} names it. */
  public enum Outcome {
    /** Archived and deleted. */
    MOVED,
    /** Left in place: it or its kept row changed since the plan and are no longer duplicates. */
    KEPT_CHANGED,
    /** Left in place: rows of other tables reference it ({@link ReferencedRows}). */
    KEPT_REFERENCED,
    /** Not moved: it or its kept row had left the table when its batch ran. */
    GONE;

    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * The planned rows of a run that did not move, by removed id, read from its plan (before it is
   * dropped). The rows left in place are marked there; the rows gone are looked up in the archive
   * only when {@code anyGone} (the moved count falls short of the plan's rows not left in place).
   */
  public Map<Long, Outcome> notMoved(long runId, boolean anyGone) {
    return planRows.notMoved(runId, anyGone);
  }

  /** Rows a run has archived so far. */
  public long archivedRows(long runId) {
    return planRows.archivedRows(runId);
  }

  /** The interrupted runs {@link #resumeInterrupted} finished, and the rows it moved. */
  public record Resumed(List<Long> runs, long rows) {}

  /**
   * Finishes runs of this table left in status {@code applying} by a crash. Each batch is decided
   * again on what its rows hold now, as in a first apply.
   *
   * @throws RowsMovedException when an error stops it after rows moved
   */
  public Resumed resumeInterrupted() {
    List<Long> runs = runLog.interrupted();
    long rows = 0;
    for (long runId : runs) {
      long before = archivedRows(runId);
      Moved moved;
      try {
        moved = apply(runId, n -> {});
      } catch (RuntimeException e) {
        long now = rows + archivedRows(runId) - before;
        if (now == 0) {
          throw e;
        }
        throw new RowsMovedException(
            String.format("finishing interrupted run %d moved %,d rows", runId, now), now, e);
      }
      rows += moved.rows();
      runLog.markResumed(
          runId,
          planRows.archivedByRule(runId),
          "resumed after an interruption; "
              + moved.rows()
              + " rows moved on resume, "
              + moved.skippedChanged()
              + " left because they changed or were re-inserted after their archiving"
              + (moved.keptReferenced() == 0
                  ? ""
                  : ", " + moved.keptReferenced() + " left because other tables reference them"));
    }
    return new Resumed(runs, rows);
  }

  private ApplyWorkers workers() {
    return new ApplyWorkers(tables, pairChecks, referenced, settings, lockCheck);
  }
}
