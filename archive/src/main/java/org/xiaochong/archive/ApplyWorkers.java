package org.xiaochong.archive;

import static org.xiaochong.archive.ArchiveTables.now;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import org.xiaochong.archive.PlanMover.Moved;
import org.xiaochong.source.Database;

/**
 * The workers of one apply ({@link PlanMover}): {@link #PARALLEL_BATCHES} of them, each on its own
 * connection, take the next batch of plan rows once its plan rows are committed and move it ({@link
 * BatchMover}), checking the command's table lock before each batch and pausing between batches as
 * the {@link ApplySettings} say. A failed batch stops the other workers too.
 *
 * <p>The workers of one run share only the next batch's number and the failure flag (atomics).
 */
final class ApplyWorkers {
  /** Batches applied at once, on their own connections. */
  static final int PARALLEL_BATCHES = 2;

  private final ArchiveTables tables;
  private final PairCheck.Factory pairChecks;
  private final ReferencedRows referenced;
  private final ApplySettings settings;
  private final Runnable lockCheck;

  ApplyWorkers(
      ArchiveTables tables,
      PairCheck.Factory pairChecks,
      ReferencedRows referenced,
      ApplySettings settings,
      Runnable lockCheck) {
    this.tables = tables;
    this.pairChecks = pairChecks;
    this.referenced = referenced;
    this.settings = settings;
    this.lockCheck = lockCheck;
  }

  /** How far the plan writer has committed, for the apply workers to wait on. */
  static final class PlanWritten {
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
  interface PlanGate {
    boolean awaitCommitted(int seqEnd) throws InterruptedException;
  }

  /**
   * The apply workers: each takes the next batch of plan rows [0, planSize) once {@code planned}
   * says its rows are committed, and moves it.
   *
   * @param planRules the rules of the plan's removals (see {@link DecisionCheck})
   * @param resuming whether an interrupted apply of the run may have moved some of its rows
   */
  List<Callable<Moved>> forRun(
      long runId,
      int planSize,
      Set<String> planRules,
      PlanGate planned,
      boolean resuming,
      LongConsumer progress) {
    Database database = tables.database();
    BatchSql sql = BatchSql.of(tables, referenced);
    LocalDateTime removedAt = now();
    int batch = settings.rowsPerBatch(AverageRowBytes.of(database, tables.spec().table()));
    // Batches are disjoint id ranges (the plan is in removed-id order) and never remove a kept row,
    // so two run at once, each in its own transaction, and the server uses both cores. READ
    // COMMITTED: no gap locks, so the batches do not block each other. Each worker keeps its
    // connection for all the batches it takes (a connection costs a login and Connector/J's setup
    // queries).
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
