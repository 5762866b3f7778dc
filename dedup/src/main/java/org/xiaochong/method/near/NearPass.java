package org.xiaochong.method.near;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.fingerprint.NearConfig;
import org.xiaochong.fingerprint.NearOutcome;
import org.xiaochong.fingerprint.NearSimilarity;
import org.xiaochong.index.IntArrays;
import org.xiaochong.index.NearSchema;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.Window;
import org.xiaochong.policy.KeepPolicy;

/**
 * The near-duplicate pass (seed 002, 第二步): multi-MD5 fingerprints of several key families (words,
 * q-grams, optionally shingles) compared by shared count and IDF-weighted Jaccard similarity, each
 * key weighing its idf in this index ({@link NearSimilarity#idf}, {@link
 * NearRule#isNearDuplicate}).
 *
 * <p>Greedy, newest first, in three steps ("newest" is the most preferred by the keep policy,
 * {@link KeepPolicy}: the latest time under the default). The live documents of the near index are
 * ordered by (keep rank desc, id desc). (1) Each record's looked-up keys are chosen ({@link
 * NearCandidates#select}: its phone keys, and its rarest keys of each family), on every core. (2)
 * Each record of the window is compared with every newer record it meets ({@link
 * NearCandidateIndex}: a shared phone, or one of its rarest keys), on every core; the near
 * duplicates among them ({@link NearRule#isNearDuplicate}) are kept best first (most similar, then
 * newest). (3) On one thread, newest first: a record goes to the first of its near duplicates that
 * is still kept (rule near, score = weighted similarity), else it is kept. Step 2 does not depend
 * on what step 3 decides, so the decisions are the same for any number of workers, and a
 * distributed job can find the same pairs with joins.
 *
 * <p>Then groups join by average linkage ({@link NearGroups}): each kept record of the window whose
 * fields are all short ({@link #allFieldsShort}), newest first, joins the newer group whose records
 * it is most alike on average, when that average reaches near.min-similarity and one pair of their
 * records passes the whole rule (score = the average). Every group's survivor is its newest record
 * and every removal points to it: no chains. The plan gets the decisions when both steps are done.
 *
 * <p>Pairs marked apart ({@link ApartPairs}): a record whose most similar candidate is marked apart
 * from it is kept, not removed for the next most similar one. A person rejected its closest match;
 * a less similar candidate is no better evidence, and an exact twin of the rejected row (as
 * similar, and ranked next) would otherwise take its place, undoing the decision the person undid.
 * No merge removes a record in favour of a survivor it is marked apart from.
 *
 * <p>Records outside the window are not examined but are kept (they stay, so they may absorb older
 * records of the window). A window of record ids (a nightly run: the records indexed since the last
 * applied run) also takes in the older records that one of its records meets: a new or re-dated
 * post can be the newer copy of an older post the last run kept, which a full run would now remove.
 * Records the exact pass removed are skipped; its kept records take part like any other. Records
 * whose fingerprint set is empty (see {@link NearOutcome}) are counted per reason and kept out of
 * the pass: only the exact pass can remove them.
 *
 * <p>Over 300 lines because its steps share one run's state read once per document (the
 * newest-first order, the kept set, the field masks, the key frequencies); which records meet is in
 * {@link NearCandidateIndex}, the group bookkeeping and the linkage in {@link NearGroups}.
 *
 * <p>One instance per run; {@link #run} uses its own workers.
 */
public final class NearPass {
  /** The rule of its removals. */
  private static final DeletionPlan.Rule RULE = DeletionPlan.Rule.of(NearMethod.NAME);

  /**
   * What the pass found.
   *
   * @param recordsExamined live records of the window
   * @param removed records planned for removal by this pass
   * @param skippedExact records of the window the exact pass had already removed
   * @param lookups key lookups (one per candidate key of an examined record, all segments)
   * @param keysAlone keys of examined records that no other record holds (document frequency 1):
   *     the lookups a Bloom filter in front of the term dictionary would skip. The pass skips them
   *     with {@link KeyFrequencies}, the exact form of that filter, so it has no false positives.
   * @param candidates pairs of records compared (similarity computed): a kept record and an
   *     examined one, and the pairs of records of two groups the average linkage compared
   * @param empty records of the window without fingerprints, per reason
   * @param truncated records of the window cut to near.max-chars (still fingerprinted)
   */
  public record Result(
      long recordsExamined,
      long removed,
      long skippedExact,
      long lookups,
      long keysAlone,
      long candidates,
      Map<NearOutcome, Long> empty,
      long truncated) {}

  private final IndexSnapshot snapshot;
  private final NearConfig config;
  private final int threads;
  private final ApartPairs apart;

  /** A pass on one thread. */
  public NearPass(IndexSnapshot snapshot, NearConfig config) {
    this(snapshot, config, 1, ApartPairs.NONE);
  }

  /**
   * @param threads workers for the comparisons (0: one per core); the decisions are the same for
   *     any number
   * @param apart pairs marked as not duplicates: a record whose best candidate is marked apart from
   *     it is kept
   */
  public NearPass(IndexSnapshot snapshot, NearConfig config, int threads, ApartPairs apart) {
    this.snapshot = snapshot;
    this.config = config;
    this.threads = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
    this.apart = apart;
  }

  /**
   * Runs the pass over the window and adds its decisions to {@code plan}.
   *
   * @param exactRemovedSorted ids the exact pass removed, ascending (they take no part)
   */
  public Result run(Window window, long[] exactRemovedSorted, DeletionPlan plan) {
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads,
            runnable -> {
              Thread thread = new Thread(runnable, "near-pass");
              thread.setDaemon(true);
              return thread;
            });
    try {
      return doRun(window, exactRemovedSorted, plan, pool);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      pool.shutdownNow();
    }
  }

  private Result doRun(Window window, long[] exactRemoved, DeletionPlan plan, ExecutorService pool)
      throws IOException {
    List<LeafReaderContext> leaves = snapshot.leaves();
    int maxDoc = Math.max(1, snapshot.maxDoc());
    FixedBitSet inWindow = snapshot.windowDocs(window);
    KeyFrequencies frequencies = KeyFrequencies.live(leaves, NearSchema.KEY, NearSchema.KEYS);
    frequencies.useWeights(frequencies.records());
    NearRule.KeyWeights weight = frequencies.weights();
    Map<NearOutcome, Long> empty = new EnumMap<>(NearOutcome.class);
    long examined = 0;
    long skippedExact = 0;
    long truncated = 0;

    // The records taking part: live, not removed by the exact pass, with fingerprints.
    int[] present = new int[maxDoc]; // NearSchema.PRESENT per doc, read once
    FixedBitSet allShort = new FixedBitSet(maxDoc); // allFieldsShort per doc
    FixedBitSet truncatedDocs = new FixedBitSet(maxDoc);
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
        long stored =
            outcomes != null && outcomes.advanceExact(d)
                ? outcomes.longValue()
                : NearOutcome.EMPTY_AFTER_NORMALIZE.ordinal();
        NearOutcome outcome = NearSchema.outcome(stored);
        if (NearSchema.truncated(stored)) {
          truncatedDocs.set(doc);
          if (inside) {
            truncated++;
          }
        }
        if (outcome != NearOutcome.OK) {
          if (inside) {
            empty.merge(outcome, 1L, Long::sum);
          }
          continue;
        }
        if (presentFields != null && presentFields.advanceExact(d)) {
          present[doc] = (int) presentFields.longValue();
          if (shortFields != null
              && shortFields.advanceExact(d)
              && allFieldsShort(present[doc], (int) shortFields.longValue())) {
            allShort.set(doc);
          }
        }
        order[n++] = doc;
      }
    }
    sortNewestFirst(order, n);
    int records = n;

    // Step 1: the records that are not phone-blocked, with their keys, in the newest-first order.
    NearCandidateIndex index =
        new NearCandidateIndex(leaves, maxDoc, order, records, frequencies::get);
    Blocks.inOrder(
        pool,
        threads,
        records,
        BLOCK,
        (from, to) -> {
          long[][] looseKeys = new long[to - from][];
          for (int pos = from; pos < to; pos++) {
            if (!NearCandidates.phoneBlocked(
                IndexedNearKeys.read(leaves, order[pos], NearSchema.TEL), frequencies::get)) {
              looseKeys[pos - from] = IndexedNearKeys.read(leaves, order[pos], NearSchema.KEYS);
            }
          }
          return looseKeys;
        },
        (from, looseKeys) -> {
          for (int i = 0; i < looseKeys.length; i++) {
            if (looseKeys[i] != null) {
              index.addLoose(from + i, looseKeys[i]);
            }
          }
        });

    if (window.ids() != null) {
      int added = addOlderNeighbours(order, records, inWindow, index, frequencies, present);
      examined += added;
    }

    // Step 2, on every core: each record of the window against the newer records it meets; the near
    // duplicates among them, best first. Whether they are kept is decided in step 3.
    int[][] nearOf = new int[records][];
    double[][] scoreOf = new double[records][];
    long[] counts = new long[3]; // lookups, compared, keys alone
    ThreadLocal<Found> found = ThreadLocal.withInitial(() -> new Found(maxDoc));
    Blocks.inOrder(
        pool,
        threads,
        records,
        BLOCK,
        (from, to) -> {
          Found candidates = found.get();
          Compared block = new Compared(to - from);
          for (int pos = from; pos < to; pos++) {
            int doc = order[pos];
            if (inWindow.get(doc)) {
              compare(
                  pos, pos - from, order, present, frequencies, weight, index, candidates, block);
            }
          }
          return block;
        },
        (from, block) -> {
          for (int i = 0; i < block.near.length; i++) {
            nearOf[from + i] = block.near[i];
            scoreOf[from + i] = block.scores[i];
          }
          counts[0] += block.lookups;
          counts[1] += block.compared;
          counts[2] += block.keysAlone;
        });

    // Step 3 and the merge by average linkage, on one thread: NearComponent over every record.
    NearComponent.Result decided =
        NearComponent.decide(
            new PassRecords(
                order, records, inWindow, allShort, nearOf, scoreOf, index, frequencies),
            config,
            weight,
            apart);
    long compared = counts[1] + decided.pairsCompared();
    for (int o = 0; o < n; o++) {
      if (decided.isRemoved(o)) {
        int doc = order[o];
        int survivor = order[decided.survivor()[o]];
        plan.add(
            snapshot.id(doc),
            snapshot.id(survivor),
            RULE,
            decided.score()[o],
            snapshot.state(doc),
            snapshot.state(survivor));
      }
    }
    return new Result(
        examined,
        decided.removed(),
        skippedExact,
        counts[0],
        counts[2],
        compared,
        empty,
        truncated);
  }

  /** Records per block of work handed to a worker. */
  private static final int BLOCK = 2048;

  /** The near duplicates found for a block of records, best first, and what finding them took. */
  private static final class Compared {
    final int[][] near;
    final double[][] scores;
    long lookups;
    long compared;
    long keysAlone;

    Compared(int size) {
      near = new int[size][];
      scores = new double[size][];
    }
  }

  private NearCandidates.Selection select(NearRule.Keys record, KeyFrequencies frequencies) {
    return NearCandidates.select(record, record.tel(), frequencies::get, 2, config.pre());
  }

  /**
   * Compares the record at {@code pos} with every newer record it meets and keeps, in {@code
   * block}, the positions of its near duplicates (at {@code slot}) ordered best first: most
   * similar, then newest ({@link NearRule#isBetter}: the newest-first order is the keep policy's).
   */
  private void compare(
      int pos,
      int slot,
      int[] order,
      int[] present,
      KeyFrequencies frequencies,
      NearRule.KeyWeights weight,
      NearCandidateIndex index,
      Found candidates,
      Compared block)
      throws IOException {
    List<LeafReaderContext> leaves = snapshot.leaves();
    int doc = order[pos];
    NearRule.Keys record = IndexedNearKeys.of(leaves, doc).withPresentFields(present[doc]);
    NearCandidates.Selection selection = select(record, frequencies);
    block.keysAlone += selection.alone();
    block.lookups += index.forEach(pos, selection, true, other -> candidates.add(order[other]));
    if (candidates.size == 0) {
      return;
    }
    Arrays.sort(candidates.docs, 0, candidates.size); // forward-only doc values per segment
    int leafIndex = -1;
    BinaryDocValues values = null;
    int[] near = new int[8];
    double[] scores = new double[8];
    int found = 0;
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
      block.compared++;
      long[] other = NearSchema.decode(values.binaryValue());
      IndexedNearKeys candidate =
          new IndexedNearKeys(leaves, g, other).withPresentFields(present[g]);
      if (!NearRule.isNearDuplicate(record, candidate, config, weight)) {
        continue;
      }
      if (found == near.length) {
        near = Arrays.copyOf(near, found * 2);
        scores = Arrays.copyOf(scores, found * 2);
      }
      near[found] = g;
      scores[found] = NearRule.similarity(record, candidate, weight);
      found++;
    }
    candidates.clear();
    if (found == 0) {
      return;
    }
    Integer[] rank = new Integer[found];
    for (int i = 0; i < found; i++) {
      rank[i] = i;
    }
    int[] docs = near;
    double[] sims = scores;
    Arrays.sort(
        rank,
        (a, b) ->
            sims[a] != sims[b]
                ? Double.compare(sims[b], sims[a])
                : compareNewestFirst(docs[a], docs[b]));
    int[] nearPositions = new int[found];
    double[] nearScores = new double[found];
    for (int i = 0; i < found; i++) {
      nearPositions[i] = index.positionOf(docs[rank[i]]);
      nearScores[i] = sims[rank[i]];
    }
    block.near[slot] = nearPositions;
    block.scores[slot] = nearScores;
  }

  /** The records of the pass for {@link NearComponent}: positions of the newest-first order. */
  private final class PassRecords implements NearComponent.Records {
    private final int[] order;
    private final int size;
    private final FixedBitSet inWindow;
    private final FixedBitSet allShort;
    private final int[][] nearOf;
    private final double[][] scoreOf;
    private final NearCandidateIndex index;
    private final KeyFrequencies frequencies;
    private final Map<Integer, NearRule.Keys> read =
        new java.util.LinkedHashMap<>(1024, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Integer, NearRule.Keys> eldest) {
            return size() > KEYS_HELD;
          }
        };

    PassRecords(
        int[] order,
        int size,
        FixedBitSet inWindow,
        FixedBitSet allShort,
        int[][] nearOf,
        double[][] scoreOf,
        NearCandidateIndex index,
        KeyFrequencies frequencies) {
      this.order = order;
      this.size = size;
      this.inWindow = inWindow;
      this.allShort = allShort;
      this.nearOf = nearOf;
      this.scoreOf = scoreOf;
      this.index = index;
      this.frequencies = frequencies;
    }

    @Override
    public int size() {
      return size;
    }

    @Override
    public long id(int pos) {
      return snapshot.id(order[pos]);
    }

    @Override
    public long rank(int pos) {
      return snapshot.rank(order[pos]);
    }

    @Override
    public boolean inWindow(int pos) {
      return inWindow.get(order[pos]);
    }

    @Override
    public boolean allShort(int pos) {
      return allShort.get(order[pos]);
    }

    @Override
    public int[] near(int pos) {
      return nearOf[pos];
    }

    @Override
    public double[] scores(int pos) {
      return scoreOf[pos];
    }

    @Override
    public void meets(int pos, java.util.function.IntConsumer sink) throws IOException {
      index.forEach(pos, select(keys(pos), frequencies), false, sink);
    }

    @Override
    public NearRule.Keys keys(int pos) {
      return read.computeIfAbsent(pos, p -> IndexedNearKeys.stored(snapshot.leaves(), order[p]));
    }
  }

  /**
   * Distinct documents found for one record, in the order found; {@link #clear} before the next
   * record.
   */
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
   * name, a code, a street): a record of such fields varies by typos, so two variants of one
   * original can be further apart than each is from it. Records with text fields are left to the
   * greedy pass: on them, average linkage joined different citations through a citation the greedy
   * pass had already joined wrongly (cora's precision fell from 0.992 to 0.973;
   * NEAR-FINGERPRINTS.md).
   */
  static boolean allFieldsShort(NearRule.Keys record) {
    return allFieldsShort(record.presentFields(), record.shortFields());
  }

  private static boolean allFieldsShort(int presentFields, int shortFields) {
    return presentFields != 0 && (presentFields & ~shortFields) == 0;
  }

  /**
   * Records whose keys {@link PassRecords} holds in memory, most recently used (groups meet their
   * neighbours).
   */
  private static final int KEYS_HELD = 10_000;

  /**
   * Adds to {@code inWindow} the records of the pass outside it that a record of the window meets
   * and that come after it in the newest-first order: those whose examination a new record can
   * change (a new or re-dated post can be the newer copy of an older post the last run kept).
   * Returns how many.
   */
  private int addOlderNeighbours(
      int[] order,
      int n,
      FixedBitSet inWindow,
      NearCandidateIndex index,
      KeyFrequencies frequencies,
      int[] present)
      throws IOException {
    List<LeafReaderContext> leaves = snapshot.leaves();
    FixedBitSet neighbours = new FixedBitSet(Math.max(1, snapshot.maxDoc()));
    for (int pos = 0; pos < n; pos++) {
      int doc = order[pos];
      if (!inWindow.get(doc)) {
        continue;
      }
      int from = pos;
      index.forEach(
          pos,
          select(IndexedNearKeys.of(leaves, doc).withPresentFields(present[doc]), frequencies),
          false,
          other -> {
            if (other > from && !inWindow.get(order[other])) {
              neighbours.set(order[other]);
            }
          });
    }
    int added = (int) neighbours.cardinality();
    inWindow.or(neighbours);
    return added;
  }

  /** Orders docs by preference, the kept one first ({@link KeepPolicy}: rank desc, id desc). */
  private void sortNewestFirst(int[] docs, int n) {
    IntArrays.sort(docs, 0, n, this::compareNewestFirst);
  }

  /** Negative when doc {@code a} is kept over doc {@code b}: the newest-first order. */
  private int compareNewestFirst(int a, int b) {
    return KeepPolicy.compare(snapshot.rank(b), snapshot.id(b), snapshot.rank(a), snapshot.id(a));
  }
}
