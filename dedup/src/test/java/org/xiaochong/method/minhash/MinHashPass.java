package org.xiaochong.method.minhash;

import java.io.IOException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.index.TermHolders;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.Window;
import org.xiaochong.policy.KeepPolicy;

/**
 * The minhash pass: the window's live records, the most preferred ({@link KeepPolicy}) first; for
 * each, the records sharing one of its band terms whose signatures agree in at least the
 * threshold's share of positions. The less preferred of each such pair is removed in favour of the
 * other, and a record is removed in favour of its most similar more preferred match, as the simhash
 * pass does; marked pairs ({@link ApartPairs}) stay, and so does a record whose best match is
 * marked apart from it. Records in the plan already take no part. Not thread-safe.
 */
final class MinHashPass {
  record Result(long examined, long matches) {}

  private final IndexSnapshot snapshot;
  private final double threshold;
  private final ApartPairs apart;

  MinHashPass(DirectoryReader reader, KeepPolicy keepPolicy, double threshold, ApartPairs apart) {
    this.snapshot = new IndexSnapshot(reader, keepPolicy);
    this.threshold = threshold;
    this.apart = apart;
  }

  Result run(Window window, DeletionPlan plan) throws IOException {
    long[] planned = plan.removedIdsSorted();
    FixedBitSet examined = snapshot.windowDocs(window);
    int[][] signatures = MinHashSignatures.load(snapshot.leaves(), snapshot.maxDoc());
    FixedBitSet removedNow = new FixedBitSet(Math.max(1, snapshot.maxDoc()));
    FixedBitSet keptApart = new FixedBitSet(Math.max(1, snapshot.maxDoc()));
    TermHolders holders = new TermHolders(snapshot.leaves(), MinHashSignatures.BAND_FIELD);
    DeletionPlan.Rule rule = DeletionPlan.Rule.of(MinHashMethod.NAME);
    long matches = 0;
    Integer[] order =
        IntStream.range(0, snapshot.maxDoc()).filter(examined::get).boxed().toArray(Integer[]::new);
    Arrays.sort(
        order,
        Comparator.comparing(
            (Integer d) -> d,
            (a, b) ->
                -KeepPolicy.compare(
                    snapshot.rank(a), snapshot.id(a), snapshot.rank(b), snapshot.id(b))));
    for (int doc : order) {
      if (signatures[doc] == null
          || removedNow.get(doc)
          || Arrays.binarySearch(planned, snapshot.id(doc)) >= 0) {
        continue;
      }
      int best = doc;
      double bestSimilarity = 0;
      java.util.Set<Integer> seen = new java.util.HashSet<>();
      for (int band = 0; band < MinHashSignatures.BANDS; band++) {
        for (int other = holders.first(MinHashSignatures.bandTerm(band, signatures[doc]));
            other != TermHolders.NO_MORE_DOCS;
            other = holders.next()) {
          if (other == doc
              || !seen.add(other)
              || signatures[other] == null
              || removedNow.get(other)
              || Arrays.binarySearch(planned, snapshot.id(other)) >= 0) {
            continue;
          }
          double similarity = MinHashSignatures.similarity(signatures[doc], signatures[other]);
          if (similarity < threshold) {
            continue;
          }
          matches++;
          if (preferred(doc, other)) {
            if (keptApart.get(other)) {
              continue;
            }
            if (apart.keepsApart(snapshot.id(other), snapshot.id(doc))) {
              keptApart.set(other);
              continue;
            }
            add(plan, rule, other, doc, similarity);
            removedNow.set(other);
          } else if (similarity > bestSimilarity
              || (similarity == bestSimilarity && preferred(other, best))) {
            best = other;
            bestSimilarity = similarity;
          }
        }
      }
      if (best != doc
          && !keptApart.get(doc)
          && !apart.keepsApart(snapshot.id(doc), snapshot.id(best))) {
        add(plan, rule, doc, best, bestSimilarity);
        removedNow.set(doc);
      }
    }
    return new Result(examined.cardinality(), matches);
  }

  private boolean preferred(int a, int b) {
    return KeepPolicy.isPreferred(
        snapshot.rank(a), snapshot.id(a), snapshot.rank(b), snapshot.id(b));
  }

  private void add(
      DeletionPlan plan, DeletionPlan.Rule rule, int removed, int kept, double similarity) {
    plan.add(
        snapshot.id(removed),
        snapshot.id(kept),
        rule,
        similarity,
        snapshot.state(removed),
        snapshot.state(kept));
  }
}
