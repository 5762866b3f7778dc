package org.xiaochong.method.near;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.fingerprint.Evidence;
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
import org.xiaochong.method.MethodCheck;
import org.xiaochong.prefilter.FilterFile;
import org.xiaochong.prefilter.PrefilterSettings;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * The near method's check: fingerprints as the indexer makes them ({@link NearDocumentMaker}),
 * candidates by the near pass's candidate keys, the decision of {@link NearRule}; the match is the
 * most similar near duplicate (ties: the one the keep policy prefers). The counting filter of the
 * near keys answers "certainly absent" for most keys of new records without a lookup. Records added
 * in this session are held in memory (the reader does not see them) and take part like indexed
 * ones. Owns the near index: {@link #close} closes it.
 */
final class NearCheck implements MethodCheck<NearCheck.Post> {
  /**
   * A record's near fingerprints, its fields.must-match keys and its evidence, as the near index
   * stores them.
   */
  record Post(Fingerprints fingerprints, long[] matchKeys, Evidence evidence) {}

  /** A record added in this stream (the reader does not see it). */
  private record Added(long id, long[] rank, NearRule.Stored keys) {}

  private final FingerprintIndex nearIndex;
  private final DirectoryReader reader;
  private final List<LeafReaderContext> leaves;
  private final TermHolders keyHolders;
  private final NearKeyFilter filter;
  private final java.nio.file.Path filterDir;
  private final NearConfig config;
  private final TopTermsMd5 fingerprinter;
  private final TableSpec spec;
  private final NearDocumentMaker maker;
  private final List<String> columns;
  private final org.xiaochong.policy.KeepPolicy keepPolicy;
  private final List<Added> session = new ArrayList<>();

  /** Near key → indexes into {@link #session} of the added records holding it. */
  private final Map<Long, List<Integer>> sessionHolders = new HashMap<>();

  private long lookups;
  private long addedDocuments;

  /**
   * Opens the check over {@code nearIndex} (taken over: closed by {@link #close}, and here on
   * failure) and its filter, saved beside the record index's ({@code recordIndex}).
   *
   * @param config the near settings the near index was built with
   */
  NearCheck(
      FingerprintIndex nearIndex,
      FingerprintIndex recordIndex,
      TableSpec spec,
      NearConfig config,
      PrefilterSettings settings,
      Consumer<String> notes) {
    this.nearIndex = nearIndex;
    this.filterDir = recordIndex.path().resolve(FilterFile.DIR);
    this.config = config;
    this.columns = spec.fingerprintColumns();
    this.keepPolicy = spec.keepPolicy();
    DirectoryReader opened = null;
    try {
      opened = nearIndex.openReader();
      this.filter =
          settings.enabled()
              ? NearKeyFilter.KIND.openOrRebuild(
                  filterDir,
                  nearIndex.commitGeneration(),
                  opened,
                  settings.countersPerKey(),
                  settings.hashes(),
                  notes)
              : null;
      this.keyHolders = new TermHolders(opened.leaves(), NearSchema.KEY);
    } catch (IOException | RuntimeException e) {
      try {
        if (opened != null) {
          opened.close();
        }
      } catch (IOException ignored) {
        // the first failure is the one to report
      }
      nearIndex.close();
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
    this.reader = opened;
    this.leaves = opened.leaves();
    this.fingerprinter = new TopTermsMd5(config);
    this.spec = spec;
    this.maker = new NearDocumentMaker(spec, fingerprinter);
  }

  @Override
  public String name() {
    return "near";
  }

  @Override
  public Post probe(Map<String, String> fields) {
    return post(maker, columns, fields);
  }

  /**
   * A document maker of its own per thread (it keeps buffers); the fingerprinter is thread-safe and
   * shared.
   */
  @Override
  public java.util.function.Function<Map<String, String>, Post> newProber() {
    NearDocumentMaker own = new NearDocumentMaker(spec, fingerprinter);
    return fields -> post(own, columns, fields);
  }

  private static Post post(
      NearDocumentMaker maker, List<String> columns, Map<String, String> fields) {
    String[] values = new String[columns.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = fields.get(columns.get(i));
    }
    SourceRecord record = new SourceRecord(0, SourceRecord.NULL_TIME, values);
    Fingerprints fingerprints = maker.fingerprint(record);
    return new Post(fingerprints, maker.matchKeys(record), maker.evidence(record, fingerprints));
  }

  @Override
  public Match find(Post post) {
    return find(post, id -> false);
  }

  /**
   * The most similar near duplicate, or null when it is marked apart from the incoming record: as
   * in the pass, a record whose closest match a person rejected is new.
   */
  @Override
  public Match find(Post post, LongPredicate apart) {
    Best best = new Best(apart);
    compare(post, best::consider, keyHolders);
    return best.match();
  }

  /** A cursor of its own over the same reader (TermHolders is one per thread). */
  @Override
  public Finder<Post> newFinder() {
    TermHolders own;
    try {
      own = new TermHolders(leaves, NearSchema.KEY);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return (post, apart) -> {
      Best best = new Best(apart);
      compare(post, best::consider, own);
      return best.match();
    };
  }

  /** Each candidate of {@code post} with its near rule outcome, the most similar first. */
  @Override
  public List<Candidate> explain(Post post, int limit) {
    List<Candidate> candidates = new ArrayList<>();
    compare(
        post,
        (record, candidate, id, rank, weight) -> {
          NearRule.Failure failure = NearRule.why(record, candidate, config, weight);
          candidates.add(
              new Candidate(
                  id,
                  NearRule.similarity(record, candidate, weight),
                  NearSimilarity.sharedCount(record.keys(), candidate.keys()),
                  failure == null
                      ? Candidate.DUPLICATE
                      : failure.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')));
        },
        keyHolders);
    candidates.sort(
        java.util.Comparator.comparingDouble(Candidate::score)
            .reversed()
            .thenComparingLong(Candidate::id));
    return candidates.subList(0, Math.min(limit, candidates.size()));
  }

  /** Receives each candidate a record is compared with. */
  private interface Comparison {
    void consider(
        NearRule.Stored record,
        NearRule.Keys candidate,
        long candidateId,
        long[] candidateRank,
        NearRule.KeyWeights weight);
  }

  /**
   * Hands {@code comparison} every candidate of the record, as the pass selects them: the holders
   * of its candidate keys among the indexed and the added records, with the pass's key weights.
   */
  private void compare(Post post, Comparison comparison, TermHolders keyHolders) {
    Fingerprints fingerprints = post.fingerprints();
    if (fingerprints.outcome() != NearOutcome.OK) {
      return; // no keys: only the exact check applies (as in the pass)
    }
    NearRule.Stored record =
        NearRule.Stored.of(fingerprints, config.pre(), post.matchKeys(), post.evidence());
    long[] keys = record.keys();
    int[] holders = new int[keys.length];
    try {
      for (int i = 0; i < keys.length; i++) {
        holders[i] =
            sessionHolders.getOrDefault(keys[i], List.of()).size()
                + documentFrequency(keys[i], keyHolders);
      }
      long[] candidateKeys =
          NearCandidates.candidateKeys(
              record, key -> holders[Arrays.binarySearch(keys, key)], 1, config.pre());
      // Key weights as in the pass: the idf of each key among the indexed and added records, the
      // record itself counted in (the pass's record is in its index). Keys of a candidate the
      // record
      // lacks are looked up once each.
      long records = reader.maxDoc() + session.size() + 1;
      Map<Long, Double> weights = new HashMap<>();
      NearRule.KeyWeights weight =
          NearRule.KeyWeights.idf(
              key ->
                  weights.computeIfAbsent(
                      key,
                      k -> {
                        int at = Arrays.binarySearch(keys, k);
                        long df =
                            at >= 0
                                ? holders[at] + 1L
                                : sessionHolders.getOrDefault(k, List.of()).size()
                                    + indexFrequency(k, keyHolders);
                        return NearSimilarity.idf(df, records);
                      }),
              records);
      Set<Integer> docs = new LinkedHashSet<>();
      Set<Integer> added = new LinkedHashSet<>();
      for (long key : candidateKeys) {
        if (NearCandidates.stopBefore(
            holders[Arrays.binarySearch(keys, key)], docs.size() + added.size())) {
          break;
        }
        collectHolders(key, docs, keyHolders);
        added.addAll(sessionHolders.getOrDefault(key, List.of()));
      }
      for (int doc : docs) {
        comparison.consider(
            record,
            IndexedNearKeys.of(leaves, doc),
            IndexSchema.id(leaves, doc),
            IndexSchema.rank(leaves, doc, keepPolicy),
            weight);
      }
      for (int s : added) {
        Added candidate = session.get(s);
        comparison.consider(record, candidate.keys(), candidate.id(), candidate.rank(), weight);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The most similar near duplicate seen so far (ties: {@link NearRule#isBetter}). */
  private final class Best {
    private final LongPredicate apart;
    private boolean found;
    private long id;
    private long[] rank;
    private double similarity;

    Best(LongPredicate apart) {
      this.apart = apart;
    }

    void consider(
        NearRule.Stored record,
        NearRule.Keys candidate,
        long candidateId,
        long[] candidateRank,
        NearRule.KeyWeights weight) {
      if (!NearRule.isNearDuplicate(record, candidate, config, weight)) {
        return;
      }
      double s = NearRule.similarity(record, candidate, weight);
      if (!found || NearRule.isBetter(s, candidateRank, candidateId, similarity, rank, id)) {
        found = true;
        id = candidateId;
        rank = candidateRank;
        similarity = s;
      }
    }

    Match match() {
      return found && !apart.test(id) ? new Match(id, rank, similarity) : null;
    }
  }

  /**
   * Records of the index holding the key (deleted ones included: it only ranks keys); 0 when the
   * filter rules it out.
   */
  private int documentFrequency(long key, TermHolders keyHolders) throws IOException {
    if (filter != null && !filter.mightContain(key)) {
      return 0; // certainly held by no record: no lookup
    }
    lookups++;
    return keyHolders.docFreq(NearSchema.keyBytes(key));
  }

  /** Records of the index holding the key, without the filter (a candidate's key). */
  private int indexFrequency(long key, TermHolders keyHolders) {
    try {
      return keyHolders.docFreq(NearSchema.keyBytes(key));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Adds the live documents holding {@code key} to {@code docs} (global ids, no repeats). */
  private void collectHolders(long key, Set<Integer> docs, TermHolders keyHolders)
      throws IOException {
    BytesRef term = NearSchema.keyBytes(key);
    for (int doc = keyHolders.first(term);
        doc != TermHolders.NO_MORE_DOCS;
        doc = keyHolders.next()) {
      docs.add(doc);
    }
  }

  @Override
  public void add(long id, long regTime, Map<String, String> record, Post post) {
    Fingerprints fingerprints = post.fingerprints();
    long[] rank = keepPolicy.rank(regTime, record);
    org.apache.lucene.document.Document doc =
        NearSchema.document(
            id,
            regTime,
            org.xiaochong.source.SourceRecord.UNKNOWN_CRC,
            fingerprints,
            config.pre(),
            post.matchKeys(),
            post.evidence());
    IndexSchema.addRank(doc, keepPolicy.isLatest() ? null : rank);
    nearIndex.addDocument(doc);
    addedDocuments++;
    if (fingerprints.outcome() != NearOutcome.OK) {
      return;
    }
    NearRule.Stored keys =
        NearRule.Stored.of(fingerprints, config.pre(), post.matchKeys(), post.evidence());
    for (long key : keys.keys()) {
      List<Integer> holders = sessionHolders.computeIfAbsent(key, k -> new ArrayList<>());
      if (filter != null) {
        filter.addedNearKey(key, keyHolders, !holders.isEmpty());
      }
      holders.add(session.size());
    }
    session.add(new Added(id, rank, keys));
  }

  @Override
  public void commit() {
    nearIndex.commit();
  }

  @Override
  public String counters() {
    return String.format(
        "near keys: %,d index lookups, %,d skipped by the prefilter",
        lookups, filter == null ? 0 : filter.skipped());
  }

  @Override
  public void close() {
    try {
      if (addedDocuments > 0) {
        nearIndex.commit();
        if (filter != null) {
          filter.save(filterDir, nearIndex.commitGeneration());
        }
      }
      reader.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      try {
        fingerprinter.close();
      } finally {
        nearIndex.close();
      }
    }
  }
}
