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
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.fingerprint.Fingerprints;
import org.xiaochong.fingerprint.NearConfig;
import org.xiaochong.fingerprint.NearOutcome;
import org.xiaochong.fingerprint.NearSimilarity;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.index.NearSchema;
import org.xiaochong.index.TermHolders;
import org.xiaochong.method.Excluded;
import org.xiaochong.policy.KeepPolicy;

/**
 * The candidates of {@link NearCheck}: the records a new post is compared with, selected as the
 * pass selects them ({@link NearCandidates}), among the indexed records and those added in this
 * session, which are held in memory (the reader does not see them) and take part like indexed ones.
 * The counting filter of the near keys answers "certainly absent" for most keys of new records
 * without a lookup. Not thread-safe for {@link #add}; {@link #compare} may run on several threads
 * at once, each with its own {@link TermHolders}, while no thread adds.
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
  }

  /** Index lookups of a key's document frequency (the keys the filter did not rule out). */
  long lookups() {
    return lookups;
  }

  /** One thread's cursors over the near index: the keys' postings, the candidates' doc values. */
  static final class Cursor {
    final TermHolders keyHolders;
    final CandidateValues values;

    Cursor(List<LeafReaderContext> leaves) throws IOException {
      this.keyHolders = new TermHolders(leaves, NearSchema.KEY);
      this.values = new CandidateValues(leaves);
    }
  }

  /** The candidates of one record and the key weights it is compared with. */
  private record Found(
      NearRule.Stored record, NearRule.KeyWeights weight, Set<Integer> docs, Set<Integer> added) {}

  /**
   * Hands {@code comparison} every candidate of the record, as the pass selects them: the holders
   * of its candidate keys among the indexed and the added records, with the pass's key weights.
   */
  void compare(NearCheck.Post post, Comparison comparison, TermHolders keyHolders) {
    Found found = find(post, keyHolders);
    if (found == null) {
      return;
    }
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
   * As {@link #compare}, leaving out the candidates that fail a test of the rule that needs only
   * their phones, must-match keys and key set ({@link RuleVerdict#phonesAgree}, {@link
   * RuleVerdict#matchesAgree}, {@link RuleVerdict#tooFewShared}): no near duplicate is left out, so
   * the most similar near duplicate is the same. A common key brings a thousand candidates, nearly
   * all another seller's post about the same product; those tests read three doc values of each (in
   * doc order, with the cursor's iterators) where the rule reads a dozen and weighs every key. Each
   * candidate's id is still told to {@code excluded} ({@link Excluded#isSelf}), skipped or not.
   */
  void compareLikely(NearCheck.Post post, Excluded excluded, Comparison comparison, Cursor cursor) {
    Found found = find(post, cursor.keyHolders);
    if (found == null) {
      return;
    }
    NearRule.Stored record = found.record();
    long[] keys = record.keys();
    long[] tel = record.tel();
    long[] matches = record.matches();
    boolean anyMatch = false;
    for (long match : matches) {
      anyMatch |= match != 0;
    }
    int[] docs = new int[found.docs().size()];
    int n = 0;
    for (int doc : found.docs()) {
      docs[n++] = doc;
    }
    Arrays.sort(docs); // the cursor's iterators only move forward
    CandidateValues values = cursor.values;
    try {
      for (int doc : docs) {
        long id = values.id(doc);
        if (excluded.isSelf(id)
            || (tel.length > 0 && !RuleVerdict.phonesAgree(tel, values.tel(doc)))
            || (anyMatch && !RuleVerdict.matchesAgree(matches, values.matches(doc)))) {
          continue;
        }
        long[] candidateKeys = values.keys(doc);
        if (RuleVerdict.tooFewShared(keys, candidateKeys, config)) {
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
   * The record's keys, its candidates as the pass selects them (the holders of its candidate keys
   * among the indexed and the added records) and the pass's key weights; null when it has no keys.
   */
  private Found find(NearCheck.Post post, TermHolders keyHolders) {
    Fingerprints fingerprints = post.fingerprints();
    if (fingerprints.outcome() != NearOutcome.OK) {
      return null; // no keys: only the exact check applies (as in the pass)
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
      // record lacks are looked up once each.
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
      return new Found(record, weight, docs, added);
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
}
