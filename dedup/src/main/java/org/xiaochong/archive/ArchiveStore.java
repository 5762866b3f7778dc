package org.xiaochong.archive;

import com.mysql.cj.jdbc.JdbcStatement;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.Locale;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.xiaochong.fingerprint.NearConfig;
import org.xiaochong.policy.KeepLatestPolicy;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * Moves removed rows into {@code <table>_removed} and back, and keeps the run log ({@code
 * dedup_run}) and the plans ({@code dedup_plan}).
 *
 * <p>Nothing is lost: a row moves only after the plan row that names it is committed (the plan is
 * written first, or, in {@link #writePlanAndApply}, a batch ahead of the moves). Each batch copies
 * rows into the archive and deletes them from the source in one transaction, and the two row counts
 * must agree or the batch is rolled back. A row is moved only while its kept record is still in the table, so a row is
 * never removed in favour of a record that someone else deleted meanwhile. A crash between batches
 * leaves the run in status {@code applying}; {@link #resumeInterrupted} finishes it (replay is
 * idempotent: a batch only moves rows still in the source).
 *
 * <p>Thread-safe (state lives in the database).
 */
public final class ArchiveStore {
  /** Plan rows per transaction: large enough to amortize commits, small enough to keep locks short. */
  static final int BATCH = 10_000;
  /** Batches applied at once, on their own connections. */
  static final int PARALLEL_BATCHES = 2;
  /** Ids per query when a batch reads changed rows in full. */
  private static final int READ_IDS = 1000;

  private final Database database;
  private final TableSpec spec;
  private final NearConfig nearConfig;
  private List<String> sourceColumns;
  /** The source's columns a restore writes: all but generated ones, whose values the server computes. */
  private List<String> writableColumns;

  /** An archive whose apply re-checks near removals with the default near settings. */
  public ArchiveStore(Database database, TableSpec spec) {
    this(database, spec, NearConfig.defaults());
  }

  /** @param nearConfig the near rule's settings, for re-checking near removals before they move */
  public ArchiveStore(Database database, TableSpec spec, NearConfig nearConfig) {
    this.database = database;
    this.spec = spec;
    this.nearConfig = nearConfig;
  }

  /**
   * Creates the bookkeeping tables and {@code <table>_removed} when missing, adds the plan's {@code
   * skipped} and row state columns to a plan table made by an older version, and checks that the archive can hold
   * every column of the source as it is now ({@link ArchiveColumns}): a column added, widened or
   * converted in the source since the archive was made stops the run here, before any row moves,
   * with the ALTER TABLE that fixes it.
   */
  public void ensureTables(List<String> sourceColumns) {
    this.sourceColumns = List.copyOf(sourceColumns);
    database.runScript("/sql/dedup.sql");
    String removed = spec.removedTable();
    database.jdbi().useHandle(handle -> {
      if (!ArchiveColumns.hasColumn(handle, "dedup_plan", "skipped")) {
        handle.execute("ALTER TABLE dedup_plan ADD COLUMN skipped BOOLEAN NOT NULL DEFAULT 0");
      }
      if (!ArchiveColumns.hasColumn(handle, "dedup_plan", "kept_crc")) {
        handle.execute("ALTER TABLE dedup_plan ADD COLUMN removed_time DATETIME(3) NULL,"
            + " ADD COLUMN removed_crc BIGINT NOT NULL DEFAULT -1, ADD COLUMN kept_time DATETIME(3) NULL,"
            + " ADD COLUMN kept_crc BIGINT NOT NULL DEFAULT -1");
      }
      boolean exists = !handle.createQuery(
              "SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?")
          .bind(0, removed).mapTo(Integer.class).list().isEmpty();
      if (!exists) {
        handle.execute("CREATE TABLE " + q(removed) + " ENGINE=InnoDB AS SELECT * FROM " + q(spec.table()) + " WHERE 1=0");
        handle.execute("ALTER TABLE " + q(removed)
            + " ADD COLUMN dedup_run_id BIGINT NOT NULL,"
            + " ADD COLUMN dedup_rule VARCHAR(16) NOT NULL,"
            + " ADD COLUMN dedup_kept_id BIGINT NOT NULL,"
            + " ADD COLUMN dedup_score DOUBLE NOT NULL,"
            + " ADD COLUMN dedup_removed_at DATETIME(3) NOT NULL,"
            + " ADD PRIMARY KEY (dedup_run_id, " + q(spec.idColumn()) + "),"
            + " ADD KEY (dedup_kept_id)");
      }
      ArchiveColumns columns = ArchiveColumns.read(handle, spec.table(), removed);
      columns.requireArchiveMatches(this.sourceColumns);
      this.writableColumns = columns.writable(this.sourceColumns);
    });
  }

  /** Inserts a {@code dedup_run} row and returns its id. */
  public long startRun(String method, boolean apply, String configDigest, LocalDateTime since, LocalDateTime until) {
    long runId = database.jdbi().withHandle(handle -> handle.createUpdate(
            "INSERT INTO dedup_run (source_table, method, applied, status, config_digest, window_since, window_until, started_at)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(0, spec.table()).bind(1, method).bind(2, apply).bind(3, apply ? "applying" : "planned")
        .bind(4, configDigest).bind(5, since).bind(6, until).bind(7, now())
        .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one());
    // Plan rows can only carry a new run's id if dedup_run was emptied or re-created (its ids start
    // again); they belong to a run that no longer exists and must not mix with this one's plan.
    database.jdbi().useHandle(h -> h.createUpdate("DELETE FROM dedup_plan WHERE run_id = ?").bind(0, runId).execute());
    return runId;
  }

  public void finishRun(long runId, String status, long recordsRead, long exactRemoved, long nearRemoved, String message) {
    database.jdbi().useHandle(handle -> handle.createUpdate(
            "UPDATE dedup_run SET status = ?, records_read = ?, exact_removed = ?, near_removed = ?, finished_at = ?, message = ? WHERE id = ?")
        .bind(0, status).bind(1, recordsRead).bind(2, exactRemoved).bind(3, nearRemoved).bind(4, now())
        .bind(5, message == null ? null : message.substring(0, Math.min(1000, message.length()))).bind(6, runId)
        .execute());
  }

  /**
   * What {@link #writePlanAndApply} did.
   *
   * @param planWrittenNanos {@link System#nanoTime()} when the last plan row was committed
   */
  public record Applied(long rowsMoved, long skippedExact, long skippedNear, long decidedAgain, long planWrittenNanos) {
    /** Planned rows left in place, all rules. */
    public long skippedChanged() {
      return skippedExact + skippedNear;
    }
  }

  /**
   * Rows moved by some batches, planned rows left in place because what they or their kept row hold
   * now no longer makes them duplicates ({@link DecisionCheck}), and planned rows decided again
   * because they or their kept row changed since the pass decided (moved or left in place).
   */
  public record Moved(long rows, long skippedExact, long skippedNear, long decidedAgain) {
    static final Moved NONE = new Moved(0, 0, 0, 0);

    /** Planned rows left in place, all rules. */
    public long skippedChanged() {
      return skippedExact + skippedNear;
    }

    Moved plus(Moved other) {
      return new Moved(rows + other.rows, skippedExact + other.skippedExact, skippedNear + other.skippedNear,
          decidedAgain + other.decidedAgain);
    }

    static Moved sum(List<Moved> parts) {
      return parts.stream().reduce(NONE, Moved::plus);
    }
  }

  /**
   * Writes the plan of a run and moves its rows, the two overlapped: the plan goes in, in seq order, a
   * batch per transaction on one connection, and the apply workers take each batch as soon as its plan
   * rows are committed. No row moves before the plan row that names it is committed, so a failure
   * leaves the plan rows written so far (each a decision that stands on its own) and whole batches
   * moved or not, which {@link #resumeInterrupted} finishes. Writing the plan is a fifth of
   * the work of moving the rows, so the writer stays ahead, and the server works on both while the
   * client formats the plan (1M bench: plan + apply 0.5 + 2.9 s one after the other, see
   * bench/RESULTS.md for overlapped).
   *
   * @param progress called with the plan rows handled per batch
   */
  public Applied writePlanAndApply(long runId, DeletionPlan plan, LongConsumer progress) {
    requireColumns();
    int[] order = plan.orderByRemovedId();
    PlanWritten written = new PlanWritten();
    long[] planWrittenNanos = {System.nanoTime()};
    java.util.concurrent.Callable<Moved> writer = () -> {
      try {
        writePlanRows(runId, plan, order, written::committed);
        planWrittenNanos[0] = System.nanoTime();
        return Moved.NONE;
      } finally {
        written.finished(); // a worker waiting for rows that will never come stops
      }
    };
    List<java.util.concurrent.Callable<Moved>> tasks = new ArrayList<>();
    tasks.add(writer);
    tasks.addAll(applyWorkers(runId, order.length, plan.count(DeletionPlan.Rule.NEAR) > 0, written::awaitCommitted,
        progress));
    Moved moved = Moved.sum(runInParallel(tasks, "applying run " + runId));
    return new Applied(moved.rows(), moved.skippedExact(), moved.skippedNear(), moved.decidedAgain(),
        planWrittenNanos[0]);
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

    /** Waits until plan rows [0, seqEnd) are committed; false if the writer stopped short of them. */
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
   * Writes the plan rows (seq = position in {@code order}), a transaction per {@link #BATCH} rows (an
   * apply batch), and calls {@code committed} with the end seq of each committed one.
   */
  private void writePlanRows(long runId, DeletionPlan plan, int[] order, java.util.function.IntConsumer committed) {
    int to = order.length;
    try (Connection loader = database.openLocalInfileConnection()) {
      if (loader != null) {
        loadPlanRows(loader, runId, plan, order, committed);
        return;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("writing the plan of run " + runId + " failed: " + Database.rootMessage(e), e);
    }
    database.jdbi().useHandle(handle -> {
      Connection connection = handle.getConnection();
      try (PreparedStatement insert = connection.prepareStatement(
          "INSERT INTO dedup_plan (run_id, seq, removed_id, kept_id, rule, score, removed_time, removed_crc,"
              + " kept_time, kept_crc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
        connection.setAutoCommit(false);
        for (int chunk = 0; chunk < to; chunk += BATCH) {
          int end = Math.min(to, chunk + BATCH);
          for (int seq = chunk; seq < end; seq++) {
            int i = order[seq];
            insert.setLong(1, runId);
            insert.setInt(2, seq);
            insert.setLong(3, plan.removedId(i));
            insert.setLong(4, plan.keptId(i));
            insert.setString(5, plan.rule(i).label);
            insert.setDouble(6, plan.score(i));
            DeletionPlan.RowState removed = plan.removedState(i);
            DeletionPlan.RowState kept = plan.keptState(i);
            insert.setObject(7, RecordSource.fromMillis(removed.time()));
            insert.setLong(8, removed.crc());
            insert.setObject(9, RecordSource.fromMillis(kept.time()));
            insert.setLong(10, kept.crc());
            insert.addBatch();
          }
          insert.executeBatch();
          connection.commit();
          committed.accept(end);
        }
      } catch (SQLException e) {
        throw new IllegalStateException("writing the plan of run " + runId + " failed: " + Database.rootMessage(e), e);
      } finally {
        try {
          connection.rollback(); // nothing when every chunk was committed
          connection.setAutoCommit(true);
        } catch (SQLException e) {
          // the connection is closed with the handle; what was committed stays
        }
      }
    });
  }

  /**
   * Writes the plan rows with LOAD DATA LOCAL INFILE from memory, a transaction per {@link
   * #BATCH} rows: the server parses tab-separated numbers instead of multi-row INSERT statements, about
   * 3x less time for 261k rows (bench/RESULTS.md). LOCAL turns rejected rows into warnings, so the
   * loaded count is checked.
   */
  private static void loadPlanRows(Connection connection, long runId, DeletionPlan plan, int[] order,
      java.util.function.IntConsumer committed) throws SQLException {
    int to = order.length;
    connection.setAutoCommit(false);
    try (Statement statement = connection.createStatement()) {
      StringBuilder rows = new StringBuilder();
      for (int chunk = 0; chunk < to; chunk += BATCH) {
        int end = Math.min(to, chunk + BATCH);
        rows.setLength(0);
        for (int seq = chunk; seq < end; seq++) {
          int i = order[seq];
          DeletionPlan.RowState removed = plan.removedState(i);
          DeletionPlan.RowState kept = plan.keptState(i);
          rows.append(runId).append('\t').append(seq).append('\t').append(plan.removedId(i)).append('\t')
              .append(plan.keptId(i)).append('\t').append(plan.rule(i).label).append('\t').append(plan.score(i))
              .append('\t');
          appendTime(rows, removed.time()).append('\t').append(removed.crc()).append('\t');
          appendTime(rows, kept.time()).append('\t').append(kept.crc()).append('\n');
        }
        // Only digits, '.', 'E', '-', ':', ' ', \N and rule labels: ASCII, nothing to escape.
        statement.unwrap(JdbcStatement.class).setLocalInfileInputStream(
            new ByteArrayInputStream(rows.toString().getBytes(StandardCharsets.US_ASCII)));
        long loaded = statement.executeLargeUpdate("LOAD DATA LOCAL INFILE 'dedup_plan' INTO TABLE dedup_plan"
            + " FIELDS TERMINATED BY '\\t' LINES TERMINATED BY '\\n' (run_id, seq, removed_id, kept_id, rule, score,"
            + " removed_time, removed_crc, kept_time, kept_crc)");
        if (loaded != end - chunk) {
          connection.rollback();
          throw new IllegalStateException("writing the plan of run " + runId + ": loaded " + loaded + " of "
              + (end - chunk) + " rows (seq " + chunk + "-" + end + "); rolled back");
        }
        connection.commit();
        committed.accept(end);
      }
    }
  }

  /** Appends a plan time as LOAD DATA reads a DATETIME(3) ("2024-05-01 08:00:00.000"), NULL as \N. */
  private static StringBuilder appendTime(StringBuilder rows, long millis) {
    LocalDateTime time = RecordSource.fromMillis(millis);
    return time == null ? rows.append("\\N") : rows.append(PLAN_TIME.format(time));
  }

  private static final java.time.format.DateTimeFormatter PLAN_TIME =
      java.time.format.DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSS", Locale.ROOT);

  /** Runs the tasks on their own threads (and connections); the first failure is rethrown. */
  private <T> List<T> runInParallel(List<java.util.concurrent.Callable<T>> tasks, String what) {
    ExecutorService pool = Executors.newFixedThreadPool(tasks.size(), r -> {
      Thread t = new Thread(r, "xiaochong-apply");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (java.util.concurrent.Callable<T> task : tasks) {
        futures.add(pool.submit(task));
      }
      List<T> results = new ArrayList<>();
      for (Future<T> future : futures) {
        results.add(future.get());
      }
      return results;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while " + what, e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(what + " failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Moves the planned rows of a run (its plan already written) into the archive, batch by batch.
   *
   * @param progress called with the plan rows handled per batch
   */
  public Moved apply(long runId, LongConsumer progress) {
    requireColumns();
    int planSize = database.jdbi().withHandle(h -> h.createQuery(
        "SELECT COALESCE(MAX(seq) + 1, 0) FROM dedup_plan WHERE run_id = ?").bind(0, runId).mapTo(Integer.class).one());
    boolean hadNearPass = database.jdbi().withHandle(h -> h.createQuery(
        "SELECT EXISTS (SELECT 1 FROM dedup_plan WHERE run_id = ? AND rule = ?)").bind(0, runId)
        .bind(1, DeletionPlan.Rule.NEAR.label).mapTo(Boolean.class).one());
    return Moved.sum(runInParallel(applyWorkers(runId, planSize, hadNearPass, seqEnd -> true, progress),
        "applying run " + runId));
  }

  /**
   * The statements of one batch; {@code ?} are bound by {@link #moveBatchOnce}. The {@code ...Seqs}
   * and {@code readRows} statements are completed by a list of placeholders and ")" ({@link #in}).
   */
  private record BatchSql(String archiveUnchanged, String deleteUnchanged, String pending, String readRows,
      String archiveSeqs, String deleteSeqs, String markSkipped, int fingerprintColumns) {}

  private BatchSql batchSql() {
    String columns = sourceColumns.stream().map(c -> "t." + q(c)).collect(Collectors.joining(", "));
    String plainColumns = sourceColumns.stream().map(ArchiveStore::q).collect(Collectors.joining(", "));
    String id = q(spec.idColumn());
    String time = q(spec.timeColumn());
    String table = q(spec.table());
    RecordSource source = new RecordSource(database, spec);
    String rows = " FROM dedup_plan p JOIN " + table + " t ON t." + id + " = p.removed_id"
        + " JOIN " + table + " k ON k." + id + " = p.kept_id";
    String batch = " WHERE p.run_id = ? AND p.seq >= ? AND p.seq < ? AND p.skipped = 0";
    // Both rows as the index held them when the pass decided: then the decision still stands.
    String unchanged = " AND " + source.rowChecksumSql("t") + " = p.removed_crc AND t." + time + " <=> p.removed_time"
        + " AND " + source.rowChecksumSql("k") + " = p.kept_crc AND k." + time + " <=> p.kept_time";
    String archive = "INSERT INTO " + q(spec.removedTable()) + " (" + plainColumns
        + ", dedup_run_id, dedup_rule, dedup_kept_id, dedup_score, dedup_removed_at) SELECT " + columns
        + ", p.run_id, p.rule, p.kept_id, p.score, ?" + rows;
    String bySeqs = " WHERE p.run_id = ? AND p.seq IN (";
    return new BatchSql(
        archive + batch + unchanged + " LOCK IN SHARE MODE",
        "DELETE t FROM dedup_plan p JOIN " + table + " t ON t." + id + " = p.removed_id JOIN " + q(spec.removedTable())
            + " a ON a.dedup_run_id = p.run_id AND a." + id + " = p.removed_id" + batch,
        "SELECT p.seq, p.rule, p.removed_id, p.kept_id" + rows + batch,
        "SELECT " + DecisionCheck.columns(spec, "t") + " FROM " + table + " t WHERE t." + id + " IN (",
        archive + bySeqs,
        "DELETE t FROM dedup_plan p JOIN " + table + " t ON t." + id + " = p.removed_id" + bySeqs,
        "UPDATE dedup_plan SET skipped = 1 WHERE run_id = ? AND seq = ?",
        spec.fingerprintColumns().size());
  }

  /**
   * The apply workers: each takes the next batch of plan rows [0, planSize) once {@code planned} says
   * its rows are committed, and moves it.
   *
   * @param hadNearPass whether the plan has near removals (see {@link DecisionCheck})
   */
  private List<java.util.concurrent.Callable<Moved>> applyWorkers(long runId, int planSize, boolean hadNearPass,
      PlanGate planned, LongConsumer progress) {
    BatchSql sql = batchSql();
    LocalDateTime removedAt = now();
    // Batches are disjoint id ranges (the plan is in removed-id order) and never remove a kept row, so
    // two run at once, each in its own transaction, and the server uses both cores. READ COMMITTED:
    // no gap locks, so the batches do not block each other. Each worker keeps its connection for all
    // the batches it takes (a connection costs a login and Connector/J's setup queries).
    AtomicInteger nextBatch = new AtomicInteger();
    AtomicBoolean failed = new AtomicBoolean(); // a failed batch stops the other worker too
    List<java.util.concurrent.Callable<Moved>> workers = new ArrayList<>();
    for (int w = 0; w < PARALLEL_BATCHES; w++) {
      workers.add(() -> database.jdbi().withHandle(handle -> {
        Moved moved = Moved.NONE;
        try (DecisionCheck check = new DecisionCheck(spec, nearConfig, hadNearPass)) {
          for (int lo = nextBatch.getAndIncrement() * BATCH; lo < planSize && !failed.get();
              lo = nextBatch.getAndIncrement() * BATCH) {
            int to = Math.min(planSize, lo + BATCH);
            try {
              if (!planned.awaitCommitted(to)) {
                break; // the plan writer failed; it reports why
              }
              moved = moved.plus(moveBatch(handle.getConnection(), runId, lo, to, sql, check, removedAt));
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              failed.set(true);
              throw new IllegalStateException("interrupted while applying run " + runId, e);
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

  /**
   * Archives and deletes plan rows [lo, to) in one transaction; retried when the server reports a
   * deadlock. Plain JDBC rather than Jdbi statements: Jdbi
   * lexes each statement's text for named parameters, and on these long statements run dozens of
   * times that lexer became hot enough for the JIT to compile it in the middle of the apply (~0.3 s of
   * a core, bench/RESULTS.md).
   */
  private static Moved moveBatch(Connection connection, long runId, int lo, int to, BatchSql sql, DecisionCheck check,
      LocalDateTime removedAt) {
    for (int attempt = 1; ; attempt++) {
      try {
        return moveBatchOnce(connection, runId, lo, to, sql, check, removedAt);
      } catch (RuntimeException e) {
        if (attempt >= 3 || !Database.isDeadlock(e)) {
          throw e;
        }
      }
    }
  }

  /**
   * One batch, in one transaction: the plan rows whose removed and kept rows are unchanged since the
   * pass decided move in two statements; the others are locked, read and decided again ({@link
   * DecisionCheck}), and moved or marked skipped. The copied and deleted counts must agree, or the
   * batch is rolled back.
   *
   * <p>Unchanged means that both rows still have the time and checksum the index held when the pass
   * decided ({@link DeletionPlan.RowState}): the decision was then made on what they hold now and
   * stands. The server compares them, so no row travels for it. The copy reads with shared locks
   * ({@code INSERT … SELECT … LOCK IN SHARE MODE}; READ COMMITTED releases them on the rows that do
   * not qualify), so the rows it copies and their kept rows cannot change before the delete, which
   * removes exactly the rows copied (joined with their copies). (A row edited into other text with
   * the same CRC32, one chance in 2^32 per edit, would pass for unchanged; the sync's change check
   * rests on the same odds.)
   *
   * <p>The other rows (edited, re-dated, or planned without a known state: a removal re-pointed to a
   * near survivor, a plan of an older version) are locked ({@code FOR UPDATE} the removed rows,
   * {@code LOCK IN SHARE MODE} the kept rows), read in full and decided again.
   */
  private static Moved moveBatchOnce(Connection connection, long runId, int lo, int to, BatchSql sql,
      DecisionCheck check, LocalDateTime removedAt) {
    try {
      connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      connection.setAutoCommit(false);
      try {
        int moved;
        try (PreparedStatement archive = connection.prepareStatement(sql.archiveUnchanged());
            PreparedStatement remove = connection.prepareStatement(sql.deleteUnchanged())) {
          archive.setObject(1, removedAt);
          bindBatch(archive, 2, runId, lo, to);
          int archived = archive.executeUpdate();
          bindBatch(remove, 1, runId, lo, to);
          int deleted = remove.executeUpdate();
          if (archived != deleted) {
            throw new IllegalStateException("run " + runId + ": batch " + lo + "-" + to + " archived " + archived
                + " unchanged rows but would delete " + deleted + "; rolled back, nothing of this batch changed");
          }
          moved = deleted;
        }
        Moved result = new Moved(moved, 0, 0, 0);
        if (moved < to - lo) { // some rows changed, were moved before, or left the table
          result = result.plus(moveChanged(connection, runId, lo, to, sql, check, removedAt));
        }
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      } finally {
        connection.setAutoCommit(true); // ends the transaction, as Jdbi expects of a handle it closes
      }
    } catch (SQLException e) {
      throw new IllegalStateException("run " + runId + ": batch " + lo + "-" + to + " failed, rolled back: "
          + Database.rootMessage(e), e);
    }
  }

  /**
   * The batch's plan rows left after the unchanged ones moved whose removed and kept rows are both
   * still in the table: locks them, decides again on what they hold now, moves those that still
   * qualify and marks the others skipped.
   */
  private static Moved moveChanged(Connection connection, long runId, int lo, int to, BatchSql sql,
      DecisionCheck check, LocalDateTime removedAt) throws SQLException {
    List<PlannedRow> pending = new ArrayList<>();
    try (PreparedStatement select = connection.prepareStatement(sql.pending())) {
      bindBatch(select, 1, runId, lo, to);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          pending.add(new PlannedRow(rs.getInt(1), DeletionPlan.Rule.of(rs.getString(2)), rs.getLong(3), rs.getLong(4)));
        }
      }
    }
    if (pending.isEmpty()) {
      return Moved.NONE;
    }
    Map<Long, SourceRecord> removedRows = readRows(connection, sql, pending.stream().mapToLong(PlannedRow::removedId),
        " FOR UPDATE");
    Map<Long, SourceRecord> keptRows = readRows(connection, sql, pending.stream().mapToLong(PlannedRow::keptId),
        " LOCK IN SHARE MODE");
    List<Integer> qualified = new ArrayList<>();
    long skipped = 0;
    long skippedNear = 0;
    Map<Long, byte[]> keptKeys = new HashMap<>();
    try (PreparedStatement mark = connection.prepareStatement(sql.markSkipped())) {
      for (PlannedRow row : pending) {
        SourceRecord removed = removedRows.get(row.removedId());
        SourceRecord kept = keptRows.get(row.keptId());
        if (removed == null || kept == null) {
          continue; // deleted by someone else since the select above: nothing to move
        }
        byte[] keptKey = keptKeys.computeIfAbsent(row.keptId(), id -> check.exactKey(kept));
        if (check.stillHolds(row.rule(), removed, kept, keptKey)) {
          qualified.add(row.seq());
        } else {
          mark.setLong(1, runId);
          mark.setInt(2, row.seq());
          mark.addBatch();
          skipped++;
          if (row.rule() == DeletionPlan.Rule.NEAR) {
            skippedNear++;
          }
        }
      }
      if (skipped > 0) {
        mark.executeBatch();
      }
    }
    int moved = 0;
    for (int from = 0; from < qualified.size(); from += READ_IDS) {
      List<Integer> seqs = qualified.subList(from, Math.min(qualified.size(), from + READ_IDS));
      try (PreparedStatement archive = connection.prepareStatement(sql.archiveSeqs() + in(seqs.size()));
          PreparedStatement remove = connection.prepareStatement(sql.deleteSeqs() + in(seqs.size()))) {
        archive.setObject(1, removedAt);
        archive.setLong(2, runId);
        remove.setLong(1, runId);
        for (int i = 0; i < seqs.size(); i++) {
          archive.setInt(3 + i, seqs.get(i));
          remove.setInt(2 + i, seqs.get(i));
        }
        int archived = archive.executeUpdate();
        int deleted = remove.executeUpdate();
        if (archived != seqs.size() || deleted != seqs.size()) {
          throw new IllegalStateException("run " + runId + ": batch " + lo + "-" + to + " had " + seqs.size()
              + " changed rows to move but archived " + archived + " and would delete " + deleted
              + "; rolled back, nothing of this batch changed");
        }
        moved += deleted;
      }
    }
    return new Moved(moved, skipped - skippedNear, skippedNear, pending.size());
  }

  /** {@code n} placeholders and the closing parenthesis. */
  private static String in(int n) {
    return String.join(", ", java.util.Collections.nCopies(n, "?")) + ")";
  }

  /**
   * Reads the rows with these ids as they are now, locking them with {@code lock}, by id; {@link
   * #READ_IDS} ids per query.
   */
  private static Map<Long, SourceRecord> readRows(Connection connection, BatchSql sql, java.util.stream.LongStream ids,
      String lock) throws SQLException {
    long[] distinct = ids.distinct().sorted().toArray(); // in key order: two batches lock shared rows alike
    Map<Long, SourceRecord> rows = new HashMap<>();
    for (int from = 0; from < distinct.length; from += READ_IDS) {
      int n = Math.min(READ_IDS, distinct.length - from);
      try (PreparedStatement read = connection.prepareStatement(sql.readRows() + in(n) + lock)) {
        for (int i = 0; i < n; i++) {
          read.setLong(i + 1, distinct[from + i]);
        }
        try (ResultSet rs = read.executeQuery()) {
          boolean utf8 = RecordSource.columnsAreUtf8(rs, 3, sql.fingerprintColumns());
          while (rs.next()) {
            SourceRecord row = DecisionCheck.read(rs, 1, sql.fingerprintColumns(), utf8);
            rows.put(row.id(), row);
          }
        }
      }
    }
    return rows;
  }

  /** A plan row whose rows are decided again. */
  private record PlannedRow(int seq, DeletionPlan.Rule rule, long removedId, long keptId) {}

  private static void bindBatch(PreparedStatement statement, int first, long runId, int lo, int to) throws SQLException {
    statement.setLong(first, runId);
    statement.setInt(first + 1, lo);
    statement.setInt(first + 2, to);
  }

  /**
   * Finishes runs of this table left in status {@code applying} by a crash; returns their ids. Each
   * batch is decided again on what its rows hold now, as in a first apply.
   */
  public List<Long> resumeInterrupted() {
    List<Long> runs = database.jdbi().withHandle(h -> h.createQuery(
        "SELECT id FROM dedup_run WHERE source_table = ? AND status = 'applying' ORDER BY id")
        .bind(0, spec.table()).mapTo(Long.class).list());
    for (long runId : runs) {
      Moved moved = apply(runId, n -> {});
      database.jdbi().useHandle(h -> h.createUpdate(
          "UPDATE dedup_run SET status = 'applied', finished_at = ?, message = ? WHERE id = ?")
          .bind(0, now()).bind(1, "resumed after an interruption; " + moved.rows() + " rows moved on resume, "
              + moved.skippedChanged() + " left because they changed").bind(2, runId).execute());
    }
    return runs;
  }

  /**
   * Puts the rows of a run back into the source table, a transaction per batch. The run is marked
   * {@code restoring} and its plan dropped before the first row moves, so an interrupted restore never
   * lets a later {@code run --apply} finish the run again and re-delete what was put back; running the
   * restore again finishes it. Returns the rows restored.
   */
  public long restore(long runId) {
    requireColumns();
    Optional<String> status = database.jdbi().withHandle(h -> h.createQuery(
        "SELECT status FROM dedup_run WHERE id = ? AND source_table = ?").bind(0, runId).bind(1, spec.table())
        .mapTo(String.class).findOne());
    if (status.isEmpty()) {
      throw new BadInputException("run " + runId + " is not a run on table " + spec.table() + " (see `dedup stats`)");
    }
    database.jdbi().useTransaction(h -> {
      h.createUpdate("UPDATE dedup_run SET status = 'restoring', message = ? WHERE id = ?")
          .bind(0, "restore started at " + now() + " (run the restore again if it was interrupted)").bind(1, runId)
          .execute();
      h.createUpdate("DELETE FROM dedup_plan WHERE run_id = ?").bind(0, runId).execute();
    });
    String plainColumns = writableColumns.stream().map(ArchiveStore::q).collect(Collectors.joining(", "));
    String id = q(spec.idColumn());
    String removed = q(spec.removedTable());
    long restored = 0;
    long after = Long.MIN_VALUE;
    while (true) {
      long lo = after;
      Optional<Long> hi = database.jdbi().withHandle(h -> h.createQuery(
          "SELECT MAX(" + id + ") FROM (SELECT " + id + " FROM " + removed + " WHERE dedup_run_id = ? AND " + id
              + " > ? ORDER BY " + id + " LIMIT " + BATCH + ") b").bind(0, runId).bind(1, lo)
          .mapTo(Long.class).findOne());
      if (hi.isEmpty() || hi.get() == null) {
        break;
      }
      long upTo = hi.get();
      restored += database.jdbi().inTransaction(handle -> {
        int inserted;
        try {
          inserted = handle.createUpdate("INSERT INTO " + q(spec.table()) + " (" + plainColumns + ") SELECT "
              + plainColumns + " FROM " + removed + " WHERE dedup_run_id = ? AND " + id + " > ? AND " + id + " <= ?")
              .bind(0, runId).bind(1, lo).bind(2, upTo).execute();
        } catch (RuntimeException e) {
          if (String.valueOf(Database.rootMessage(e)).contains("Duplicate entry")) {
            throw new BadInputException("cannot restore run " + runId + ": a row with the same "
                + spec.idColumn() + " is in " + spec.table() + " again (" + Database.rootMessage(e)
                + "); nothing of this batch was restored", e);
          }
          throw e;
        }
        int deleted = handle.createUpdate("DELETE FROM " + removed + " WHERE dedup_run_id = ? AND " + id + " > ? AND " + id + " <= ?")
            .bind(0, runId).bind(1, lo).bind(2, upTo).execute();
        if (inserted != deleted) {
          handle.rollback();
          throw new IllegalStateException("restore of run " + runId + " put back " + inserted + " rows but the archive held "
              + deleted + "; rolled back");
        }
        return (long) inserted;
      });
      after = upTo;
    }
    long total = restored;
    database.jdbi().useHandle(h -> h.createUpdate("UPDATE dedup_run SET status = 'restored', message = ? WHERE id = ?")
        .bind(0, total + " rows restored at " + now()).bind(1, runId).execute());
    return restored;
  }

  /** Deletes a finished run's plan (the archive keeps every decision). */
  public void dropPlan(long runId) {
    database.jdbi().useHandle(h -> h.createUpdate("DELETE FROM dedup_plan WHERE run_id = ?").bind(0, runId).execute());
  }

  /** Runs of this table, newest first, for {@code dedup stats}. */
  public List<RunRow> runs(int limit) {
    return database.jdbi().withHandle(h -> h.createQuery(
            "SELECT id, method, applied, status, records_read, exact_removed, near_removed, started_at, finished_at"
                + " FROM dedup_run WHERE source_table = ? ORDER BY id DESC LIMIT " + limit)
        .bind(0, spec.table())
        .map((rs, ctx) -> new RunRow(rs.getLong(1), rs.getString(2), rs.getBoolean(3), rs.getString(4), rs.getLong(5),
            rs.getLong(6), rs.getLong(7), rs.getObject(8, LocalDateTime.class), rs.getObject(9, LocalDateTime.class)))
        .list());
  }

  /** Rows in the archive table. */
  public long archivedRows() {
    return database.jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + q(spec.removedTable()))
        .mapTo(Long.class).one());
  }

  /** One row of {@code dedup_run}. */
  public record RunRow(long id, String method, boolean applied, String status, long recordsRead, long exactRemoved,
      long nearRemoved, LocalDateTime startedAt, LocalDateTime finishedAt) {}

  private void requireColumns() {
    if (sourceColumns == null) {
      throw new IllegalStateException("call ensureTables first");
    }
  }

  private static LocalDateTime now() {
    return LocalDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MILLIS); // the columns are DATETIME(3)
  }

  private static String q(String identifier) {
    return TableSpec.quote(identifier);
  }
}
