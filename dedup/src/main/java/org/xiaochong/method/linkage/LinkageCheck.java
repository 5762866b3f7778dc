package org.xiaochong.method.linkage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.xiaochong.index.DocumentMaker;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.method.Excluded;
import org.xiaochong.method.MethodCheck;
import org.xiaochong.method.PairEvidence;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * The linkage method's check: an incoming record repeats the candidate (of the linkage index, or of
 * this session's added records) with the highest match probability under the frozen model, when it
 * reaches {@code linkage.threshold}; of equally probable ones the one the keep policy prefers. The
 * candidates and the comparisons are the pass's ({@link CandidateFinder}, {@link ColumnKind}). It
 * answers pair by pair, so a record the pass would join only through a chain of links is new here.
 * Owns the index: {@link #close} closes it.
 *
 * <p>The probe is the record's compared values as their kinds compare them.
 */
final class LinkageCheck implements MethodCheck<String[]> {
  /** A record added in this stream (the reader does not see it). */
  private record Added(long id, long[] rank, String[] values) {}

  private final FingerprintIndex index;
  private final DirectoryReader reader;
  private final ColumnSet columns;
  private final LinkageModel model;
  private final LinkageSettings settings;
  private final KeepPolicy keepPolicy;
  private final List<String> recordColumns;
  private final int[] positions;
  private final String[][] values;
  private final long[] ids;
  private final CandidateFinder finder;
  private final BlockingKeys blocking;
  private final DocumentMaker maker;
  private final List<Added> session = new ArrayList<>();
  private final Map<String, List<Integer>> sessionKeys = new HashMap<>();
  private long lookups;
  private long added;

  /** Takes over {@code index} (closed by {@link #close}, and here on failure). */
  LinkageCheck(
      FingerprintIndex index,
      TableSpec spec,
      LinkageSettings settings,
      ColumnSet columns,
      LinkageModel model) {
    this.index = index;
    this.settings = settings;
    this.columns = columns;
    this.model = model;
    this.keepPolicy = spec.keepPolicy();
    this.recordColumns = spec.fingerprintColumns();
    this.positions = columns.positions(spec);
    try {
      this.reader = index.openReader();
    } catch (RuntimeException e) {
      index.close();
      throw e;
    }
    this.values = LinkageIndex.loadValues(reader.leaves(), reader.maxDoc(), columns.kinds().size());
    org.xiaochong.pass.IndexSnapshot snapshot = new org.xiaochong.pass.IndexSnapshot(reader);
    this.ids = new long[Math.max(1, reader.maxDoc())];
    for (int doc = 0; doc < reader.maxDoc(); doc++) {
      ids[doc] = snapshot.id(doc);
    }
    this.finder =
        new CandidateFinder(
            reader.leaves(),
            ids,
            reader.numDocs(),
            columns.kinds(),
            settings.maxHolders(),
            settings.candidates());
    this.blocking = new BlockingKeys(columns.kinds());
    this.maker =
        LinkageIndex.maker(
            columns.kinds(), columns.positions(spec), keepPolicy, spec.fingerprintColumns());
  }

  @Override
  public String name() {
    return LinkageMethod.NAME;
  }

  @Override
  public String[] probe(Map<String, String> fields) {
    return LinkageIndex.values(record(0, SourceRecord.NULL_TIME, fields), positions, kinds());
  }

  private List<ColumnKind> kinds() {
    return columns.kinds();
  }

  private SourceRecord record(long id, long regTime, Map<String, String> fields) {
    return SourceRecord.ofFields(id, regTime, recordColumns, fields);
  }

  @Override
  public Match find(String[] probe) {
    return find(probe, Excluded.none());
  }

  /**
   * The most probable match at or above the threshold other than the incoming record itself, or
   * null when there is none or it is marked apart from the incoming record (a person rejected the
   * closest match, as in the pass).
   */
  @Override
  public Match find(String[] probe, Excluded excluded) {
    lookups++;
    for (Scored best : scored(probe)) {
      if (excluded.isSelf(best.id)) {
        continue;
      }
      return best.probability >= settings.threshold() && !excluded.markedApart(best.id)
          ? new Match(best.id, best.rank, best.probability)
          : null;
    }
    return null;
  }

  /** A candidate with its levels and match probability. */
  private record Scored(long id, long[] rank, int[] levels, double probability) {}

  /** Every candidate of the probe, the most probable first (ties: the keep policy's choice). */
  private List<Scored> scored(String[] probe) {
    List<Scored> scored = new ArrayList<>();
    int[] found = new int[settings.candidates()];
    try {
      List<LeafReaderContext> leaves = reader.leaves();
      int n = finder.find(-1, Long.MAX_VALUE, probe, found);
      for (int i = 0; i < n; i++) {
        int doc = found[i];
        if (values[doc] == null) {
          continue;
        }
        int[] levels = ColumnKind.levels(kinds(), probe, values[doc]);
        scored.add(
            new Scored(
                ids[doc],
                IndexSchema.rank(leaves, doc, keepPolicy),
                levels,
                model.probability(levels)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (String key : blocking.keys(probe)) {
      for (int s : sessionKeys.getOrDefault(key, List.of())) {
        if (seen.add(s)) {
          Added a = session.get(s);
          int[] levels = ColumnKind.levels(kinds(), probe, a.values());
          scored.add(new Scored(a.id(), a.rank(), levels, model.probability(levels)));
        }
      }
    }
    scored.sort(
        (a, b) -> {
          int byProbability = Double.compare(b.probability, a.probability);
          if (byProbability != 0) {
            return byProbability;
          }
          return KeepPolicy.isPreferred(a.rank, a.id, b.rank, b.id) ? -1 : 1;
        });
    return scored;
  }

  /**
   * The candidates, the most probable first: {@code duplicate} or {@code probability} (below the
   * threshold), followed by each column's level and weight, e.g. {@code duplicate: surname exact
   * +2.4, date_of_birth one edit or day/month swapped +0.3, …}.
   */
  @Override
  public List<Candidate> explain(String[] probe, int limit) {
    List<Candidate> candidates = new ArrayList<>();
    for (Scored s : scored(probe)) {
      if (candidates.size() >= limit) {
        break;
      }
      candidates.add(
          new Candidate(
              s.id,
              s.probability,
              shared(probe, s.levels),
              (s.probability >= settings.threshold() ? Candidate.DUPLICATE : "probability")
                  + ": "
                  + why(s.levels)));
    }
    return candidates;
  }

  private static int shared(String[] probe, int[] levels) {
    int agreeing = 0;
    for (int level : levels) {
      agreeing += level > 0 ? 1 : 0;
    }
    return agreeing;
  }

  /** Each column's level and weight, as a match-weight chart lists them. */
  String why(int[] levels) {
    StringBuilder why = new StringBuilder();
    for (PairEvidence.Column column : model.chart(levels).columns()) {
      why.append(why.isEmpty() ? "" : ", ")
          .append(column.column())
          .append(' ')
          .append(column.level())
          .append(String.format(Locale.ROOT, " %+.1f", column.weight()));
    }
    return why.toString();
  }

  @Override
  public void add(long id, long regTime, Map<String, String> record, String[] probe) {
    long[] rank = keepPolicy.rank(regTime, record);
    index.addDocument(maker.make(record(id, regTime, record)));
    int s = session.size();
    session.add(new Added(id, rank, probe));
    for (String key : blocking.keys(probe)) {
      sessionKeys.computeIfAbsent(key, k -> new ArrayList<>()).add(s);
    }
    added++;
  }

  @Override
  public void commit() {
    index.commit();
  }

  @Override
  public String counters() {
    return String.format(Locale.ROOT, "linkage: %,d records looked up", lookups);
  }

  @Override
  public void close() {
    try {
      if (added > 0) {
        index.commit();
      }
      reader.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      index.close();
    }
  }
}
