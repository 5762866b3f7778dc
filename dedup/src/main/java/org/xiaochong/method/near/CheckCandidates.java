package org.xiaochong.method.near;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.index.TermHolders;
import org.xiaochong.method.Excluded;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.method.near.fingerprint.NearOutcome;
import org.xiaochong.method.near.fingerprint.NearSimilarity;
import org.xiaochong.method.near.index.NearSchema;
import org.xiaochong.policy.KeepPolicy;

/**
 * The candidates of {@link NearCheck}: the records a new post is compared with, selected as the
 * pass selects them ({@link NearCandidates}), among the indexed records and those added in this
 * session, which are held in memory (the reader does not see them) and take part like indexed ones.
 * The counting filter of the near keys answers "certainly absent" for most keys of new records
 * without a lookup. Not thread-safe for {@link #add}; {@link #compare} and {@link #compareLikely}
 * may run on several threads at once, each with its own {@link Cursor}, while no thread adds.
 */
final class CheckCandidates {
  /** Receives each candidate a record is compared with. */
  interface Comparison {
    void consider(
        NearRule.Stored record,
        NearRule.Keys candidate,
        long candidateId,
        long[] candidateRank,
        NearRule.KeyWeights weight);
  }

  /** A record added in this stream (the reader does not see it). */
  private record Added(long id, long[] rank, NearRule.Stored keys) {}

  private final DirectoryReader reader;
  private final List<LeafReaderContext> leaves;
  private final NearKeyFilter filter;
  private final NearConfig config;
  private final KeepPolicy keepPolicy;
  private final List<Added> session = new ArrayList<>();

  /** Near key → indexes into {@link #session} of the added records holding it. */
  private final Map<Long, List<Integer>> sessionHolders = new HashMap<>();

  /** The docs of the reader with phone keys ({@link NearSchema#TEL} not empty). */
  private final FixedBitSet withTel;

  /** The docs of the reader by record id: where a record checked with its id is. */
  private final DocsById docsById;

  private long lookups;

  /**
   * @param filter the counting filter of the near keys, or null (prefilter disabled)
   */
  CheckCandidates(
      DirectoryReader reader, NearKeyFilter filter, NearConfig config, KeepPolicy keepPolicy) {
    this.reader = reader;
    this.leaves = reader.leaves();
    this.filter = filter;
    this.config = config;
    this.keepPolicy = keepPolicy;
    try {
      this.withTel = withTel(leaves, reader.maxDoc());
      this.docsById = DocsById.of(leaves);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static FixedBitSet withTel(List<LeafReaderContext> leaves, int maxDoc)
      throws IOException {
    FixedBitSet docs = new FixedBitSet(Math.max(1, maxDoc));
    for (LeafReaderContext leaf : leaves) {
      BinaryDocValues tel = leaf.reader().getBinaryDocValues(NearSchema.TEL);
      if (tel == null) {
        continue;
      }
      for (int doc = tel.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = tel.nextDoc()) {
        if (tel.binaryValue().length > 0) {
          docs.set(leaf.docBase + doc);
        }
      }
    }
    return docs;
  }

  /** Index lookups of a key's document frequency (the keys the filter did not rule out). */
  long lookups() {
    return lookups;
  }

  /**
   * One thread's cursors over the near index: the keys' postings, the candidates' doc values, and
   * the candidates of the record at hand (a bit per doc of the reader, cleared after each record).
   */
  static final class Cursor {
    final TermHolders keyHolders;
    final CandidateValues values;
    private final FixedBitSet seen;
    private int[] docs = new int[256];
    private int size;

    Cursor(List<LeafReaderContext> leaves) throws IOException {
      this.keyHolders = new TermHolders(leaves, NearSchema.KEY);
      this.values = new CandidateValues(leaves);
      int maxDoc = 0;
      for (LeafReaderContext leaf : leaves) {
        maxDoc = Math.max(maxDoc, leaf.docBase + leaf.reader().maxDoc());
      }
      this.seen = new FixedBitSet(Math.max(1, maxDoc));
    }

    /** Adds the live holders of {@code key} not met yet, in the order met. */
    void collect(long key) throws IOException {
      BytesRef term = NearSchema.keyBytes(key);
      for (int doc = keyHolders.first(term);
          doc != TermHolders.NO_MORE_DOCS;
          doc = keyHolders.next()) {
        if (!seen.getAndSet(doc)) {
          if (size == docs.length) {
            docs = Arrays.copyOf(docs, 2 * size);
          }
          docs[size++] = doc;
        }
      }
    }

    /** The docs collected, in the order met; the cursor is ready for the next record. */
    int[] take() {
      int[] taken = Arrays.copyOf(docs, size);
      for (int doc : taken) {
        seen.clear(doc);
      }
      size = 0;
      return taken;
    }
  }

  /**
   * The candidates of one record (indexed docs in the order met, added records) and the key weights
   * it is compared with.
   */
  private record Found(
      NearRule.Stored record, NearRule.KeyWeights weight, int[] docs, Set<Integer> added) {}

  /**
   * Hands {@code comparison} every candidate of the record, as the pass selects them: the holders
   * of its candidate keys among the indexed and the added records, with the pass's key weights.
   */
  void compare(NearCheck.Post post, Comparison comparison, Cursor cursor) {
    if (post.fingerprints().outcome() != NearOutcome.OK) {
      return; // no keys: only the exact check applies (as in the pass)
    }
    Found found = find(stored(post), false, cursor);
    try {
      for (int doc : found.docs()) {
        comparison.consider(
            found.record(),
            IndexedNearKeys.of(leaves, doc),
            IndexSchema.id(leaves, doc),
            IndexSchema.rank(leaves, doc, keepPolicy),
            found.weight());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (int s : found.added()) {
      Added candidate = session.get(s);
      comparison.consider(
          found.record(), candidate.keys(), candidate.id(), candidate.rank(), found.weight());
    }
  }

  /**
   * Phone keys held by at most this many records in all are looked up to screen the candidates with
   * phones at once ({@link #compareLikely}); past it each candidate's phones are read.
   */
  private static final int TEL_HOLDERS_WALKED = 4096;

  /**
   * As {@link #compare}, leaving out the candidates that fail a test of the rule that needs only
   * their phones, must-match keys and key set ({@link RuleVerdict#phonesAgree}, {@link
   * RuleVerdict#matchesAgree}, {@link RuleVerdict#tooFewShared}): no near duplicate is left out, so
   * the most similar near duplicate is the same. A common key brings a thousand candidates, nearly
   * all another seller's post about the same product; for a record with phones, a candidate with
   * phones ({@link #withTel}) that holds none of the record's phone keys (their postings: a
   * candidate's phone keys are among its keys) is left out without a read, and the others' key sets
   * are read with the cursor's forward iterators (candidates in doc order), where the rule reads a
   * dozen doc values and weighs every key. The record's own docs (found by its id, {@link
   * DocsById}) are told to {@code excluded} ({@link Excluded#isSelf}) whether or not they would
   * pass, and only the candidates that pass have their id read.
   */
  void compareLikely(NearCheck.Post post, Excluded excluded, Comparison comparison, Cursor cursor) {
    if (post.fingerprints().outcome() == NearOutcome.OK) { // else only the exact check applies
      compareLikely(stored(post), false, excluded, comparison, cursor);
    }
  }

  /**
   * As {@link #compareLikely(NearCheck.Post, Excluded, Comparison, Cursor)}, for stored keys.
   *
   * @param indexed whether the record is a holder of its own keys already (a record of the index or
   *     added in this session, as {@link NextRunKeeps} asks about), not a new post
   */
  void compareLikely(
      NearRule.Stored stored,
      boolean indexed,
      Excluded excluded,
      Comparison comparison,
      Cursor cursor) {
    Found found = find(stored, indexed, cursor);
    NearRule.Stored record = found.record();
    long[] keys = record.keys();
    long[] tel = record.tel();
    long[] matches = record.matches();
    boolean anyMatch = false;
    for (long match : matches) {
      anyMatch |= match != 0;
    }
    int[] docs = found.docs();
    Arrays.sort(docs); // the cursor's iterators only move forward
    CandidateValues values = cursor.values;
    OptionalLong self = excluded.self();
    int[] selfDocs = self.isPresent() ? docsById.docsOf(self.getAsLong()) : null;
    try {
      int[] telHolders = tel.length == 0 ? null : telHolders(tel, cursor);
      for (int doc : docs) {
        if (selfDocs != null && Arrays.binarySearch(selfDocs, doc) >= 0) {
          excluded.isSelf(self.getAsLong()); // noted: the index holds the record already
          continue;
        }
        if (tel.length > 0
            && withTel.get(doc)
            && (telHolders != null
                ? Arrays.binarySearch(telHolders, doc) < 0
                : !RuleVerdict.phonesAgree(tel, values.tel(doc)))) {
          continue;
        }
        if (anyMatch && !RuleVerdict.matchesAgree(matches, values.matches(doc))) {
          continue;
        }
        long[] candidateKeys = values.keys(doc);
        if (RuleVerdict.tooFewShared(keys, candidateKeys, config)) {
          continue;
        }
        long id = values.id(doc);
        if (excluded.isSelf(id)) {
          continue;
        }
        comparison.consider(
            record,
            new IndexedNearKeys(leaves, doc, candidateKeys),
            id,
            IndexSchema.rank(leaves, doc, keepPolicy),
            found.weight());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (int s : found.added()) {
      Added candidate = session.get(s);
      NearRule.Stored keysOf = candidate.keys();
      if (excluded.isSelf(candidate.id())
          || !RuleVerdict.phonesAgree(tel, keysOf.tel())
          || !RuleVerdict.matchesAgree(matches, keysOf.matches())
          || RuleVerdict.tooFewShared(keys, keysOf.keys(), config)) {
        continue;
      }
      comparison.consider(record, keysOf, candidate.id(), candidate.rank(), found.weight());
    }
  }

  /**
   * The indexed docs holding one of the record's phone keys, ascending; null when they are more
   * than {@link #TEL_HOLDERS_WALKED} (then each candidate's phones are read).
   */
  private static int[] telHolders(long[] tel, Cursor cursor) throws IOException {
    long total = 0;
    for (long key : tel) {
      total += cursor.keyHolders.docFreq(NearSchema.keyBytes(key)); // not the filter's guess
    }
    if (total > TEL_HOLDERS_WALKED) {
      return null;
    }
    cursor.take();
    for (long key : tel) {
      cursor.collect(key);
    }
    int[] docs = cursor.take();
    Arrays.sort(docs);
    return docs;
  }

  private NearRule.Stored stored(NearCheck.Post post) {
    return NearRule.Stored.of(post.fingerprints(), config.pre(), post.matchKeys(), post.evidence());
  }

  /**
   * The record's candidates as the pass selects them (the holders of its candidate keys among the
   * indexed and the added records) and the pass's key weights. The pass's record is in its index:
   * it counts once among the holders of each of its keys, and a key only it holds leads nowhere. A
   * new post is not among the holders, so it is counted in; an {@code indexed} record is among them
   * already, and is not counted twice (its keys held by it alone would otherwise be taken for the
   * rarest, and its lookups would find only itself).
   */
  private Found find(NearRule.Stored record, boolean indexed, Cursor cursor) {
    int self = indexed ? 0 : 1;
    TermHolders keyHolders = cursor.keyHolders;
    cursor.take(); // nothing left by a record that failed
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
              record,
              key -> holders[Arrays.binarySearch(keys, key)],
              indexed ? 2 : 1,
              config.pre());
      // Key weights as in the pass: the idf of each key among the indexed and added records, the
      // record itself counted in once (the pass's record is in its index). Keys of a candidate the
      // record lacks are looked up once each.
      long records = reader.maxDoc() + session.size() + self;
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
                                ? holders[at] + (long) self
                                : sessionHolders.getOrDefault(k, List.of()).size()
                                    + indexFrequency(k, keyHolders);
                        return NearSimilarity.idf(df, records);
                      }),
              records);
      Set<Integer> added = new LinkedHashSet<>();
      int met = 0;
      for (long key : candidateKeys) {
        if (NearCandidates.stopBefore(holders[Arrays.binarySearch(keys, key)], met)) {
          break;
        }
        cursor.collect(key);
        added.addAll(sessionHolders.getOrDefault(key, List.of()));
        met = cursor.size + added.size();
      }
      return new Found(record, weight, cursor.take(), added);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Takes in a record added in this session (already written to the index, which the reader does
   * not see): it becomes a candidate of the records that follow, and its keys enter the filter.
   */
  void add(long id, long[] rank, NearRule.Stored keys, TermHolders keyHolders) {
    for (long key : keys.keys()) {
      List<Integer> holders = sessionHolders.computeIfAbsent(key, k -> new ArrayList<>());
      if (filter != null) {
        filter.addedNearKey(key, keyHolders, !holders.isEmpty());
      }
      holders.add(session.size());
    }
    session.add(new Added(id, rank, keys));
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
}
