package org.xiaochong.pass;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.fingerprint.NearConfig;
import org.xiaochong.fingerprint.NearOutcome;
import org.xiaochong.fingerprint.NearSimilarity;
import org.xiaochong.index.IntArrays;
import org.xiaochong.index.NearSchema;
import org.xiaochong.index.TermHolders;
import org.xiaochong.policy.KeepLatestPolicy;

/**
 * The near-duplicate pass (seed 002, 第二步): multi-MD5 fingerprints of several key families (words,
 * q-grams, optionally shingles) compared by shared count and IDF-weighted Jaccard similarity, each
 * key weighing its idf in this index ({@link NearSimilarity#idf}, {@link NearRule#isNearDuplicate}).
 *
 * <p>Greedy, newest first: the live documents of the near index are ordered by (time desc, id desc).
 * A record is a candidate for the records after it once it is <em>kept</em>. A record of the window
 * looks up, per segment, the postings of its candidate keys ({@link NearCandidates#candidateKeys(NearRule.Keys,
 * java.util.function.LongToIntFunction, int, int)}: the {@code pre} rarest of each family, term {@link NearSchema#KEY}), keeps
 * the kept documents among them as candidates, and compares its key set with each candidate's; if the
 * most similar candidate is a near duplicate, the record is planned for removal in favour of it (rule
 * near, score = weighted similarity), else the record is kept.
 *
 * <p>Then groups join by average linkage ({@link NearGroups}): each kept record of the window whose
 * fields are all short ({@link #allFieldsShort}), newest first, joins the newer group whose records it
 * is most alike on average, when that average reaches near.min-similarity and one pair of their records
 * passes the whole rule (score = the average). Every group's survivor is its newest record and every
 * removal points to it: no chains. The plan gets the decisions when both steps are done.
 *
 * <p>Pairs marked apart ({@link ApartPairs}): a record whose most similar candidate is marked apart
 * from it is kept, not removed for the next most similar one. A person rejected its closest match; a
 * less similar candidate is no better evidence, and an exact twin of the rejected row (as similar, and
 * ranked next) would otherwise take its place, undoing the decision the person undid. No merge removes
 * a record in favour of a survivor it is marked apart from.
 *
 * <p>Records outside the window are not examined but are kept (they stay, so they may absorb older
 * records of the window). A window of record ids (a nightly run: the records indexed since the last
 * applied run) also takes in the older records that share one of its records' candidate keys (the
 * rarest keys, {@link NearCandidates#candidateKeys}, held by at most {@link NearCandidates#COMMON_KEY} records):
 * a new or re-dated post can be the newer copy of an older post the last run kept, which a full run
 * would now remove, and near duplicates share their rare keys. Records the exact pass removed are skipped; its kept records take part like
 * any other. Records whose fingerprint set is empty (see {@link NearOutcome}) are counted per reason and
 * kept out of the pass: only the exact pass can remove them.
 *
 * <p>Over 300 lines because its two steps share one run's state read once per document (the
 * newest-first order, the kept set, the field masks, the key frequencies and term postings); the
 * group bookkeeping and the linkage itself are in {@link NearGroups}.
 *
 * <p>Not thread-safe: one instance per run.
 */
public final class NearPass {

  /**
   * What the pass found.
   *
   * @param recordsExamined live records of the window
   * @param removed records planned for removal by this pass
   * @param skippedExact records of the window the exact pass had already removed
   * @param lookups key lookups (one per candidate key of an examined record, all segments)
   * @param keysAlone keys of examined records that no other record holds (document frequency 1): the
   *     lookups a Bloom filter in front of the term dictionary would skip. The pass skips them with
   *     {@link KeyFrequencies}, the exact form of that filter, so it has no false positives.
   * @param candidates pairs of records compared (similarity computed): a kept record and an examined
   *     one, and the pairs of records of two groups the average linkage compared
   * @param empty records of the window without fingerprints, per reason
   * @param truncated records of the window cut to near.max-chars (still fingerprinted)
   */
  public record Result(long recordsExamined, long removed, long skippedExact, long lookups, long keysAlone,
      long candidates, Map<NearOutcome, Long> empty, long truncated) {}

  private final IndexSnapshot snapshot;
  private final NearConfig config;
  private final ApartPairs apart;

  public NearPass(IndexSnapshot snapshot, NearConfig config) {
    this(snapshot, config, ApartPairs.NONE);
  }

  /** @param apart pairs marked as not duplicates: a record whose best candidate is marked apart from it is kept */
  public NearPass(IndexSnapshot snapshot, NearConfig config, ApartPairs apart) {
    this.snapshot = snapshot;
    this.config = config;
    this.apart = apart;
  }

  /**
   * Runs the pass over the window and adds its decisions to {@code plan}.
   *
   * @param exactRemovedSorted ids the exact pass removed, ascending (they take no part)
   */
  public Result run(Window window, long[] exactRemovedSorted, DeletionPlan plan) {
    try {
      return doRun(window, exactRemovedSorted, plan);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Result doRun(Window window, long[] exactRemoved, DeletionPlan plan) throws IOException {
    List<LeafReaderContext> leaves = snapshot.leaves();
    int maxDoc = Math.max(1, snapshot.maxDoc());
    FixedBitSet inWindow = snapshot.windowDocs(window);
    TermHolders holders = new TermHolders(leaves, NearSchema.KEY);
    KeyFrequencies frequencies = new KeyFrequencies(leaves, NearSchema.KEY);
    long records = snapshot.maxDoc(); // the frequencies count deleted documents too
    frequencies.useWeights(records);
    NearRule.KeyWeights weight = frequencies.weights();
    if (window.ids() != null) {
      inWindow.or(olderNeighbours(inWindow, holders, frequencies));
    }
    Map<NearOutcome, Long> empty = new EnumMap<>(NearOutcome.class);
    long examined = 0;
    long skippedExact = 0;
    long truncated = 0;

    // The records taking part: live, not removed by the exact pass, with fingerprints.
    int[] present = new int[Math.max(1, snapshot.maxDoc())]; // NearSchema.PRESENT per doc, read once
    FixedBitSet allShort = new FixedBitSet(maxDoc); // allFieldsShort per doc
    int[] order = new int[snapshot.maxDoc()];
    int n = 0;
    for (LeafReaderContext leaf : leaves) {
      Bits live = leaf.reader().getLiveDocs();
      NumericDocValues outcomes = leaf.reader().getNumericDocValues(NearSchema.OUTCOME);
      NumericDocValues presentFields = leaf.reader().getNumericDocValues(NearSchema.PRESENT);
      NumericDocValues shortFields = leaf.reader().getNumericDocValues(NearSchema.SHORT);
      for (int d = 0; d < leaf.reader().maxDoc(); d++) {
        if (live != null && !live.get(d)) {
          continue;
        }
        int doc = leaf.docBase + d;
        boolean inside = inWindow.get(doc);
        if (inside) {
          examined++;
        }
        if (Arrays.binarySearch(exactRemoved, snapshot.id(doc)) >= 0) {
          if (inside) {
            skippedExact++;
          }
          continue;
        }
        long stored = outcomes != null && outcomes.advanceExact(d) ? outcomes.longValue() : NearOutcome.EMPTY_AFTER_NORMALIZE.ordinal();
        NearOutcome outcome = NearSchema.outcome(stored);
        if (inside && NearSchema.truncated(stored)) {
          truncated++;
        }
        if (outcome != NearOutcome.OK) {
          if (inside) {
            empty.merge(outcome, 1L, Long::sum);
          }
          continue;
        }
        if (presentFields != null && presentFields.advanceExact(d)) {
          present[doc] = (int) presentFields.longValue();
          if (shortFields != null && shortFields.advanceExact(d) && allFieldsShort(present[doc], (int) shortFields.longValue())) {
            allShort.set(doc);
          }
        }
        order[n++] = doc;
      }
    }
    sortNewestFirst(order, n);

    FixedBitSet kept = new FixedBitSet(maxDoc);
    NearGroups groups = new NearGroups(maxDoc);

    Found candidates = new Found(maxDoc);
    long lookups = 0;
    long keysAlone = 0;
    long compared = 0;

    java.util.function.IntUnaryOperator keptOnly = g -> kept.get(g) ? g : -1;
    for (int o = 0; o < n; o++) {
      int doc = order[o];
      if (!inWindow.get(doc)) {
        kept.set(doc);
        continue;
      }
      NearRule.Keys record = IndexedNearKeys.of(leaves, doc).withPresentFields(present[doc]);
      long[] keys = record.keys();
      for (long key : keys) {
        if (frequencies.get(key) < 2) {
          keysAlone++;
        }
      }
      lookups += collectHolders(record, frequencies, holders, keptOnly, candidates);
      int best = -1;
      double bestSimilarity = -1;
      if (candidates.size > 0) {
        Arrays.sort(candidates.docs, 0, candidates.size); // forward-only doc values per segment
        int leafIndex = -1;
        BinaryDocValues values = null;
        for (int c = 0; c < candidates.size; c++) {
          int g = candidates.docs[c];
          int li = ReaderUtil.subIndex(g, leaves);
          if (li != leafIndex) {
            leafIndex = li;
            values = leaves.get(li).reader().getBinaryDocValues(NearSchema.KEYS);
          }
          if (values == null || !values.advanceExact(g - leaves.get(li).docBase)) {
            continue;
          }
          compared++;
          long[] other = NearSchema.decode(values.binaryValue());
          IndexedNearKeys candidate = new IndexedNearKeys(leaves, g, other).withPresentFields(present[g]);
          if (!NearRule.isNearDuplicate(record, candidate, config, weight)) {
            continue;
          }

          double similarity = NearRule.similarity(record, candidate, weight);
          if (best < 0 || NearRule.isBetter(similarity, snapshot.time(g), snapshot.id(g), bestSimilarity,
              snapshot.time(best), snapshot.id(best))) {
            best = g;
            bestSimilarity = similarity;
          }
        }
      }
      candidates.clear();
      if (best >= 0 && !apart.keepsApart(snapshot.id(doc), snapshot.id(best))) {
        groups.remove(doc, best, bestSimilarity);
      } else {
        kept.set(doc);
      }
    }
    mergeGroups(order, n, inWindow, allShort, kept, groups, holders, frequencies);
    compared += groups.pairsCompared();
    for (int o = 0; o < n; o++) {
      int doc = order[o];
      if (groups.isRemoved(doc)) {
        int survivor = groups.survivorOf(doc);
        plan.add(snapshot.id(doc), snapshot.id(survivor), DeletionPlan.Rule.NEAR, groups.score(doc), snapshot.state(doc),
            snapshot.state(survivor));
      }
    }
    return new Result(examined, groups.removed(), skippedExact, lookups, keysAlone, compared, empty, truncated);
  }

  /**
   * Joins groups by {@link NearGroups#averageLinkage}: each survivor of the window whose fields are all
   * short ({@link #allFieldsShort}), newest first, joins the newer group it is most alike on average
   * when that average reaches near.min-similarity.
   */
  private void mergeGroups(int[] order, int n, FixedBitSet inWindow, FixedBitSet allShort, FixedBitSet kept,
      NearGroups groups, TermHolders holders, KeyFrequencies frequencies) throws IOException {
    List<LeafReaderContext> leaves = snapshot.leaves();
    NearRule.KeyWeights weight = frequencies.weights();
    Map<Integer, NearRule.Keys> read = new java.util.LinkedHashMap<>(1024, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Integer, NearRule.Keys> eldest) {
        return size() > KEYS_HELD;
      }
    };
    java.util.function.IntFunction<NearRule.Keys> keysOf = d -> read.computeIfAbsent(d, x -> IndexedNearKeys.stored(leaves, x));
    Found roots = new Found(Math.max(1, snapshot.maxDoc()));
    for (int o = 0; o < n; o++) {
      int doc = order[o];
      if (!inWindow.get(doc) || !allShort.get(doc) || groups.isRemoved(doc)) {
        continue;
      }
      NearRule.Keys record = keysOf.apply(doc);
      collectHolders(record, frequencies, holders, g -> {
        if (!kept.get(g) && !groups.isRemoved(g)) {
          return -1; // not in the pass
        }
        int root = groups.survivorOf(g);
        return root != doc && compareNewestFirst(root, doc) < 0 ? root : -1;
      }, roots);
      NearRule.Keys[] group = roots.size == 0 ? null : groups.records(doc, keysOf);
      int best = -1;
      double bestLinkage = -1;
      for (int c = 0; c < roots.size; c++) {
        int root = roots.docs[c];
        if (group.length == 1 && groups.firstMember(root) < 0) {
          continue; // two records alone: the greedy step compared them and found no near duplicate
        }
        if (groups.anyApart(doc, root, (a, b) -> apart.keepsApart(snapshot.id(a), snapshot.id(b)))) {
          continue; // the merge would remove a record in favour of one it is marked apart from
        }
        double linkage = groups.averageLinkage(group, root, keysOf, config, weight);
        if (linkage >= config.minSimilarity() && (best < 0 || NearRule.isBetter(linkage, snapshot.time(root),
            snapshot.id(root), bestLinkage, snapshot.time(best), snapshot.id(best)))) {
          best = root;
          bestLinkage = linkage;
        }
      }
      roots.clear();
      if (best >= 0) {
        groups.merge(doc, best, bestLinkage);
      }
    }
  }

  /**
   * Adds to {@code found} what {@code map} makes of each holder of the record's candidate keys (a
   * negative result: nothing), reading the keys rarest first until {@link NearCandidates#stopBefore}
   * says the rest are too common for the candidates found so far; returns the keys looked up. The
   * greedy step and the group step find their candidates alike: the group step skips a pair of lone
   * records because the greedy step compared them.
   */
  private int collectHolders(NearRule.Keys record, KeyFrequencies frequencies, TermHolders holders,
      java.util.function.IntUnaryOperator map, Found found) throws IOException {
    int lookups = 0;
    for (long key : NearCandidates.candidateKeys(record, frequencies::get, 2, config.pre())) {
      if (NearCandidates.stopBefore(frequencies.get(key), found.size)) {
        break;
      }
      lookups++;
      BytesRef term = NearSchema.keyBytes(key);
      for (int g = holders.first(term); g != TermHolders.NO_MORE_DOCS; g = holders.next()) {
        int doc = map.applyAsInt(g);
        if (doc >= 0) {
          found.add(doc);
        }
      }
    }
    return lookups;
  }

  /** Distinct documents found for one record, in the order found; {@link #clear} before the next record. */
  private static final class Found {
    private final FixedBitSet seen;
    int[] docs = new int[64];
    int size;

    Found(int maxDoc) {
      seen = new FixedBitSet(maxDoc);
    }

    void add(int doc) {
      if (!seen.getAndSet(doc)) {
        if (size == docs.length) {
          docs = Arrays.copyOf(docs, size * 2);
        }
        docs[size++] = doc;
      }
    }

    void clear() {
      for (int i = 0; i < size; i++) {
        seen.clear(docs[i]);
      }
      size = 0;
    }
  }

  /**
   * True when every field that gave the record a key is short ({@link NearRule.Keys#shortFields}: a
   * name, a code, a street): a record of such fields varies by typos, so two variants of one original
   * can be further apart than each is from it. Records with text fields are left to the greedy pass:
   * on them, average linkage joined different citations through a citation the greedy pass had
   * already joined wrongly (cora's precision fell from 0.992 to 0.973; NEAR-FINGERPRINTS.md).
   */
  static boolean allFieldsShort(NearRule.Keys record) {
    return allFieldsShort(record.presentFields(), record.shortFields());
  }

  private static boolean allFieldsShort(int presentFields, int shortFields) {
    return presentFields != 0 && (presentFields & ~shortFields) == 0;
  }

  /** Records whose keys {@link #mergeGroups} holds in memory, most recently used (groups meet their neighbours). */
  private static final int KEYS_HELD = 10_000;

  /**
   * The live records outside {@code inWindow} that hold one of the candidate keys of a record of the
   * window and come after it in the newest-first order: those whose examination a new record can
   * change.
   */
  private FixedBitSet olderNeighbours(FixedBitSet inWindow, TermHolders holders, KeyFrequencies frequencies)
      throws IOException {
    List<LeafReaderContext> leaves = snapshot.leaves();
    FixedBitSet neighbours = new FixedBitSet(Math.max(1, snapshot.maxDoc()));
    for (int doc = inWindow.length() == 0 ? DocIdSetIterator.NO_MORE_DOCS : inWindow.nextSetBit(0);
        doc != DocIdSetIterator.NO_MORE_DOCS; doc = doc + 1 >= inWindow.length() ? DocIdSetIterator.NO_MORE_DOCS
            : inWindow.nextSetBit(doc + 1)) {
      for (long key : NearCandidates.candidateKeys(IndexedNearKeys.of(leaves, doc), frequencies::get, 2, config.pre())) {
        if (frequencies.get(key) > NearCandidates.COMMON_KEY) {
          continue;
        }
        BytesRef term = NearSchema.keyBytes(key);
        for (int g = holders.first(term); g != TermHolders.NO_MORE_DOCS; g = holders.next()) {
          if (!inWindow.get(g) && compareNewestFirst(doc, g) < 0) {
            neighbours.set(g);
          }
        }
      }
    }
    return neighbours;
  }

  /** Orders docs by preference, the kept one first ({@link KeepLatestPolicy}: time desc, id desc). */
  private void sortNewestFirst(int[] docs, int n) {
    IntArrays.sort(docs, 0, n, this::compareNewestFirst);
  }

  /** Negative when doc {@code a} is kept over doc {@code b}: the newest-first order. */
  private int compareNewestFirst(int a, int b) {
    return KeepLatestPolicy.compare(snapshot.time(b), snapshot.id(b), snapshot.time(a), snapshot.id(a));
  }
}
