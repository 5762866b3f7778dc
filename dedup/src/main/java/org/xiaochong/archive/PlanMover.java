package org.xiaochong.archive;

import static org.xiaochong.archive.ArchiveTables.now;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import org.xiaochong.concurrent.ParallelTasks;
import org.xiaochong.source.Database;

/**
 * Moves the rows a run's plan removes from the source table into {@code <table>_removed}, batch by
 * batch, on {@link #PARALLEL_BATCHES} workers, each batch in one transaction ({@link BatchMover}),
 * as gently as its {@link ApplySettings} say: batch size by rows and bytes, a short lock wait,
 * retries with backoff, a pause between batches.
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

  /** Batches applied at once, on their own connections. */
  static final int PARALLEL_BATCHES = 2;

  private final ArchiveTables tables;
  private final PairCheck.Factory pairChecks;
  private final Database database;
  private final PlanTable plans;
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
    this.database = tables.database();
    this.plans = new PlanTable(database);
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
        applyWorkers(runId, order.length, plan.rules(), written::awaitCommitted, false, progress));
    Moved moved =
        Moved.sum(
            ParallelTasks.runAll(tasks, tasks.size(), "xiaochong-apply", "applying run " + runId));
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
    Moved apart = new Moved(0, skipApart(runId), 0);
    int planSize = plans.size(runId);
    List<Callable<Moved>> workers =
        applyWorkers(runId, planSize, plans.rules(runId), seqEnd -> true, true, progress);
    return apart.plus(
        Moved.sum(
            ParallelTasks.runAll(
                workers, workers.size(), "xiaochong-apply", "applying run " + runId)));
  }

  /**
   * Marks skipped, before any of its rows move, every planned removal of a written plan whose
   * removed and kept rows are now marked apart ({@code dedup_apart}): a pair marked after the plan
   * was written (an interrupted run resumed after {@code dedup apart add}) is left in place like a
   * changed row. Returns them by rule. A fresh plan needs no such step: its passes read the marks.
   */
  private Map<String, Long> skipApart(long runId) {
    String table = tables.spec().table();
    return database
        .jdbi()
        .inTransaction(
            h -> {
              PlanDao plans = h.attach(PlanDao.class);
              Map<String, Long> byRule = new TreeMap<>(plans.markedApartByRule(table, runId));
              if (!byRule.isEmpty()) {
                plans.skipMarkedApart(table, runId);
              }
              return byRule;
            });
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
    Map<Long, Outcome> outcomes = new java.util.HashMap<>();
    database
        .jdbi()
        .useHandle(
            h -> {
              h.attach(PlanDao.class)
                  .leftInPlace(runId)
                  .forEach(
                      (removedId, skipped) ->
                          outcomes.put(
                              removedId,
                              skipped == ReferencedRows.REFERENCED
                                  ? Outcome.KEPT_REFERENCED
                                  : Outcome.KEPT_CHANGED));
              if (anyGone) {
                String id = ArchiveTables.q(tables.spec().idColumn());
                h.createQuery(
                        "SELECT p.removed_id FROM dedup_plan p LEFT JOIN "
                            + ArchiveTables.q(tables.spec().removedTable())
                            + " a ON a.dedup_run_id = p.run_id AND a."
                            + id
                            + " = p.removed_id WHERE p.run_id = ? AND p.skipped = 0"
                            + " AND a."
                            + id
                            + " IS NULL")
                    .bind(0, runId)
                    .mapTo(Long.class)
                    .forEach(removedId -> outcomes.put(removedId, Outcome.GONE));
              }
            });
    return outcomes;
  }

  /** Rows a run has archived so far. */
  public long archivedRows(long runId) {
    return database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COUNT(*) FROM "
                            + ArchiveTables.q(tables.spec().removedTable())
                            + " WHERE dedup_run_id = ?")
                    .bind(0, runId)
                    .mapTo(Long.class)
                    .one());
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

  /**
   * The source's average row length as the server estimates it ({@code information_schema}), 0 if
   * unknown.
   */
  private long averageRowBytes() {
    return averageRowBytes(database, tables.spec().table());
  }

  static long averageRowBytes(Database database, String table) {
    return database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COALESCE(avg_row_length, 0) FROM"
                            + " information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?")
                    .bind(0, table)
                    .mapTo(Long.class)
                    .findOne()
                    .orElse(0L));
  }

  /** How far the plan writer has committed, for the apply workers to wait on. */
  private static final class PlanWritten {
    private int committed;
    private boolean finished;

    synchronized void committed(int seqEnd) {
      committed = seqEnd;
      notifyAll();
    }

    synchronized void finished() {
      finished = true;
      notifyAll();
    }

    /**
     * Waits until plan rows [0, seqEnd) are committed; false if the writer stopped short of them.
     */
    synchronized boolean awaitCommitted(int seqEnd) throws InterruptedException {
      while (committed < seqEnd && !finished) {
        wait();
      }
      return committed >= seqEnd;
    }
  }

  /** Waits until the plan rows before a seq are committed: false when they never will be. */
  @FunctionalInterface
  private interface PlanGate {
    boolean awaitCommitted(int seqEnd) throws InterruptedException;
  }

  /**
   * The apply workers: each takes the next batch of plan rows [0, planSize) once {@code planned}
   * says its rows are committed, and moves it.
   *
   * @param planRules the rules of the plan's removals (see {@link DecisionCheck})
   * @param resuming whether an interrupted apply of the run may have moved some of its rows
   */
  private List<Callable<Moved>> applyWorkers(
      long runId,
      int planSize,
      Set<String> planRules,
      PlanGate planned,
      boolean resuming,
      LongConsumer progress) {
    BatchSql sql = BatchSql.of(tables, referenced);
    LocalDateTime removedAt = now();
    int batch = settings.rowsPerBatch(averageRowBytes());
    // Batches are disjoint id ranges (the plan is in removed-id order) and never remove a kept row,
    // so
    // two run at once, each in its own transaction, and the server uses both cores. READ COMMITTED:
    // no gap locks, so the batches do not block each other. Each worker keeps its connection for
    // all
    // the batches it takes (a connection costs a login and Connector/J's setup queries).
    AtomicInteger nextBatch = new AtomicInteger();
    AtomicBoolean failed = new AtomicBoolean(); // a failed batch stops the other worker too
    List<Callable<Moved>> workers = new ArrayList<>();
    for (int w = 0; w < PARALLEL_BATCHES; w++) {
      workers.add(
          () ->
              database
                  .jdbi()
                  .withHandle(
                      handle -> {
                        Moved moved = Moved.NONE;
                        // The apply gives way to the site: it waits seconds for a row lock, then
                        // retries later.
                        handle.execute(
                            "SET SESSION innodb_lock_wait_timeout = " + settings.lockWaitSeconds());
                        try (DecisionCheck check =
                            new DecisionCheck(tables.spec(), pairChecks, planRules)) {
                          for (int lo = nextBatch.getAndIncrement() * batch;
                              lo < planSize && !failed.get();
                              lo = nextBatch.getAndIncrement() * batch) {
                            int to = Math.min(planSize, lo + batch);
                            try {
                              if (!planned.awaitCommitted(to)) {
                                break; // the plan writer failed; it reports why
                              }
                              lockCheck.run();
                              moved =
                                  moved.plus(
                                      BatchMover.move(
                                          handle.getConnection(),
                                          runId,
                                          lo,
                                          to,
                                          sql,
                                          check,
                                          removedAt,
                                          resuming,
                                          settings));
                              if (settings.pauseMillis() > 0 && to < planSize) {
                                Thread.sleep(settings.pauseMillis());
                              }
                            } catch (InterruptedException e) {
                              Thread.currentThread().interrupt();
                              failed.set(true);
                              throw new IllegalStateException(
                                  "interrupted while applying run " + runId, e);
                            } catch (RuntimeException e) {
                              failed.set(true);
                              throw e;
                            }
                            progress.accept(to - lo);
                          }
                        }
                        return moved;
                      }));
    }
    return workers;
  }
}
