package org.xiaochong.check;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.fingerprint.ExactKey;
import org.xiaochong.fingerprint.Fingerprints;
import org.xiaochong.fingerprint.NearConfig;
import org.xiaochong.fingerprint.NearOutcome;
import org.xiaochong.fingerprint.NearSimilarity;
import org.xiaochong.fingerprint.TopTermsMd5;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.index.NearDocumentMaker;
import org.xiaochong.index.NearSchema;
import org.xiaochong.index.TermHolders;
import org.xiaochong.pass.IndexedNearKeys;
import org.xiaochong.pass.NearRule;
import org.xiaochong.policy.KeepLatestPolicy;
import org.xiaochong.prefilter.ExactKeyFilter;
import org.xiaochong.prefilter.FilterFile;
import org.xiaochong.prefilter.NearKeyFilter;
import org.xiaochong.prefilter.PrefilterSettings;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * Checks incoming records against the indexes before they are stored: the online form of the exact
 * and near passes, for ingestion. A record is {@code exact} when a record of the index has its exact
 * key, else {@code near} when a record of the near index is its near duplicate by the rule of the near
 * pass ({@link NearRule}), else {@code new}. The counting Bloom filters answer "certainly absent" for
 * most keys of new records without touching the index: the exact filter before the md5 lookup, the near
 * filter before each near key's lookup. With {@link #add} a new record joins both indexes and filters,
 * so later records of the same stream are checked against it; the next {@code dedup run} reconciles
 * the indexes with the table (ids that never reached the table are dropped then).
 *
 * <pre>{@code
 * try (OnlineChecker checker = OnlineChecker.open(index, nearIndex, spec, NearConfig.defaults(),
 *     PrefilterSettings.DEFAULT, System.err::println)) {
 *   OnlineChecker.Verdict v = checker.check(Map.of("title", "供应红富士苹果", "phone", "138 0013 8000"));
 *   if (v.isNew()) checker.add(42L, System.currentTimeMillis(), v);
 * }
 * }</pre>
 *
 * Not thread-safe: one instance per stream. It holds the indexes' write locks while open.
 */
public final class OnlineChecker implements Closeable {
  /**
   * The answer for one record: {@code new}, {@code exact} or {@code near} with the id of the record it
   * repeats and the similarity (1.0 for exact; the near rule's weighted similarity for near).
   *
   * @param md5 the record's exact key
   * @param near the record's near fingerprints (null when not computed: exact verdicts, no near index)
   */
  public record Verdict(String verdict, Long keptId, double score, byte[] md5, NearPost near) {
    public boolean isNew() {
      return verdict.equals("new");
    }
  }

  /** A record's near fingerprints and its fields.must-match keys, as the near index stores them. */
  public record NearPost(Fingerprints fingerprints, long[] matchKeys) {}

  private final FingerprintIndex index;
  private final TableSpec spec;
  private final ExactKey exactKey;
  private final ExactKeyFilter filter;
  private final DirectoryReader reader;
  private final TermHolders md5Holders;
  /** Keys added in this session (the reader does not see them): key → (id, time). */
  private final Map<BytesRef, long[]> added = new HashMap<>();
  private final NearChecker near;
  private long indexLookups;

  private OnlineChecker(FingerprintIndex index, TableSpec spec, ExactKeyFilter filter, DirectoryReader reader,
      NearChecker near) {
    this.index = index;
    this.spec = spec;
    this.exactKey = new ExactKey(spec.exactFields(), spec.phoneFields());
    this.filter = filter;
    this.reader = reader;
    this.near = near;
    try {
      this.md5Holders = new TermHolders(reader.leaves(), IndexSchema.MD5);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A checker of exact verdicts only (no near index). */
  public static OnlineChecker open(FingerprintIndex index, TableSpec spec, PrefilterSettings settings,
      java.util.function.Consumer<String> notes) {
    return open(index, null, spec, null, settings, notes);
  }

  /**
   * Opens a checker over the index and, when {@code nearIndex} is not null, the near index (their
   * prefilter snapshots are loaded, or rebuilt from the indexes).
   *
   * @param nearConfig the near settings the near index was built with ({@code near.*}); unused without it
   */
  public static OnlineChecker open(FingerprintIndex index, FingerprintIndex nearIndex, TableSpec spec,
      NearConfig nearConfig, PrefilterSettings settings, java.util.function.Consumer<String> notes) {
    DirectoryReader reader = index.openReader();
    ExactKeyFilter filter = settings.enabled()
        ? ExactKeyFilter.KIND.openOrRebuild(filterDir(index), index.commitGeneration(), reader,
            settings.countersPerKey(), settings.hashes(), notes)
        : null;
    NearChecker near = null;
    if (nearIndex != null) {
      DirectoryReader nearReader = nearIndex.openReader();
      NearKeyFilter nearFilter = settings.enabled()
          ? NearKeyFilter.KIND.openOrRebuild(filterDir(index), nearIndex.commitGeneration(),
              nearReader, settings.countersPerKey(), settings.hashes(), notes)
          : null;
      near = new NearChecker(nearIndex, nearReader, nearFilter, spec, nearConfig);
    }
    return new OnlineChecker(index, spec, filter, reader, near);
  }

  private static java.nio.file.Path filterDir(FingerprintIndex index) {
    return index.path().resolve(FilterFile.DIR);
  }

  /** Checks one record given as column → value (columns in neither fields.exact nor fields.near are ignored). */
  public Verdict check(Map<String, String> fields) {
    List<String> names = spec.exactFields();
    String[] values = new String[names.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = fields.get(names.get(i));
    }
    byte[] md5 = exactKey.compute(values);
    BytesRef key = new BytesRef(md5);
    long[] sameSession = added.get(key);
    if (sameSession != null) {
      return new Verdict("exact", sameSession[0], 1.0, md5, null);
    }
    if (filter == null || filter.mightContain(md5)) {
      indexLookups++;
      Long kept = latestWithKey(key);
      if (kept != null) {
        return new Verdict("exact", kept, 1.0, md5, null);
      }
    }
    if (near == null) {
      return new Verdict("new", null, 0.0, md5, null);
    }
    NearPost fingerprints = near.fingerprint(fields);
    NearChecker.Match match = near.find(fingerprints);
    return match == null
        ? new Verdict("new", null, 0.0, md5, fingerprints)
        : new Verdict("near", match.id(), match.similarity(), md5, fingerprints);
  }

  /** Adds a record judged new to the indexes and the filters. */
  public void add(long id, long regTime, Verdict verdict) {
    index.add(id, regTime, verdict.md5());
    if (filter != null) {
      filter.added(verdict.md5());
    }
    added.put(new BytesRef(verdict.md5()), new long[] {id, regTime});
    if (near != null && verdict.near() != null) {
      near.add(id, regTime, verdict.near());
    }
  }

  /** The id of the latest record (KeepLatestPolicy) in the index with this key, or null. */
  private Long latestWithKey(BytesRef key) {
    long bestId = 0;
    long bestTime = 0;
    boolean found = false;
    try {
      List<LeafReaderContext> leaves = reader.leaves();
      int segment = -1;
      NumericDocValues ids = null;
      NumericDocValues times = null;
      for (int g = md5Holders.first(key); g != TermHolders.NO_MORE_DOCS; g = md5Holders.next()) {
        if (md5Holders.segment() != segment) { // doc values are forward-only: fresh ones per segment
          segment = md5Holders.segment();
          ids = leaves.get(segment).reader().getNumericDocValues(IndexSchema.ID);
          times = leaves.get(segment).reader().getNumericDocValues(IndexSchema.REG_TIME);
        }
        int doc = g - leaves.get(segment).docBase;
        if (!ids.advanceExact(doc)) {
          continue;
        }
        long time = times.advanceExact(doc) ? times.longValue() : SourceRecord.NULL_TIME;
        long id = ids.longValue();
        if (!found || KeepLatestPolicy.isPreferred(time, id, bestTime, bestId)) {
          bestId = id;
          bestTime = time;
          found = true;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found ? bestId : null;
  }

  /** Exact-key lookups in the index (those the filter did not skip). */
  public long indexLookups() {
    return indexLookups;
  }

  /** Exact-key lookups the filter skipped. */
  public long filterSkipped() {
    return filter == null ? 0 : filter.skipped();
  }

  /** Near-key lookups in the near index's term dictionary (0 without a near index). */
  public long nearLookups() {
    return near == null ? 0 : near.lookups;
  }

  /** Near-key lookups the near filter skipped (the key is certainly held by no record). */
  public long nearSkipped() {
    return near == null || near.filter == null ? 0 : near.filter.skipped();
  }

  /** Commits added records (and saves the filters for the new index generations). */
  @Override
  public void close() {
    try {
      if (!added.isEmpty()) {
        index.commit();
        if (filter != null) {
          filter.save(filterDir(index), index.commitGeneration());
        }
        if (near != null) {
          near.commit(filterDir(index));
        }
      }
      reader.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (near != null) {
        near.close();
      }
    }
  }

  /**
   * The near side: fingerprints as the indexer makes them ({@link NearDocumentMaker}), candidates by
   * the near pass's candidate keys, the decision of {@link NearRule}. Records added in this session
   * are held in memory (the reader does not see them) and take part like indexed ones.
   */
  private static final class NearChecker {
    record Match(long id, double similarity) {}

    /** A record added in this session. */
    private record Added(long id, long time, NearRule.Stored keys) {}

    private final FingerprintIndex nearIndex;
    private final DirectoryReader reader;
    private final List<LeafReaderContext> leaves;
    private final TermHolders keyHolders;
    private final NearKeyFilter filter;
    private final NearConfig config;
    private final TopTermsMd5 fingerprinter;
    private final NearDocumentMaker maker;
    private final List<String> columns;
    private final List<Added> session = new ArrayList<>();
    /** Near key → indexes into {@link #session} of the added records holding it. */
    private final Map<Long, List<Integer>> sessionHolders = new HashMap<>();
    private long lookups;

    NearChecker(FingerprintIndex nearIndex, DirectoryReader reader, NearKeyFilter filter, TableSpec spec,
        NearConfig config) {
      this.nearIndex = nearIndex;
      this.reader = reader;
      this.leaves = reader.leaves();
      this.filter = filter;
      this.config = config;
      this.fingerprinter = new TopTermsMd5(config);
      this.maker = new NearDocumentMaker(spec, fingerprinter);
      this.columns = spec.fingerprintColumns();
      try {
        this.keyHolders = new TermHolders(leaves, NearSchema.KEY);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    NearPost fingerprint(Map<String, String> fields) {
      String[] values = new String[columns.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = fields.get(columns.get(i));
      }
      SourceRecord record = new SourceRecord(0, SourceRecord.NULL_TIME, values);
      return new NearPost(maker.fingerprint(record), maker.matchKeys(record));
    }

    /** The most similar near duplicate (ties: the newer), or null. */
    Match find(NearPost post) {
      Fingerprints fingerprints = post.fingerprints();
      if (fingerprints.outcome() != NearOutcome.OK) {
        return null; // no keys: only the exact check applies (as in the pass)
      }
      NearRule.Stored record = NearRule.Stored.of(fingerprints, config.pre(), post.matchKeys());
      long[] keys = record.keys();
      int[] holders = new int[keys.length];
      try {
        for (int i = 0; i < keys.length; i++) {
          holders[i] = sessionHolders.getOrDefault(keys[i], List.of()).size() + documentFrequency(keys[i]);
        }
        long[] candidateKeys = NearRule.candidateKeys(record, key -> holders[Arrays.binarySearch(keys, key)], 1,
            config.pre());
        // Key weights as in the pass: the idf of each key among the indexed and added records, the
        // record itself counted in (the pass's record is in its index). Keys of a candidate the record
        // lacks are looked up once each.
        long records = reader.maxDoc() + session.size() + 1;
        Map<Long, Double> weights = new HashMap<>();
        java.util.function.LongToDoubleFunction weight = key -> weights.computeIfAbsent(key, k -> {
          int at = Arrays.binarySearch(keys, k);
          long df = at >= 0 ? holders[at] + 1L : sessionHolders.getOrDefault(k, List.of()).size() + indexFrequency(k);
          return NearSimilarity.idf(df, records);
        });
        Set<Integer> docs = new LinkedHashSet<>();
        Set<Integer> added = new LinkedHashSet<>();
        for (long key : candidateKeys) {
          if (NearRule.stopBefore(holders[Arrays.binarySearch(keys, key)], docs.size() + added.size())) {
            break;
          }
          collectHolders(key, docs);
          added.addAll(sessionHolders.getOrDefault(key, List.of()));
        }
        Match best = null;
        long bestTime = 0;
        for (int doc : docs) {
          NearRule.Keys candidate = IndexedNearKeys.of(leaves, doc);
          LeafReaderContext leaf = leaves.get(org.apache.lucene.index.ReaderUtil.subIndex(doc, leaves));
          long id = numeric(leaf, IndexSchema.ID, doc - leaf.docBase, 0);
          long time = numeric(leaf, IndexSchema.REG_TIME, doc - leaf.docBase, SourceRecord.NULL_TIME);
          if (NearRule.isNearDuplicate(record, candidate, config, weight)) {
            double similarity = NearRule.similarity(record, candidate, weight);
            if (best == null || NearRule.isBetter(similarity, time, id, best.similarity(), bestTime, best.id())) {
              best = new Match(id, similarity);
              bestTime = time;
            }
          }
        }
        for (int s : added) {
          Added candidate = session.get(s);
          if (NearRule.isNearDuplicate(record, candidate.keys(), config, weight)) {
            double similarity = NearRule.similarity(record, candidate.keys(), weight);
            if (best == null || NearRule.isBetter(similarity, candidate.time(), candidate.id(), best.similarity(),
                bestTime, best.id())) {
              best = new Match(candidate.id(), similarity);
              bestTime = candidate.time();
            }
          }
        }
        return best;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Records of the index holding the key (deleted ones included: it only ranks keys); 0 when the filter rules it out. */
    private int documentFrequency(long key) throws IOException {
      if (filter != null && !filter.mightContain(key)) {
        return 0; // certainly held by no record: no lookup
      }
      lookups++;
      return keyHolders.docFreq(NearSchema.keyBytes(key));
    }

    /** Records of the index holding the key, without the filter (a candidate's key). */
    private int indexFrequency(long key) {
      try {
        return keyHolders.docFreq(NearSchema.keyBytes(key));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Adds the live documents holding {@code key} to {@code docs} (global ids, no repeats). */
    private void collectHolders(long key, Set<Integer> docs) throws IOException {
      BytesRef term = NearSchema.keyBytes(key);
      for (int doc = keyHolders.first(term); doc != TermHolders.NO_MORE_DOCS; doc = keyHolders.next()) {
        docs.add(doc);
      }
    }

    private static long numeric(LeafReaderContext leaf, String field, int doc, long missing) throws IOException {
      NumericDocValues values = leaf.reader().getNumericDocValues(field);
      return values != null && values.advanceExact(doc) ? values.longValue() : missing;
    }

    void add(long id, long regTime, NearPost post) {
      Fingerprints fingerprints = post.fingerprints();
      nearIndex.addDocument(NearSchema.document(id, regTime, fingerprints, config.pre(), post.matchKeys()));
      if (fingerprints.outcome() != NearOutcome.OK) {
        return;
      }
      NearRule.Stored keys = NearRule.Stored.of(fingerprints, config.pre(), post.matchKeys());
      for (long key : keys.keys()) {
        List<Integer> holders = sessionHolders.computeIfAbsent(key, k -> new ArrayList<>());
        if (filter != null) {
          filter.addedNearKey(key, keyHolders, !holders.isEmpty());
        }
        holders.add(session.size());
      }
      session.add(new Added(id, regTime, keys));
    }

    void commit(java.nio.file.Path filterDir) {
      nearIndex.commit();
      if (filter != null) {
        filter.save(filterDir, nearIndex.commitGeneration());
      }
    }

    void close() {
      try {
        reader.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } finally {
        fingerprinter.close();
      }
    }
  }
}
