package org.xiaochong.method.near;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.method.near.fingerprint.NearOutcome;
import org.xiaochong.method.near.fingerprint.NearSimilarity;
import org.xiaochong.method.near.index.NearSchema;
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
 * fields are all short ({@link PassDocuments#allFieldsShort}), newest first, joins the newer group
 * whose records it is most alike on average, when that average reaches near.min-similarity and one
 * pair of their records passes the whole rule (score = the average). Every group's survivor is its
 * newest record and every removal points to it: no chains. The plan gets the decisions when both
 * steps are done.
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
 * <p>The documents are read once ({@link PassDocuments}); which records meet is in {@link
 * NearCandidateIndex}, step 2 in {@link NewerNearDuplicates}, step 3 and the linkage in {@link
 * NearComponent} and {@link NearGroups}.
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

    // The records taking part: live, not removed by the exact pass, with fingerprints.
    PassDocuments docs = PassDocuments.read(snapshot, inWindow, exactRemoved);
    int[] order = docs.order();
    int records = docs.records();

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

    long examined =
        docs.examined()
            + (window.ids() == null ? 0 : addOlderNeighbours(docs, inWindow, index, frequencies));

    // Step 2, on every core: each record of the window against the newer records it meets; the near
    // duplicates among them, best first. Whether they are kept is decided in step 3.
    int[][] nearOf = new int[records][];
    double[][] scoreOf = new double[records][];
    long[] counts = new long[3]; // lookups, compared, keys alone
    NewerNearDuplicates step2 =
        new NewerNearDuplicates(snapshot, config, docs, inWindow, frequencies, weight, index);
    Blocks.inOrder(
        pool,
        threads,
        records,
        BLOCK,
        step2::find,
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
            new PassRecords(snapshot, config, docs, inWindow, nearOf, scoreOf, index, frequencies),
            config,
            weight,
            apart);
    long compared = counts[1] + decided.pairsCompared();
    for (int o = 0; o < records; o++) {
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
        docs.skippedExact(),
        counts[0],
        counts[2],
        compared,
        docs.empty(),
        docs.truncated());
  }

  /** Records per block of work handed to a worker. */
  private static final int BLOCK = 2048;

  /**
   * The keys a record of the pass looks up ({@link NearCandidates#select}), with the key
   * frequencies of the run; the record is one of the holders of its keys.
   */
  static NearCandidates.Selection select(
      NearRule.Keys record, KeyFrequencies frequencies, NearConfig config) {
    return NearCandidates.select(record, record.tel(), frequencies::get, 2, config.pre());
  }

  /**
   * Adds to {@code inWindow} the records of the pass outside it that a record of the window meets
   * and that come after it in the newest-first order: those whose examination a new record can
   * change (a new or re-dated post can be the newer copy of an older post the last run kept).
   * Returns how many.
   */
  private int addOlderNeighbours(
      PassDocuments docs,
      FixedBitSet inWindow,
      NearCandidateIndex index,
      KeyFrequencies frequencies)
      throws IOException {
    List<LeafReaderContext> leaves = snapshot.leaves();
    int[] order = docs.order();
    int[] present = docs.present();
    FixedBitSet neighbours = new FixedBitSet(Math.max(1, snapshot.maxDoc()));
    for (int pos = 0; pos < docs.records(); pos++) {
      int doc = order[pos];
      if (!inWindow.get(doc)) {
        continue;
      }
      int from = pos;
      index.forEach(
          pos,
          select(
              IndexedNearKeys.of(leaves, doc).withPresentFields(present[doc]), frequencies, config),
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
}
