package org.xiaochong.check;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.method.Excluded;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.MethodCheck;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.run.IndexHandOver;
import org.xiaochong.source.BadInputException;

/**
 * The online dedup API: open it from a config, then {@link #check} incoming records, {@link #add}
 * them, {@link #explain} a verdict, {@link #close}. {@code dedup check} and {@code dedup serve}
 * both answer through it, so a record gets the same verdict from either.
 *
 * <pre>{@code
 * DedupConfig config = DedupConfig.load(Path.of("my.properties"), System.getenv());
 * try (Deduplicator dedup = Deduplicator.open(config, Deduplicator.Options.DEFAULT)) {
 *   Deduplicator.Verdict v = dedup.check(new Deduplicator.Record(42L, Map.of("title", "供应红富士苹果"), now));
 *   List<Deduplicator.Verdict> added = dedup.add(List.of(record));   // returns once durable (fsync)
 * }
 * }</pre>
 *
 * <p>A verdict says which record the keep policy ({@link KeepPolicy}, the rule of every run) keeps:
 * a new record that repeats an older one is kept ({@code keep = "new"}) and supersedes it (the next
 * run removes the older); one that repeats a newer record is the one to drop ({@code keep =
 * "existing"}). {@link #add} indexes new records and kept duplicates.
 *
 * <p>Thread-safe. A batch's keys (the segmentation, most of a check's cost) are computed on the
 * caller's thread, so callers segment in parallel; the lookups and decisions then run one at a time
 * under one lock, since the methods' checks keep per-stream state (their index readers' cursors,
 * the records added since the last reopen).
 *
 * <p>Adds are durable once in the add log ({@link AddLog}, a write-ahead log) and the log is
 * fsynced ({@link #sync}), outside that lock: checks and adds go on while it fsyncs, and one fsync
 * makes the records of every caller waiting for it durable (group commit). The indexes commit in
 * the background ({@link #commitIndex}) and at {@link #close}; the log's files left by a crash are
 * replayed when the indexes are next opened for writing (at {@link #open} when there are any).
 *
 * <p>Reads take no lock on the index: the checker reads the last commit, and {@link
 * #refreshIfChanged} reopens it when a run (or another writer) committed. Adds need the indexes'
 * write lock, which a run also takes: the first add opens the indexes for writing, {@link
 * #releaseWriter} gives the lock back once adds stop, and {@link #handOverIfAsked} at once when a
 * run asks for it ({@link IndexHandOver}). A checker that reads on is opened beside the one serving
 * (its index, filters and marks loaded, seconds on a big index), without the lock, and swapped in
 * under it, as Lucene's {@code SearcherManager} does: checks go on meanwhile, answered from the
 * checker being replaced. While another process holds it, adds are judged against the last commit
 * and logged only (durable, answered as ever; a later add of the same stream does not see them),
 * and {@link #addLogged} adds them to the index when the lock is free again. With {@link
 * Options#writable} the lock is taken at open and a busy index is an {@link IndexBusyException}.
 *
 * <p>Over 300 lines because its public surface (the value types callers name as {@code
 * Deduplicator.Record}, {@code .Verdict}, {@code .Options}, and the documented entry points) is
 * about that long; the machinery behind it is in {@link OpenedChecker}, {@link KeysAhead}, {@link
 * ThreadProbers}, {@link KeepDecision}, {@link GroupCommit}, {@link AnsweredAdds} and {@link
 * AddLog}.
 */
public final class Deduplicator implements AutoCloseable {
  /**
   * One incoming record.
   *
   * @param id its id, or null for a record not stored yet (it cannot be added, and has no marks)
   * @param fields column → value (NULL as null); columns no method reads are ignored
   * @param time its time in millis ({@code SourceRecord.NULL_TIME} for NULL), for the keep policy
   */
  public record Record(Long id, Map<String, String> fields, long time) {
    public Record {
      fields = Collections.unmodifiableMap(new HashMap<>(fields));
    }
  }

  /** What the keep policy keeps of a record and its twin. */
  public static final String KEEP_NEW = "new";

  public static final String KEEP_EXISTING = "existing";

  /**
   * The answer for one record.
   *
   * @param id the record's id (null when it had none)
   * @param verdict {@code new} or the name of the method that found its twin
   * @param keptId the twin (null when new)
   * @param score 1.0 for an exact copy, the method's similarity for the others, 0 when new
   * @param keep {@link #KEEP_NEW} when the keep policy keeps the incoming record (always for a new
   *     one), {@link #KEEP_EXISTING} when it keeps the twin
   * @param supersedes the ids the incoming record supersedes when kept over its twin, else empty
   * @param added whether the record is in the index after {@link #add}: added by this call, or by
   *     an earlier try of the same add (same id)
   */
  public record Verdict(
      Long id,
      String verdict,
      Long keptId,
      double score,
      String keep,
      List<Long> supersedes,
      boolean added) {
    public boolean isNew() {
      return verdict.equals(OnlineChecker.NEW);
    }
  }

  /**
   * Why a verdict: the verdict, and for each method the records it compared and the rule's outcome.
   */
  public record Explanation(Verdict verdict, List<OnlineChecker.MethodExplanation> methods) {}

  /**
   * How to open.
   *
   * @param methods the methods to ask, in order; null for every method a run has built something
   *     for
   * @param writable take the indexes' write lock at once and keep it until {@link #close} (as
   *     {@code check --add} does); otherwise reads take no lock and the first {@link #add} takes it
   * @param notes one-line notes for the user (a prefilter rebuilt, a method's index not built yet)
   */
  public record Options(List<FingerprintMethod> methods, boolean writable, Consumer<String> notes) {
    public static final Options DEFAULT = new Options(null, false, note -> {});
  }

  /** The write lock of the indexes is held by another process (a run): try again later. */
  public static final class IndexBusyException extends BadInputException {
    IndexBusyException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final DedupConfig config;
  private final Options options;

  /**
   * Guards the checker. Its read lock: finds on several threads at once, each with cursors of its
   * own ({@link ThreadProbers}). Its write lock ({@link #lock}): adds, finds of methods that cannot
   * find concurrently, reopens. Fair, so that an add is not kept waiting by a stream of checks.
   */
  private final ReentrantReadWriteLock turns = new ReentrantReadWriteLock(true);

  private final java.util.concurrent.locks.Lock lock = turns.writeLock();

  /**
   * Commits hold its read lock, reopening its write lock: a checker is never closed under a commit.
   */
  private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();

  private final GroupCommit commits = new GroupCommit(this::syncLog);

  /** The write-ahead log of the adds, opened at the first add; appended under {@link #lock}. */
  private volatile AddLog log;

  private final KeysAhead keysAhead = new KeysAhead();

  /** Guarded by {@link #lock}. */
  private final AnsweredAdds answeredAdds = new AnsweredAdds();

  private FingerprintIndex index;

  /** Read outside {@link #lock} only to compute keys ahead ({@link KeysAhead}). */
  private volatile OnlineChecker checker;

  /**
   * Whether the serving checker holds the write lock. Written under {@link #lock}; read outside it
   * only by {@link #openWriterBeside}, to let the adds through at once while the writer is open.
   */
  private volatile boolean writable;

  private String generations;
  private volatile long indexedAtOpen;

  /** Records added since the checker opened (for {@link #indexedRecords}). */
  private volatile long addedSinceOpen;

  private volatile long lastAddNanos = System.nanoTime();

  /** How long adds are only logged after the write lock was found taken, before trying again. */
  private static final long WRITER_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** When to try again to take the write lock (guarded by {@link #lock}). */
  private long writerRetryNanos = System.nanoTime();

  /** Whether {@link #close} was called (guarded by {@link #lock}): nothing is swapped in after. */
  private boolean closed;

  /**
   * Runs once a checker was opened beside the serving one, before it is swapped in: tests hold it
   * there to see checks answered meanwhile.
   */
  private volatile Runnable openedBeside = () -> {};

  /**
   * Runs before each background commit of the indexes: tests make it throw, as a full disk does.
   */
  private volatile Runnable beforeCommit = () -> {};

  /**
   * The log files sealed out of the log ({@link AddLog#seal}) whose commit has not succeeded yet,
   * or null (guarded by {@link #lock}). The log then looks empty, yet the last commit lacks
   * answered adds: a checker opened on it would answer as if they had never been made, so none is
   * opened beside the writer ({@link #readBesideWriter}) and {@link #commitIndex} tries again.
   */
  private List<Path> owed;

  /**
   * Whether adds are logged only though the writer is open (guarded by {@link #lock}): from the
   * seal of a hand-over's commit ({@link #handOverIfAsked}) until the writer closes. That commit
   * then holds every add the writer took, so the reader opened beside on it misses none and is
   * swapped in though adds keep coming; the adds logged meanwhile join the index once the run is
   * done ({@link #addLogged}), as those made while it writes do.
   */
  private boolean logOnly;

  /**
   * One open of the writing checker beside the reading one at a time ({@link #openWriterBeside}).
   */
  private final Object openingWriter = new Object();

  /** One background commit at a time, so that a commit clears {@link #owed} for its seal. */
  private final Object committing = new Object();

  private Deduplicator(DedupConfig config, Options options) {
    this.config = config;
    this.options = options;
  }

  /**
   * Opens the checks of the indexes the runs of {@code config} built.
   *
   * @throws BadInputException a method named in {@link Options#methods} has nothing built yet, or
   *     the indexes are in use by a writer when {@link Options#writable}
   */
  public static Deduplicator open(DedupConfig config, Options options) {
    Deduplicator dedup = new Deduplicator(config, options);
    if (!options.writable() && !AddLog.pending(config.indexDir()).isEmpty()) {
      // Adds answered but not committed by the last process: into the index before any check.
      try {
        dedup.openChecker(true);
        return dedup;
      } catch (IndexBusyException busy) {
        options.notes().accept("check: the add log is replayed at the first add (a run writes)");
      }
    }
    dedup.openChecker(options.writable());
    return dedup;
  }

  /** Opens the checker (the caller holds {@link #lock}, or is the constructor). */
  private void openChecker(boolean forWriting) {
    install(OpenedChecker.open(config, options, forWriting, checker == null), forWriting);
  }

  /**
   * Closes the checker serving and serves from {@code opened} (the caller holds {@link #lock}).
   * Closing waits for commits ({@link #lifecycle}); readers of {@link #turns} are kept out by the
   * lock.
   */
  private void install(OpenedChecker opened, boolean forWriting) {
    closeChecker();
    index = opened.index();
    checker = opened.checker();
    writable = forWriting;
    generations = opened.generations();
    indexedAtOpen = opened.docs();
    addedSinceOpen = 0;
    if (forWriting) {
      replayLog();
    }
  }

  /**
   * Adds again the records of the add log's files (left by a crash, or logged while another process
   * held the indexes), commits them and deletes the files (the caller holds {@link #lock} and the
   * writable checker). Records the indexes hold already are met as themselves and skipped, so a
   * replay twice adds nothing twice. Every logged record was answered {@code added: true}, so each
   * joins the index whatever it meets now: judged again, one of two copies logged in the same
   * window (neither saw the other) would be left out although its client was told it is in; the
   * next run removes the copy the keep policy drops, as it does for any twin kept over another.
   */
  private void replayLog() {
    List<Path> files = log == null ? AddLog.pending(config.indexDir()) : log.seal();
    if (files.isEmpty()) {
      return;
    }
    long replayed = 0;
    for (Path file : files) {
      for (Record record : AddLog.read(file)) {
        OnlineChecker.Verdict found = checker.check(record.id(), record.fields(), null);
        if (!found.indexed()) {
          checker.add(record.id(), record.time(), record.fields(), found);
          addedSinceOpen++;
          replayed++;
        }
      }
    }
    checker.commit();
    AddLog.delete(files);
    options.notes().accept("check: " + replayed + " records of the add log added to the index");
  }

  /**
   * Closes the checker (committing and saving the filters of what was added) and its record index.
   */
  private void closeChecker() {
    if (checker == null) {
      // None, or its close failed: the log files it left are replayed at the next open for writing.
      owed = null;
      logOnly = false;
      return;
    }
    lifecycle.writeLock().lock();
    try {
      checker.close();
    } finally {
      index.close();
      checker = null;
      index = null;
      lifecycle.writeLock().unlock();
    }
    commits.allCommitted(); // close() committed everything added
    if (writable && log != null) {
      if (logOnly) { // the files written since the hand-over's seal hold adds the writer never took
        log.seal();
        if (owed != null) {
          AddLog.delete(owed);
        }
      } else {
        AddLog.delete(log.seal()); // every logged add is in the commit close() made
      }
    }
    owed = null;
    logOnly = false;
  }

  /** The methods asked, in order. */
  public List<String> methods() {
    lock.lock();
    try {
      return checker.methods();
    } finally {
      lock.unlock();
    }
  }

  /** The verdict for one record; nothing is added. */
  public Verdict check(Record record) {
    Verdict verdict;
    lock.lock();
    try {
      verdict = verdict(record, false, null);
    } finally {
      lock.unlock();
    }
    return onDurableRecord(verdict);
  }

  /**
   * Returns {@code verdicts} once the records they name are durable. A verdict names an indexed
   * record, which may be an add whose fsync is still running (another caller's, in its group
   * commit): answered before it, a crash would leave the client dropping its post for one that
   * never became durable. So a check that names a record waits for the adds made before it ({@link
   * #sync}); a check naming none, or made when every add is durable, waits for nothing.
   */
  private List<Verdict> onDurableRecords(List<Verdict> verdicts) {
    if (verdicts.stream().anyMatch(verdict -> !verdict.isNew())) {
      sync();
    }
    return verdicts;
  }

  /** {@link #onDurableRecords} for one verdict. */
  private Verdict onDurableRecord(Verdict verdict) {
    if (!verdict.isNew()) {
      sync();
    }
    return verdict;
  }

  /**
   * The verdicts for {@code records}, in order; nothing is added. The records' keys are computed on
   * the calling thread first, so that several callers segment at once while the checks take turns.
   */
  public List<Verdict> check(List<Record> records) {
    KeysAhead.Ahead ahead = keysAhead.compute(checker, records);
    try {
      return check(records, ahead);
    } finally {
      keysAhead.release(ahead);
    }
  }

  private List<Verdict> check(List<Record> records, KeysAhead.Ahead ahead) {
    List<Verdict> verdicts = new ArrayList<>(records.size());
    if (ahead.probers() != null && ahead.probers().concurrent()) {
      turns.readLock().lock();
      try {
        if (checker == ahead.checker()) { // not reopened since the keys were computed
          for (int i = 0; i < records.size(); i++) {
            Record record = records.get(i);
            Excluded.Outranks outranks = KeepDecision.outranks(config.table().keepPolicy(), record);
            verdicts.add(
                decide(
                    record,
                    ahead
                        .probers()
                        .check(record.id(), record.fields(), ahead.probes()[i], outranks),
                    outranks,
                    false));
          }
          return onDurableRecords(verdicts);
        }
      } finally {
        turns.readLock().unlock();
      }
    }
    lock.lock();
    try {
      for (int i = 0; i < records.size(); i++) {
        verdicts.add(verdict(records.get(i), false, ahead.of(checker, i)));
      }
    } finally {
      lock.unlock();
    }
    return onDurableRecords(verdicts);
  }

  /**
   * Checks each record and adds the new ones and the duplicates the keep policy keeps over their
   * twin, in order (a later record of the list is checked against the earlier ones); returns once
   * they are durable (in the add log, fsynced: a crash after the return loses none).
   *
   * <p>Idempotent by id: an add tried again (its answer lost to a timeout, a proxy or a crash)
   * answers what the first try did, once the first try's record is durable, and the record is not
   * indexed twice. The answers of the last adds are remembered ({@link AnsweredAdds}); past them
   * (an old retry, one after a restart) the record is judged again, and as a record never matches
   * itself, it is judged against the other records as the first try was.
   *
   * @throws IllegalArgumentException a record to add has no id (none of the list is added)
   * @throws IndexBusyException a run holds the indexes' write lock (none is added)
   */
  public List<Verdict> add(List<Record> records) {
    for (Record record : records) {
      if (record.id() == null) {
        throw new IllegalArgumentException(
            "adding needs the id column '" + config.table().idColumn() + "' in each record");
      }
    }
    openWriterBeside();
    KeysAhead.Ahead ahead = keysAhead.compute(checker, records);
    List<Verdict> verdicts = new ArrayList<>(records.size());
    lock.lock();
    try {
      for (int i = 0; i < records.size(); i++) {
        verdicts.add(verdict(records.get(i), true, ahead.of(checker, i)));
      }
    } finally {
      lock.unlock();
      keysAhead.release(ahead);
    }
    sync();
    return verdicts;
  }

  /**
   * Takes the indexes' write lock for the adds of a reading service: the writing checker is opened
   * beside the reading one, without {@link #lock}, and swapped in under it. Checks are answered by
   * the reading checker meanwhile (on 100k posts the open takes over a second, during which they
   * all used to wait); adds wait for the swap, one open at a time ({@link #openingWriter}), so an
   * add is answered by the writer that holds it and every check after its answer sees it. When a
   * run holds the lock, or asks for it meanwhile, nothing is swapped in and the adds are logged as
   * before.
   */
  private void openWriterBeside() {
    if (options.writable() || writable) {
      return; // the usual case, an add while the writer is open: no monitor, no extra lock turn
    }
    synchronized (openingWriter) {
      lock.lock();
      try {
        if (writable || closed || checker == null || !mayTakeWriter()) {
          return;
        }
      } finally {
        lock.unlock();
      }
      OpenedChecker opened;
      try {
        opened = OpenedChecker.open(config, options, true, false);
      } catch (IndexBusyException busy) { // a run writes: the adds are logged until it is done
        lock.lock();
        try {
          writerRetryNanos = System.nanoTime() + WRITER_RETRY_NANOS;
        } finally {
          lock.unlock();
        }
        return;
      }
      openedBeside.run();
      lock.lock();
      try {
        if (writable || closed || IndexHandOver.requested(config.indexDir())) {
          discard(opened); // a run asked for the lock meanwhile
          return;
        }
        install(opened, true);
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * The verdict for one record, which joins the index when new or kept over its twin; it is durable
   * after the next {@link #sync} or {@link #close} (as {@code check --add} does, one commit at the
   * end).
   *
   * @throws IllegalArgumentException the record would be added and has no id
   */
  public Verdict checkAndAdd(Record record) {
    lock.lock();
    try {
      return verdict(record, true, null);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The verdict (the caller holds {@link #lock}); adds the record when {@code add} and it is kept.
   *
   * @param probes the record's keys computed ahead for the current checker, or null
   */
  private Verdict verdict(Record record, boolean add, Object[] probes) {
    if (add && record.id() != null) {
      Verdict answered = answeredAdds.answerOf(record);
      if (answered != null) { // an add tried again: the first try's answer
        return answered;
      }
    }
    if (checker == null) {
      openChecker(options.writable());
      probes = null; // computed for the checker replaced
    }
    if (add && !writable && mayTakeWriter()) {
      try {
        openChecker(true);
        probes = null;
      } catch (IndexBusyException busy) { // a run writes: log the adds until it is done
        writerRetryNanos = System.nanoTime() + WRITER_RETRY_NANOS;
      }
    }
    // Check answers as a run decides (OnlineChecker#check): it asks who outranks the record.
    Excluded.Outranks outranks = KeepDecision.outranks(config.table().keepPolicy(), record);
    OnlineChecker.Verdict found = checker.check(record.id(), record.fields(), probes, outranks);
    Verdict verdict = decide(record, found, outranks, add);
    if (add && record.id() != null) {
      answeredAdds.answered(record, verdict);
    }
    return verdict;
  }

  /**
   * The keep policy on the record and its twin; adds the record when {@code add} and it is kept
   * (the caller holds {@link #lock} then, or the read lock of {@link #turns} when not adding).
   */
  private Verdict decide(
      Record record, OnlineChecker.Verdict found, Excluded.Outranks outranks, boolean add) {
    boolean keepNew = KeepDecision.keepsNew(outranks, found);
    boolean added = false;
    if (add && keepNew) {
      if (record.id() == null) {
        throw new IllegalArgumentException(
            "adding needs the id column '" + config.table().idColumn() + "' in each record");
      }
      if (!found.indexed()) { // else an earlier try of this add indexed it: not twice
        if (writable && !logOnly) {
          checker.add(record.id(), record.time(), record.fields(), found);
          addedSinceOpen++;
        } // else another process writes the indexes: logged only, added when it is done
        if (log == null) {
          log = AddLog.open(config.indexDir());
        }
        log.append(record);
        commits.added();
      }
      added = true;
      lastAddNanos = System.nanoTime();
    }
    return KeepDecision.verdict(record, found, keepNew, added);
  }

  /**
   * Returns once every record added before the call is durable: in the add log ({@link AddLog}),
   * fsynced. One caller syncs for all that wait (group commit): a sync takes every add made until
   * it starts, so concurrent callers share one fsync instead of queueing one each. The indexes
   * commit later ({@link #commitIndex}, {@link #close}); a crash before is made good by the log's
   * replay.
   */
  public void sync() {
    commits.sync();
  }

  private void syncLog() {
    AddLog current = log;
    if (current != null) {
      current.sync();
    }
  }

  /**
   * Commits the indexes when records were added since their last commit, then deletes the add log
   * files the commit covers; returns whether it committed. Adds and checks go on meanwhile (the log
   * is sealed under {@link #lock}, the commit runs outside it). The service calls it every second,
   * which bounds the log's replay after a crash.
   */
  public boolean commitIndex() {
    return commit(false);
  }

  /**
   * {@link #commitIndex}; with {@code handingOver}, adds stop going to the writer ({@link
   * #logOnly}) in the same turn of {@link #lock} as the seal, so that the commit holds every add it
   * took.
   */
  private boolean commit(boolean handingOver) {
    synchronized (committing) {
      List<Path> covered;
      lock.lock();
      try {
        if (checker == null || !writable) {
          return false;
        }
        if (!logOnly && log != null && !log.isEmpty()) {
          owed = log.seal(); // the records of these files are all in the writers now
        }
        logOnly |= handingOver && !options.writable();
        if (owed == null) {
          return false;
        }
        covered = owed; // until a commit succeeds (a failed one is tried again)
      } finally {
        lock.unlock();
      }
      lifecycle.readLock().lock();
      try {
        if (checker == null || !writable) {
          return false; // closed meanwhile, which committed and deleted the files
        }
        beforeCommit.run();
        checker.commit();
      } finally {
        lifecycle.readLock().unlock();
      }
      lock.lock();
      try {
        if (owed == covered) {
          owed = null;
        }
      } finally {
        lock.unlock();
      }
      AddLog.delete(covered);
      return true;
    }
  }

  /**
   * Why {@link #check} gives its verdict: each method's compared records (at most {@code limit}
   * each), never the record itself (a record with the id of an indexed one is not its own
   * candidate, as it is not its own twin).
   */
  public Explanation explain(Record record, int limit) {
    Explanation explanation;
    lock.lock();
    try {
      List<OnlineChecker.MethodExplanation> methods = new ArrayList<>();
      for (OnlineChecker.MethodExplanation method : checker.explain(record.fields(), limit + 1)) {
        List<MethodCheck.Candidate> others = new ArrayList<>();
        for (MethodCheck.Candidate candidate : method.candidates()) {
          if ((record.id() == null || candidate.id() != record.id()) && others.size() < limit) {
            others.add(candidate);
          }
        }
        methods.add(new OnlineChecker.MethodExplanation(method.method(), List.copyOf(others)));
      }
      explanation = new Explanation(verdict(record, false, null), List.copyOf(methods));
    } finally {
      lock.unlock();
    }
    onDurableRecord(explanation.verdict());
    return explanation;
  }

  /**
   * Reopens the checker on the last commit when another process (a run) committed since it opened,
   * or the marks beside the index were saved since ({@code dedup apart}, a restore); returns
   * whether it did. The new checker is opened beside the serving one, without {@link #lock}, and
   * swapped in under it: checks are answered from the last commit meanwhile, and no check ever
   * finds no checker or a half-loaded one. A writing checker is not reopened (it holds the write
   * lock: no one else commits); when this instance took the write lock while the new checker
   * opened, or another reopen swapped first, the new one is closed unused.
   */
  public boolean refreshIfChanged() {
    String served;
    lock.lock();
    try {
      if (writable || closed) {
        return false;
      }
      served = generations;
    } finally {
      lock.unlock();
    }
    if (OpenedChecker.generations(config.indexDir()).equals(served)) {
      return false;
    }
    return swapIn(
        OpenedChecker.open(config, options, false, false),
        () -> !writable && Objects.equals(served, generations),
        true);
  }

  /**
   * Serves from {@code opened}, a read-only checker opened beside the one serving, when {@code
   * stillDue} (asked under {@link #lock}) says nothing made it stale meanwhile; else closes it.
   * Returns whether it was swapped in.
   *
   * @param runCommitted whether another process (a run) committed: it reconciled the index with the
   *     table, so the adds answered before are judged again when retried
   */
  private boolean swapIn(OpenedChecker opened, BooleanSupplier stillDue, boolean runCommitted) {
    openedBeside.run();
    lock.lock();
    try {
      if (closed || !stillDue.getAsBoolean()) {
        discard(opened);
        return false;
      }
      install(opened, false);
      if (runCommitted) {
        answeredAdds.clear();
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Closes a checker opened for reading and never served. */
  private static void discard(OpenedChecker opened) {
    try {
      opened.checker().close();
    } finally {
      opened.index().close();
    }
  }

  /**
   * Gives back the indexes' write lock when nothing was added for {@code idleMillis} and every add
   * is committed (the filters are saved for the commit), and reads on without it; returns whether
   * it did. A run waiting for the lock can start then. The reading checker is opened beside the
   * writing one ({@link #readBesideWriter}); when an add comes meanwhile, the writer is kept.
   */
  public boolean releaseWriter(long idleMillis) {
    BooleanSupplier due =
        () ->
            writable
                && !options.writable()
                && (logOnly // a hand-over began, and the run that asked is gone
                    || System.nanoTime() - lastAddNanos
                        >= TimeUnit.MILLISECONDS.toNanos(idleMillis))
                && commits.idle();
    if (!lock.tryLock()) {
      return false;
    }
    try {
      if (!due.getAsBoolean()) {
        return false;
      }
    } finally {
      lock.unlock();
    }
    return readBesideWriter(due);
  }

  /**
   * Closes the writing checker and reads on, the reading checker opened beside it: opened on the
   * writer's last commit without {@link #lock}, then swapped in under it (closing the writer) when
   * {@code due} still holds and nothing was added since that commit; returns whether it was. Checks
   * are answered by the writing checker meanwhile, so they wait for the writer's close only, not
   * for the reading checker's open. The filters of the writer's last commit are not saved until its
   * close, so the reading checker builds them from the commit; the writer's close then makes a
   * commit of its own, which {@link #refreshIfChanged} opens beside in turn.
   */
  private boolean readBesideWriter(BooleanSupplier due) {
    OnlineChecker writing;
    long added;
    lock.lock();
    try {
      if (!due.getAsBoolean()
          || checker == null
          || owed != null
          || (!logOnly && log != null && !log.isEmpty())) {
        return false; // adds not committed yet: the next commitIndex commits them
      }
      writing = checker;
      added = addedSinceOpen;
    } finally {
      lock.unlock();
    }
    return swapIn(
        OpenedChecker.open(config, options, false, false),
        () -> checker == writing && addedSinceOpen == added && due.getAsBoolean(),
        false);
  }

  /**
   * Gives the indexes' write lock back at once when another process asks for it ({@link
   * IndexHandOver}: a run), committing what was added; returns whether it did. Until that process
   * is done, adds are logged only ({@link AddLog}: durable and answered as ever) and {@link
   * #addLogged} adds them to the index afterwards; so are the adds from its commit on ({@link
   * #logOnly}), so that the reading checker opened beside the writing one ({@link
   * #readBesideWriter}) holds every add the writer took and is swapped in though adds keep coming:
   * no request waits for the open. When that open fails, the writer is closed and the reader opened
   * in one turn of {@link #lock} instead.
   */
  public boolean handOverIfAsked() {
    if (!IndexHandOver.requested(config.indexDir())) {
      return false;
    }
    BooleanSupplier due = () -> writable && !options.writable();
    commit(true); // adds from here on are logged only: they join the index once the run is done
    boolean handedOver;
    try {
      handedOver = readBesideWriter(due);
    } catch (RuntimeException openFailed) { // closed and reopened in one turn below
      handedOver = false;
    }
    lock.lock();
    try {
      if (handedOver) {
        writerRetryNanos = System.nanoTime() + WRITER_RETRY_NANOS;
        return true;
      }
      if (!due.getAsBoolean()) {
        return false;
      }
      // The reader's open beside failed: closed and reopened in one turn, the run waiting.
      closeChecker();
      reopenForReading();
      writerRetryNanos = System.nanoTime() + WRITER_RETRY_NANOS;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Adds the records logged while another process held the indexes (or left by a crash) once the
   * write lock is free again: takes it, replays the log and commits; returns whether it did.
   */
  public boolean addLogged() {
    lock.lock();
    try {
      if (writable
          || options.writable()
          || !mayTakeWriter()
          || AddLog.pending(config.indexDir()).isEmpty()) {
        return false;
      }
      try {
        openChecker(true);
        return true;
      } catch (IndexBusyException busy) {
        writerRetryNanos = System.nanoTime() + WRITER_RETRY_NANOS;
        return false;
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Opens the checker for reading after the writing one was closed (the caller holds {@link
   * #lock}). The process that takes the lock may be writing its first commit and the filters beside
   * it right then, which can fail an open: it is tried again for up to about a second, so that the
   * checks do not find no checker.
   */
  private void reopenForReading() {
    for (int attempt = 1; ; attempt++) {
      try {
        openChecker(false);
        return;
      } catch (RuntimeException e) {
        if (attempt == 4) {
          throw e;
        }
        try {
          Thread.sleep(100L * attempt);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /** Runs {@code hook} each time a checker was opened beside the serving one, before the swap. */
  void whenOpenedBeside(Runnable hook) {
    openedBeside = hook;
  }

  /** Runs {@code hook} before each background commit ({@link #commitIndex}). */
  void beforeEachCommit(Runnable hook) {
    beforeCommit = hook;
  }

  /** Whether to try to take the write lock now (the caller holds {@link #lock}). */
  private boolean mayTakeWriter() {
    return System.nanoTime() - writerRetryNanos >= 0 && !IndexHandOver.requested(config.indexDir());
  }

  /** Group commits made so far (fewer than the {@link #add} calls when callers shared them). */
  public long commits() {
    return commits.commits();
  }

  /** Whether this instance holds the indexes' write lock now. */
  public boolean writing() {
    lock.lock();
    try {
      return writable;
    } finally {
      lock.unlock();
    }
  }

  /** Live records of the record index when the checker opened, plus those added since. */
  public long indexedRecords() {
    return indexedAtOpen + addedSinceOpen;
  }

  /** Each method's lookups, for a summary line. */
  public String counters() {
    lock.lock();
    try {
      return checker.counters();
    } finally {
      lock.unlock();
    }
  }

  /** Commits what was added (saving the filters for the commit) and closes the indexes. */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      closeChecker();
    } finally {
      if (log != null) {
        log.close(); // files left (adds logged while another process wrote) are replayed next time
      }
      lock.unlock();
    }
  }
}
