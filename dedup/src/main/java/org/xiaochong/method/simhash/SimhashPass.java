package org.xiaochong.method.simhash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.FixedBitSet;
import org.apache.lucene.util.IntroSorter;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.index.TermHolders;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.Window;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.simhash.Simhash64;
import org.xiaochong.simhash.SimhashIndex;

/**
 * The simhash pass over a snapshot of the simhash index: for each live record of the window with a
 * fingerprint, the records within Hamming distance k: its four {@link SimhashIndex} block terms
 * looked up ({@link TermHolders}), each candidate's full value checked ({@code Long.bitCount(a ^ b)
 * <= k}), as {@link SimhashIndex#search} does, with one cursor and the values loaded once for the
 * whole pass. Of each such pair the less preferred record ({@link KeepPolicy}) is removed in favour
 * of the other, scored by the likeness (64 - d) / 64. Records already in the plan, or removed
 * earlier in this pass, take no part. Of a pair marked apart ({@link ApartPairs}) neither is
 * removed for the other, and a record whose most preferred match is marked apart from it is kept
 * (as in the near pass: another match, e.g. an exact twin of the rejected row, would undo what the
 * person undid).
 *
 * <p>The window is examined from its most preferred record down, so a record kept by this pass is
 * never removed later in it: the pass makes no chain, and every removal keeps the row states of
 * both records, so the apply moves it without deciding again unless a row changed since. A chain
 * through an earlier method's removal is the caller's to collapse. Not thread-safe.
 */
final class SimhashPass {
  /**
   * @param examined live records of the window
   * @param removed removals this pass added
   * @param skipped records of the window an earlier method of the run had removed
   * @param empty records of the window without a fingerprint (no features in their text)
   * @param lookups records whose four block terms were looked up
   * @param matches other records found within k of an examined record
   */
  record Result(
      long examined, long removed, long skipped, long empty, long lookups, long matches) {}

  private final IndexSnapshot snapshot;
  private final int maxDistance;
  private final ApartPairs apart;
  private int[] candidates = new int[64];

  SimhashPass(IndexSnapshot snapshot, int maxDistance) {
    this(snapshot, maxDistance, ApartPairs.NONE);
  }

  /**
   * @param apart pairs marked as not duplicates: neither is removed in favour of the other
   */
  SimhashPass(IndexSnapshot snapshot, int maxDistance, ApartPairs apart) {
    this.snapshot = snapshot;
    this.maxDistance = maxDistance;
    this.apart = apart;
  }

  Result run(Window window, DeletionPlan plan) {
    long[] planned = plan.removedIdsSorted();
    FixedBitSet examined = snapshot.windowDocs(window);
    FixedBitSet hasValue = new FixedBitSet(Math.max(1, snapshot.maxDoc()));
    long[] values = values(hasValue);
    FixedBitSet removedNow = new FixedBitSet(hasValue.length());
    FixedBitSet keptApart =
        new FixedBitSet(hasValue.length()); // records whose most preferred match is marked apart
    DeletionPlan.Rule rule = DeletionPlan.Rule.of(SimhashMethod.NAME);
    long removed = 0;
    long skipped = 0;
    long empty = 0;
    long lookups = 0;
    long matches = 0;
    try {
      TermHolders holders = new TermHolders(snapshot.leaves(), SimhashIndex.BLOCK_FIELD);
      for (int doc : preferredFirst(examined)) {
        if (Arrays.binarySearch(planned, snapshot.id(doc)) >= 0) {
          skipped++;
          continue;
        }
        if (!hasValue.get(doc)) {
          empty++;
          continue;
        }
        if (removedNow.get(doc)) {
          continue;
        }
        lookups++;
        int count = candidates(holders, values[doc]);
        int best = doc;
        for (int i = 0; i < count; i++) {
          int other = candidates[i];
          int distance = Long.bitCount(values[doc] ^ values[other]);
          if (other == doc
              || distance > maxDistance
              || !hasValue.get(other)
              || removedNow.get(other)
              || Arrays.binarySearch(planned, snapshot.id(other)) >= 0) {
            continue;
          }
          matches++;
          if (preferred(doc, other)) {
            if (keptApart.get(other)) {
              continue; // a more preferred match, marked apart from it, came first: it stays
            }
            if (apart.keepsApart(snapshot.id(other), snapshot.id(doc))) {
              keptApart.set(
                  other); // doc is its most preferred match left: removing it for a later one
              continue; // (often an exact twin of doc) would undo what a person undid
            }
            add(plan, rule, other, doc, distance);
            removedNow.set(other);
            removed++;
          } else if (preferred(other, best)) {
            best = other;
          }
        }
        if (best != doc
            && !keptApart.get(doc)
            && !apart.keepsApart(snapshot.id(doc), snapshot.id(best))) {
          add(plan, rule, doc, best, Simhash64.distance(values[doc], values[best]));
          removedNow.set(doc);
          removed++;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Result(examined.cardinality(), removed, skipped, empty, lookups, matches);
  }

  /**
   * The live documents that share a block term with {@code simhash} (k + 1 = 4 blocks: every
   * document within distance 3 shares one, by pigeonhole), each once, into {@link #candidates};
   * returns how many. Their distance is the caller's to check, from the values loaded once, so a
   * lookup reads no doc values.
   */
  private int candidates(TermHolders holders, long simhash) throws IOException {
    int count = 0;
    for (int block = 0; block < SimhashIndex.BLOCKS; block++) {
      for (int doc = holders.first(SimhashIndex.blockTerm(block, simhash));
          doc != TermHolders.NO_MORE_DOCS;
          doc = holders.next()) {
        if (count == candidates.length) {
          candidates = Arrays.copyOf(candidates, count * 2);
        }
        candidates[count++] = doc;
      }
    }
    Arrays.sort(candidates, 0, count);
    int distinct = 0;
    for (int i = 0; i < count; i++) {
      if (distinct == 0 || candidates[i] != candidates[distinct - 1]) {
        candidates[distinct++] = candidates[i];
      }
    }
    return distinct;
  }

  private boolean preferred(int a, int b) {
    return KeepPolicy.isPreferred(
        snapshot.rank(a), snapshot.id(a), snapshot.rank(b), snapshot.id(b));
  }

  private void add(
      DeletionPlan plan, DeletionPlan.Rule rule, int removedDoc, int keptDoc, int distance) {
    plan.add(
        snapshot.id(removedDoc),
        snapshot.id(keptDoc),
        rule,
        SimhashMethod.likeness(distance),
        snapshot.state(removedDoc),
        snapshot.state(keptDoc));
  }

  /**
   * Every document's fingerprint by global doc id; {@code hasValue} marks the documents that have
   * one.
   */
  private long[] values(FixedBitSet hasValue) {
    long[] values = new long[snapshot.maxDoc()];
    try {
      for (LeafReaderContext leaf : snapshot.leaves()) {
        NumericDocValues docValues = leaf.reader().getNumericDocValues(SimhashIndex.VALUE_FIELD);
        if (docValues == null) {
          continue;
        }
        for (int doc = docValues.nextDoc();
            doc != NumericDocValues.NO_MORE_DOCS;
            doc = docValues.nextDoc()) {
          values[leaf.docBase + doc] = docValues.longValue();
          hasValue.set(leaf.docBase + doc);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return values;
  }

  /** The documents of {@code docs}, the most preferred ({@link KeepPolicy}) first. */
  private int[] preferredFirst(FixedBitSet docs) {
    int[] order = new int[docs.cardinality()];
    int n = 0;
    for (int doc = docs.nextSetBit(0);
        doc != DocIdSetIterator.NO_MORE_DOCS;
        doc = doc + 1 < docs.length() ? docs.nextSetBit(doc + 1) : DocIdSetIterator.NO_MORE_DOCS) {
      order[n++] = doc;
    }
    new IntroSorter() {
      private int pivot;

      @Override
      protected void setPivot(int i) {
        pivot = order[i];
      }

      @Override
      protected int comparePivot(int j) {
        return byPreference(pivot, order[j]);
      }

      @Override
      protected int compare(int i, int j) {
        return byPreference(order[i], order[j]);
      }

      private int byPreference(int a, int b) {
        return -KeepPolicy.compare(
            snapshot.rank(a), snapshot.id(a), snapshot.rank(b), snapshot.id(b));
      }

      @Override
      protected void swap(int i, int j) {
        int doc = order[i];
        order[i] = order[j];
        order[j] = doc;
      }
    }.sort(0, n);
    return order;
  }
}
