package org.xiaochong.check;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.apache.lucene.util.IOUtils;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.method.Excluded;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.MethodCheck;
import org.xiaochong.method.MethodContext;

/**
 * Checks incoming records against what runs built, before they are stored: the online form of the
 * passes, for ingestion. The methods' checks ({@link MethodCheck}) are asked in the order given;
 * the first that finds the record's twin gives the verdict (its name, the id of the record it
 * repeats and the score); a record none of them finds is {@code new}. A method computes a record's
 * keys only when the methods before it found the record new, so an exact copy costs no
 * segmentation.
 *
 * <p>With {@link #add} a new record joins every method's index and filter, so later records of the
 * same stream are checked against it; the next {@code dedup run} reconciles the indexes with the
 * table (ids that never reached the table are dropped then).
 *
 * <pre>{@code
 * DedupConfig config = DedupConfig.load(Path.of("my.properties"), System.getenv());
 * try (FingerprintIndex index = FingerprintIndex.open(config.indexDir(), config.fieldsDigest(), false);
 *     OnlineChecker checker = OnlineChecker.open(FingerprintMethods.known(),
 *         config.methodContext(index, System.err::println), true)) {
 *   OnlineChecker.Verdict v = checker.check(Map.of("title", "供应红富士苹果", "phone", "138 0013 8000"));
 *   if (v.isNew()) checker.add(42L, System.currentTimeMillis(), v);
 * }
 * }</pre>
 *
 * Not thread-safe: one instance per stream. It owns the checks: {@link #close} closes them.
 */
public final class OnlineChecker implements AutoCloseable {
  /** The verdict of a record no method finds. */
  public static final String NEW = "new";

  /**
   * The answer for one record.
   *
   * @param verdict {@link #NEW} or the name of the method that found its twin
   * @param keptId the id of the record it repeats (null when new)
   * @param keptRank that record's keep rank ({@code KeepPolicy#rank}; empty when new), for the keep
   *     policy to weigh the incoming record against it
   * @param score 1.0 for an exact copy, the method's similarity for the others, 0 when new
   * @param probes each method's keys of the record, for {@link #add} (all of them when new; those
   *     of the methods asked until one found its twin otherwise)
   * @param heldBy the checks that met the record's own id among their candidates: their indexes
   *     hold it already (an add retried, a replay), and {@link #add} does not add it to them again
   * @param indexed whether every method's index holds it already: then it is not added at all
   */
  public record Verdict(
      String verdict,
      Long keptId,
      long[] keptRank,
      double score,
      List<Probed<?>> probes,
      List<MethodCheck<?>> heldBy,
      boolean indexed) {
    public boolean isNew() {
      return verdict.equals(NEW);
    }
  }

  /**
   * A record's keys for one method.
   *
   * @param record the record's columns: {@link #add} ranks it by the keep policy's columns among
   *     them
   */
  public record Probed<P>(MethodCheck<P> check, P probe, Map<String, String> record) {
    MethodCheck.Match find(Excluded excluded) {
      return check.find(probe, excluded);
    }

    void add(long id, long regTime) {
      check.add(id, regTime, record, probe);
    }
  }

  private final List<MethodCheck<?>> checks;
  private final ApartPairs apart;

  /** A checker asking {@code checks} in this order; it takes them over (closes them). */
  public OnlineChecker(List<MethodCheck<?>> checks) {
    this(checks, ApartPairs.NONE);
  }

  /**
   * @param apart pairs marked as not duplicates: a record given with its id never repeats one it is
   *     marked apart from
   */
  public OnlineChecker(List<MethodCheck<?>> checks, ApartPairs apart) {
    this.checks = List.copyOf(checks);
    this.apart = apart;
  }

  /**
   * A checker asking, in this order, each of {@code methods} that a run has built something for
   * ({@link FingerprintMethod#openCheck}); the others are left out ({@link #methods} says which
   * were asked).
   *
   * @param context the record index (read-only, or writable for {@link #add}), the settings and the
   *     marks ({@link MethodContext#apart()})
   * @param writable whether records will be added: the methods' indexes are opened with their write
   *     locks, held until {@link #close}
   */
  public static OnlineChecker open(
      List<FingerprintMethod> methods, MethodContext context, boolean writable) {
    List<MethodCheck<?>> checks = new ArrayList<>();
    try {
      for (FingerprintMethod method : methods) {
        method.openCheck(context, writable).ifPresent(checks::add);
      }
    } catch (RuntimeException e) {
      new OnlineChecker(checks).closeAfter(e);
      throw e;
    }
    return new OnlineChecker(checks, context.apart());
  }

  /** The names of the methods asked, in order. */
  public List<String> methods() {
    return checks.stream().map(MethodCheck::name).toList();
  }

  /** Checks one record given as column → value (columns no method reads are ignored). */
  public Verdict check(Map<String, String> fields) {
    return check(null, fields);
  }

  /**
   * Checks one record with its id, when it has one: the record of that id is never its twin (it is
   * the record itself, e.g. added by an earlier try of the same add), nor is a record it is marked
   * apart from ({@code dedup apart}), so a record whose only twins are marked is new. A record
   * without an id (not stored yet) can have no marks.
   */
  public Verdict check(Long id, Map<String, String> fields) {
    return check(id, fields, null);
  }

  /** Key computers and index cursors for one other thread. */
  ThreadProbers newProbers() {
    return new ThreadProbers(this, checks);
  }

  /**
   * As {@link #check(Long, Map)}, with the keys {@link ThreadProbers#probe} of this checker
   * computed (null: none, or null entries: computed here). The verdict is the same either way.
   */
  public Verdict check(Long id, Map<String, String> fields, Object[] precomputed) {
    return check(id, fields, precomputed, null, null);
  }

  /**
   * As {@link #check(Long, Map, Object[])}, answering as a run decides when {@code outranks} is
   * given. A run's methods decide in turn, each among the records the ones before it kept: a record
   * the keep policy keeps over the first twin found survives that method, and a later method may
   * still join it to a record the policy prefers, and then removes it. So when the record outranks
   * the first twin, the methods from that one on are asked in order for a twin among those that
   * outrank the record ({@link Excluded#onlyOutranking}; the method that found the first twin only
   * when it can pass over the others, {@link MethodCheck#findsAmongOutranking}), and the first
   * found gives the verdict; without one, the first twin stands.
   *
   * @param outranks whether the keep policy prefers a record (id, keep rank) over the incoming one,
   *     or null to answer with the first twin found
   */
  public Verdict check(
      Long id, Map<String, String> fields, Object[] precomputed, Excluded.Outranks outranks) {
    return check(id, fields, precomputed, null, outranks);
  }

  /**
   * As {@link #check(Long, Map, Object[], Excluded.Outranks)}, each method finding with {@code
   * finders}' cursor of the same index (one per check, in order), or with its own when {@code
   * finders} is null.
   */
  Verdict check(
      Long id,
      Map<String, String> fields,
      Object[] precomputed,
      List<MethodCheck.Finder<?>> finders,
      Excluded.Outranks outranks) {
    java.util.function.LongPredicate marked = markedApart(id);
    List<Probed<?>> probes = new ArrayList<>(checks.size());
    // Per method: the indexes commit one after the other, so after a crash one may hold the record
    // and another not.
    List<MethodCheck<?>> heldBy = new ArrayList<>();
    for (int i = 0; i < checks.size(); i++) {
      MethodCheck<?> check = checks.get(i);
      Excluded excluded =
          outranks == null ? Excluded.of(id, marked) : Excluded.of(id, marked).rankedBy(outranks);
      Probed<?> probed = probed(i, fields, precomputed);
      probes.add(probed);
      MethodCheck.Match match = find(i, probed, excluded, finders);
      if (excluded.selfSeen()) {
        heldBy.add(check);
      }
      if (match != null) {
        if (outranks != null && !outranks.test(match.id(), match.rank())) {
          return laterTwin(i, match, id, fields, precomputed, finders, outranks, probes, heldBy);
        }
        return verdict(check.name(), match, probes, heldBy);
      }
    }
    return verdict(NEW, null, probes, heldBy);
  }

  /**
   * The rest of {@link #check(Long, Map, Object[], List, Excluded.Outranks)} for a record that
   * outranks {@code first}, the twin method {@code at} found.
   */
  private Verdict laterTwin(
      int at,
      MethodCheck.Match first,
      Long id,
      Map<String, String> fields,
      Object[] precomputed,
      List<MethodCheck.Finder<?>> finders,
      Excluded.Outranks outranks,
      List<Probed<?>> probes,
      List<MethodCheck<?>> heldBy) {
    java.util.function.LongPredicate marked = markedApart(id);
    int from = checks.get(at).findsAmongOutranking() ? at : at + 1;
    for (int i = from; i < checks.size(); i++) {
      MethodCheck<?> check = checks.get(i);
      Excluded excluded = Excluded.of(id, marked).onlyOutranking(outranks);
      Probed<?> probed = i == at ? probes.get(at) : probed(i, fields, precomputed);
      if (i > at) {
        probes.add(probed);
      }
      MethodCheck.Match match = find(i, probed, excluded, finders);
      if (excluded.selfSeen() && !heldBy.contains(check)) {
        heldBy.add(check);
      }
      if (match != null && outranks.test(match.id(), match.rank())) {
        return verdict(check.name(), match, probes, heldBy);
      }
    }
    return verdict(checks.get(at).name(), first, probes, heldBy);
  }

  /** Method {@code i}'s keys of the record: computed ahead, or now. */
  private Probed<?> probed(int i, Map<String, String> fields, Object[] precomputed) {
    return precomputed == null || precomputed[i] == null
        ? probe(checks.get(i), fields)
        : probed(checks.get(i), precomputed[i], fields);
  }

  /** Method {@code i}'s twin: with this thread's cursor when {@code finders} is given. */
  private static MethodCheck.Match find(
      int i, Probed<?> probed, Excluded excluded, List<MethodCheck.Finder<?>> finders) {
    return finders == null ? probed.find(excluded) : find(finders.get(i), probed.probe(), excluded);
  }

  /** The verdict of {@code method} with its twin {@code match} (null: new). */
  private Verdict verdict(
      String method, MethodCheck.Match match, List<Probed<?>> probes, List<MethodCheck<?>> heldBy) {
    return new Verdict(
        method,
        match == null ? null : match.id(),
        match == null ? new long[0] : match.rank(),
        match == null ? 0.0 : match.score(),
        List.copyOf(probes),
        List.copyOf(heldBy),
        heldBy.size() == checks.size());
  }

  /** What one method compared a record with ({@link MethodCheck#explain}). */
  public record MethodExplanation(String method, List<MethodCheck.Candidate> candidates) {}

  /**
   * Why {@link #check} gives its verdict: for every method, the records it compared the record with
   * (at most {@code limit} each, the most similar first) and the rule's outcome for each. Every
   * method is asked, also those after the one that gives the verdict.
   */
  public List<MethodExplanation> explain(Map<String, String> fields, int limit) {
    List<MethodExplanation> methods = new ArrayList<>(checks.size());
    for (MethodCheck<?> check : checks) {
      methods.add(new MethodExplanation(check.name(), explain(check, fields, limit)));
    }
    return methods;
  }

  private static <P> List<MethodCheck.Candidate> explain(
      MethodCheck<P> check, Map<String, String> fields, int limit) {
    return check.explain(check.probe(fields), limit);
  }

  /** Whether the record {@code id} is marked apart from another (none without an id). */
  private java.util.function.LongPredicate markedApart(Long id) {
    return id == null || apart.isEmpty() ? other -> false : other -> apart.keepsApart(id, other);
  }

  @SuppressWarnings("unchecked") // the finder of the check whose prober (or probe) made the probe
  private static <P> MethodCheck.Match find(
      MethodCheck.Finder<P> finder, Object probe, Excluded excluded) {
    return finder.find((P) probe, excluded);
  }

  @SuppressWarnings("unchecked") // a ThreadProbers of this checker made it with this check's prober
  private static <P> Probed<P> probed(
      MethodCheck<P> check, Object probe, Map<String, String> fields) {
    return new Probed<>(check, (P) probe, fields);
  }

  private static <P> Probed<P> probe(MethodCheck<P> check, Map<String, String> fields) {
    return new Probed<>(check, check.probe(fields), fields);
  }

  /** Adds a record judged new to every method's index and filter. */
  public void add(long id, long regTime, Verdict verdict) {
    if (!verdict.isNew()) {
      throw new IllegalArgumentException(
          "only a new record is added, not a " + verdict.verdict() + " one");
    }
    for (Probed<?> probed : verdict.probes()) {
      if (!verdict.heldBy().contains(probed.check())) {
        probed.add(id, regTime);
      }
    }
  }

  /**
   * Adds a record whatever its verdict: a new one, or a duplicate the keep policy keeps over its
   * twin (the twin is superseded; the next run removes it), to every method whose index does not
   * hold it yet ({@link Verdict#heldBy}). The methods the verdict did not ask compute the record's
   * keys from {@code fields} now.
   */
  public void add(long id, long regTime, Map<String, String> fields, Verdict verdict) {
    for (MethodCheck<?> check : checks) {
      if (verdict.heldBy().contains(check)) {
        continue; // its index holds the record already
      }
      Probed<?> probed =
          verdict.probes().stream()
              .filter(p -> p.check() == check)
              .findFirst()
              .orElseGet(() -> probe(check, fields));
      probed.add(id, regTime);
    }
  }

  /**
   * Makes every record added so far durable (each method's index commits; {@link
   * MethodCheck#commit}). May run on another thread while one checks and adds.
   */
  public void commit() {
    for (MethodCheck<?> check : checks) {
      check.commit();
    }
  }

  /** Each method's lookups, for the summary line: {@code exact keys: … ; near keys: …}. */
  public String counters() {
    StringJoiner line = new StringJoiner("; ");
    checks.forEach(check -> line.add(check.counters()));
    return line.toString();
  }

  /** Closes every check after {@code failure}, adding their own failures to it. */
  public void closeAfter(RuntimeException failure) {
    try {
      close();
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Closes every check (committing what was added), the first failure thrown after all were tried.
   */
  @Override
  public void close() {
    try {
      IOUtils.close(checks);
    } catch (IOException e) { // the checks throw none: Lucene's close declares it
      throw new UncheckedIOException(e);
    }
  }
}
