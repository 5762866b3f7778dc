package org.xiaochong.method.linkage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.Window;
import org.xiaochong.policy.KeepPolicy;

/**
 * The linkage pass over a snapshot of the linkage index:
 *
 * <ol>
 *   <li>every live record's compared values are loaded once;
 *   <li>when the index has no model yet, one is fitted ({@link #train}) and the caller saves it;
 *   <li>each record of the window looks up its candidates ({@link CandidateFinder}), and each pair
 *       whose match probability under the model reaches the threshold is linked;
 *   <li>linked records form groups (connected components, as Splink clusters at a threshold): a
 *       copy that drifted twice from its original still joins it through the copy in between. Of
 *       each group the most preferred record ({@link KeepPolicy}) is kept and the others are
 *       removed in its favour, each scored by its own match probability with the kept record; a
 *       member whose own probability with it is below the threshold stays, and those that stayed
 *       are grouped again among themselves ({@link LinkageGroups#regroup}).
 * </ol>
 *
 * <p>Records already in the plan (removed by an earlier method of the run) are not in the index:
 * the method takes them out before the pass, as a sync leaves them out ({@link LinkageMethod}), so
 * they take no part and decide nothing. Two records marked apart ({@link ApartPairs}) are never
 * linked, and a record marked apart from its group's kept record stays. Not thread-safe.
 */
final class LinkagePass {
  /** Random pairs drawn for u (the mixture training refines it among the candidates). */
  static final int RANDOM_PAIRS = 20_000;

  /** Records whose candidate pairs train m and λ: a deterministic sample beyond this. */
  static final int TRAINING_RECORDS = 20_000;

  /**
   * A record's links (its candidates a model matches) whose pairs are tested for closing: the first
   * this many, so that the test costs at most 28 comparisons a training record.
   */
  static final int CLOSURE_LINKS = 8;

  private final IndexSnapshot snapshot;
  private final LinkageSettings settings;
  private final List<ColumnKind> kinds;
  private final ApartPairs apart;
  private final String[][] values;
  private final FixedBitSet live;
  private final int liveCount;
  private final long[] ids;

  LinkagePass(
      IndexSnapshot snapshot, LinkageSettings settings, List<ColumnKind> kinds, ApartPairs apart) {
    this.snapshot = snapshot;
    this.settings = settings;
    this.kinds = kinds;
    this.apart = apart;
    this.values = LinkageIndex.loadValues(snapshot.leaves(), snapshot.maxDoc(), kinds.size());
    this.live = new FixedBitSet(Math.max(1, snapshot.maxDoc()));
    for (LeafReaderContext leaf : snapshot.leaves()) {
      Bits liveDocs = leaf.reader().getLiveDocs();
      for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
        if ((liveDocs == null || liveDocs.get(doc)) && values[leaf.docBase + doc] != null) {
          live.set(leaf.docBase + doc);
        }
      }
    }
    this.liveCount = live.cardinality();
    this.ids = new long[Math.max(1, snapshot.maxDoc())];
    for (int doc = 0; doc < snapshot.maxDoc(); doc++) {
      ids[doc] = snapshot.id(doc);
    }
  }

  /** A candidate lookup as the pass makes it (the same holders, caps and live-record count). */
  CandidateFinder finder() {
    return new CandidateFinder(
        snapshot.leaves(), ids, liveCount, kinds, settings.maxHolders(), settings.candidates());
  }

  /** The candidates {@code finder} gives the live record {@code doc}; returns how many it wrote. */
  int candidates(CandidateFinder finder, int doc, int[] out) {
    return finder.find(doc, ids[doc], values[doc], out);
  }

  /** Whether {@code doc} is a live record with compared values: one the pass takes part. */
  boolean isLive(int doc) {
    return live.get(doc);
  }

  /** The levels of two records' columns. */
  int[] levels(int a, int b) {
    return ColumnKind.levels(kinds, values[a], values[b]);
  }

  /**
   * Fits a model to this index: u from {@value #RANDOM_PAIRS} random pairs of live records, m and λ
   * by EM over the candidate pairs of up to {@value #TRAINING_RECORDS} records; both samples drawn
   * with a fixed seed, so the same index gives the same model.
   */
  LinkageModel train(List<String> columns, List<String> profileNotes) {
    ModelTraining training = new ModelTraining(columns, kinds);
    profileNotes.forEach(training::note);
    int[] docs = liveDocs();
    SplittableRandom random = new SplittableRandom(20081118L);
    if (docs.length >= 2) {
      long possible = (long) docs.length * (docs.length - 1) / 2;
      long draws = Math.min(RANDOM_PAIRS, possible);
      for (long i = 0; i < draws; i++) {
        int a = docs[random.nextInt(docs.length)];
        int b = docs[random.nextInt(docs.length)];
        if (a == b) {
          continue;
        }
        training.addRandomPair(levels(a, b));
      }
    }
    int step = Math.max(1, docs.length / TRAINING_RECORDS);
    CandidateFinder finder = finder();
    int[] found = new int[settings.candidates()];
    training.records(docs.length, (docs.length + step - 1) / step);
    // Each training record with its candidates: the pairs EM learns from, and the links whose
    // closing chooses between its fits (looked up once, for both).
    List<int[]> trainingCandidates = new ArrayList<>();
    for (int i = 0; i < docs.length; i += step) {
      int doc = docs[i];
      int n = finder.find(doc, ids[doc], values[doc], found);
      int[] recordAndCandidates = new int[n + 1];
      recordAndCandidates[0] = doc;
      System.arraycopy(found, 0, recordAndCandidates, 1, n);
      trainingCandidates.add(recordAndCandidates);
      for (int j = 0; j < n; j++) {
        training.addCandidatePair(levels(doc, found[j]));
      }
    }
    return training.fit(settings.training(), model -> closure(model, trainingCandidates));
  }

  /**
   * How often the links {@code model} makes among the training records' candidates close: for each
   * training record A and two of its candidates B, C that the model matches (probability over one
   * half), whether it matches B and C too.
   */
  private ModelTraining.Closure closure(LinkageModel model, List<int[]> trainingCandidates) {
    int[] linked = new int[CLOSURE_LINKS];
    long closed = 0;
    long paths = 0;
    for (int[] recordAndCandidates : trainingCandidates) {
      int doc = recordAndCandidates[0];
      int links = 0;
      for (int j = 1; j < recordAndCandidates.length && links < CLOSURE_LINKS; j++) {
        if (model.probability(levels(doc, recordAndCandidates[j])) > 0.5) {
          linked[links++] = recordAndCandidates[j];
        }
      }
      for (int x = 0; x < links; x++) {
        for (int y = x + 1; y < links; y++) {
          paths++;
          if (model.probability(levels(linked[x], linked[y])) > 0.5) {
            closed++;
          }
        }
      }
    }
    return new ModelTraining.Closure(closed, paths);
  }

  /**
   * Links and groups the records of {@code window}, adding the removals to {@code plan}.
   *
   * @param skipped records of the window an earlier method of the run removed (the caller took them
   *     out of the index first)
   */
  LinkageCounts run(Window window, DeletionPlan plan, LinkageModel model, long skipped) {
    FixedBitSet examined = snapshot.windowDocs(window);
    int maxDoc = Math.max(1, snapshot.maxDoc());
    int[] parent = new int[maxDoc];
    for (int i = 0; i < maxDoc; i++) {
      parent[i] = i;
    }
    CandidateFinder finder = finder();
    int[] found = new int[settings.candidates()];
    long candidates = 0;
    long links = 0;
    int[] examinedDocs = docs(examined);
    for (int doc : examinedDocs) {
      if (!live.get(doc)) {
        continue;
      }
      int n = finder.find(doc, ids[doc], values[doc], found);
      for (int j = 0; j < n; j++) {
        int other = found[j];
        if (!live.get(other)) {
          continue;
        }
        candidates++;
        if (model.probability(levels(doc, other)) >= settings.threshold()
            && !apart.keepsApart(snapshot.id(doc), snapshot.id(other))) {
          links++;
          union(parent, doc, other);
        }
      }
    }
    // Each group's most preferred record, then every other member removed in its favour.
    int[] best = new int[maxDoc];
    Arrays.fill(best, -1);
    int[] members = new int[maxDoc];
    for (int doc = 0; doc < maxDoc; doc++) {
      if (!live.get(doc)) {
        continue;
      }
      int root = find(parent, doc);
      members[root]++;
      if (best[root] < 0 || preferred(doc, best[root])) {
        best[root] = doc;
      }
    }
    DeletionPlan.Rule rule = DeletionPlan.Rule.of(LinkageMethod.NAME);
    long removed = 0;
    long groups = 0;
    long indirect = 0;
    for (int doc = 0; doc < maxDoc; doc++) {
      if (live.get(doc) && find(parent, doc) == doc && members[doc] > 1) {
        groups++;
      }
    }
    int[] leftHead = new int[maxDoc];
    Arrays.fill(leftHead, -1);
    int[] leftNext = new int[maxDoc];
    for (int doc = 0; doc < maxDoc; doc++) {
      if (!live.get(doc)) {
        continue;
      }
      int root = find(parent, doc);
      int kept = best[root];
      if (members[root] < 2 || kept == doc) {
        continue;
      }
      if (apart.keepsApart(snapshot.id(doc), snapshot.id(kept))) {
        continue;
      }
      double direct = model.probability(levels(doc, kept));
      if (direct < settings.threshold()) {
        leftNext[doc] = leftHead[root];
        leftHead[root] = doc;
        continue;
      }
      plan.add(
          snapshot.id(doc),
          snapshot.id(kept),
          rule,
          direct,
          snapshot.state(doc),
          snapshot.state(kept));
      removed++;
    }
    // The members too far from their group's kept record, grouped again among themselves.
    long[] regrouped = {0};
    LinkageGroups.Regrouping regrouping =
        new LinkageGroups.Regrouping() {
          @Override
          public boolean preferred(int a, int b) {
            return LinkagePass.this.preferred(a, b);
          }

          @Override
          public double probability(int member, int kept) {
            return apart.keepsApart(snapshot.id(member), snapshot.id(kept))
                ? 0
                : model.probability(levels(member, kept));
          }

          @Override
          public void remove(int member, int kept, double probability) {
            plan.add(
                snapshot.id(member),
                snapshot.id(kept),
                rule,
                probability,
                snapshot.state(member),
                snapshot.state(kept));
            regrouped[0]++;
          }
        };
    for (int root = 0; root < maxDoc; root++) {
      if (leftHead[root] < 0) {
        continue;
      }
      int[] left = new int[16];
      int n = 0;
      for (int doc = leftHead[root]; doc >= 0; doc = leftNext[doc]) {
        if (n == left.length) {
          left = Arrays.copyOf(left, n * 2);
        }
        left[n++] = doc;
      }
      indirect += LinkageGroups.regroup(left, n, settings.threshold(), regrouping);
    }
    removed += regrouped[0];
    return new LinkageCounts(
        examined.cardinality(),
        removed,
        skipped,
        candidates,
        links,
        groups,
        indirect,
        finder.postings());
  }

  private boolean preferred(int a, int b) {
    return KeepPolicy.isPreferred(
        snapshot.rank(a), snapshot.id(a), snapshot.rank(b), snapshot.id(b));
  }

  /** The live documents in record id order: samples drawn from it do not depend on doc order. */
  private int[] liveDocs() {
    int[] docs = docs(live);
    Integer[] boxed = new Integer[docs.length];
    for (int i = 0; i < docs.length; i++) {
      boxed[i] = docs[i];
    }
    Arrays.sort(boxed, (a, b) -> Long.compare(ids[a], ids[b]));
    for (int i = 0; i < docs.length; i++) {
      docs[i] = boxed[i];
    }
    return docs;
  }

  private static int[] docs(FixedBitSet set) {
    int[] docs = new int[set.cardinality()];
    int n = 0;
    for (int doc = set.nextSetBit(0);
        doc != org.apache.lucene.search.DocIdSetIterator.NO_MORE_DOCS;
        doc =
            doc + 1 < set.length()
                ? set.nextSetBit(doc + 1)
                : org.apache.lucene.search.DocIdSetIterator.NO_MORE_DOCS) {
      docs[n++] = doc;
    }
    return docs;
  }

  private static int find(int[] parent, int x) {
    while (parent[x] != x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  }

  private static void union(int[] parent, int a, int b) {
    int ra = find(parent, a);
    int rb = find(parent, b);
    if (ra != rb) {
      parent[Math.max(ra, rb)] = Math.min(ra, rb);
    }
  }
}
