package org.xiaochong.method.linkage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.index.IntArrays;
import org.xiaochong.index.TermHolders;

/**
 * A record's candidates in the linkage index: the records that share its rarest {@link
 * BlockingKeys}, ranked by the evidence of the keys they share (each key weighs log(1 + n / its
 * holders), as an idf does), at most {@code limit} of them. A key held by more than {@code
 * maxHolders} records is not walked whole: only its {@value #NEIGHBOURS} holders with the next ids
 * after the record's are taken (a sorted neighbourhood, so that rows sharing one common value still
 * chain into a group; each such key's holders are read and sorted once per finder, kept as one int
 * each); the other keys are walked rarest first within a budget of {@value #POSTINGS_PER_RECORD}
 * postings, so one lookup costs the same whatever the table's size. Not thread-safe: one per
 * thread, over a reader that stays open.
 */
final class CandidateFinder {
  /**
   * Postings a lookup reads at most: the rarest keys are walked first, and the lookup stops when
   * the next key would pass this. Long texts have hundreds of keys; their rarest ones find the
   * copies.
   */
  static final int POSTINGS_PER_RECORD = 2_000;

  /** Holders taken after the record itself for each key too common to walk whole. */
  static final int NEIGHBOURS = 3;

  private final TermHolders holders;
  private final long[] ids;

  /**
   * Every doc by record id (ties by doc): a common key's holders are kept as their ranks here, one
   * sorted int per holder, rather than as (id, doc) pairs.
   */
  private final int[] docByRank;

  /** Each doc's place in {@link #docByRank}. */
  private final int[] rankOfDoc;

  private final java.util.Map<BytesRef, int[]> commonHolders = new java.util.HashMap<>();
  private final BlockingKeys blocking;
  private final int maxHolders;
  private final int limit;
  private final double docCount;
  private final float[] score;
  private int[] touched = new int[256];
  private final int[] keyHolders;
  private final boolean deletions;
  private long postings;

  /**
   * @param ids each document's record id, by global doc: ties and neighbourhoods are decided by
   *     record id, never by the order documents happen to have in the index, so the same table
   *     gives the same candidates however it was indexed
   */
  CandidateFinder(
      List<LeafReaderContext> leaves,
      long[] ids,
      int docCount,
      List<ColumnKind> kinds,
      int maxHolders,
      int limit) {
    try {
      this.holders = new TermHolders(leaves, LinkageIndex.KEYS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.blocking = new BlockingKeys(kinds);
    this.maxHolders = maxHolders;
    this.limit = limit;
    this.docCount = Math.max(1, docCount);
    this.ids = ids;
    this.docByRank = new int[ids.length];
    for (int doc = 0; doc < ids.length; doc++) {
      docByRank[doc] = doc;
    }
    IntArrays.sort(
        docByRank,
        0,
        ids.length,
        (a, b) -> {
          int byId = Long.compare(ids[a], ids[b]);
          return byId != 0 ? byId : Integer.compare(a, b);
        });
    this.rankOfDoc = new int[ids.length];
    for (int rank = 0; rank < ids.length; rank++) {
      rankOfDoc[docByRank[rank]] = rank;
    }
    this.score = new float[Math.max(1, ids.length)];
    this.keyHolders = new int[maxHolders + 1];
    this.deletions = leaves.stream().anyMatch(leaf -> leaf.reader().hasDeletions());
  }

  /**
   * The live holders of a key, or any number above {@code maxHolders} for a commoner key. The term
   * dictionary's count, which is exact while no document is deleted, counts deleted documents until
   * their segment is merged: with deletions the live holders are counted (up to one more than
   * {@code maxHolders}), so that the candidates do not depend on which deletes were merged away.
   */
  private int frequency(BytesRef term) throws IOException {
    if (!deletions) {
      return holders.docFreq(term);
    }
    int[] ranks = commonHolders.get(term);
    if (ranks != null) {
      return ranks.length;
    }
    int n = 0;
    for (int doc = holders.first(term);
        doc != TermHolders.NO_MORE_DOCS && n <= maxHolders;
        doc = holders.next()) {
      n++;
    }
    return n;
  }

  /**
   * The live holders of a common key as their sorted ranks (so in record id order). Read once per
   * key and kept: each record then finds its neighbours by a binary search.
   */
  private int[] holderRanks(BytesRef term) throws IOException {
    int[] ranks = new int[Math.max(16, holders.docFreq(term))];
    int n = 0;
    for (int doc = holders.first(term); doc != TermHolders.NO_MORE_DOCS; doc = holders.next()) {
      if (n == ranks.length) {
        ranks = Arrays.copyOf(ranks, n * 2);
      }
      ranks[n++] = rankOfDoc[doc];
    }
    postings += n;
    ranks = Arrays.copyOf(ranks, n);
    Arrays.sort(ranks);
    return ranks;
  }

  /** The first rank whose record id is above {@code id}: where a record of that id would follow. */
  private int rankAfter(long id) {
    int low = 0;
    int high = docByRank.length;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (ids[docByRank[mid]] <= id) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  /** Postings read so far (the work of the lookups). */
  long postings() {
    return postings;
  }

  /**
   * The best candidates of the record {@code self} (a doc, or -1 for a record not in the index)
   * with these values, most evidence first (ties: lower id first), itself left out; returns how
   * many were written to {@code out} (at most its length and the limit).
   *
   * @param selfId the record's id: a common key's neighbours are the holders with the next ids
   *     after it (after the last, the first ones again)
   */
  int find(int self, long selfId, String[] values, int[] out) {
    Set<String> keys = blocking.keys(values);
    int count = 0;
    try {
      // The rarest keys first, as long as the budget of postings lasts.
      List<BytesRef> usable = new java.util.ArrayList<>(keys.size());
      List<BytesRef> common = new java.util.ArrayList<>();
      List<Integer> frequencies = new java.util.ArrayList<>(keys.size());
      for (String key : keys) {
        BytesRef term = new BytesRef(key);
        int frequency = frequency(term);
        if (frequency >= 2 && frequency <= maxHolders) {
          usable.add(term);
          frequencies.add(frequency);
        } else if (frequency > maxHolders) {
          common.add(term);
        }
      }
      Integer[] order = new Integer[usable.size()];
      for (int i = 0; i < order.length; i++) {
        order[i] = i;
      }
      Arrays.sort(
          order,
          (a, b) -> {
            int byFrequency = Integer.compare(frequencies.get(a), frequencies.get(b));
            return byFrequency != 0 ? byFrequency : usable.get(a).compareTo(usable.get(b));
          });
      long budget = POSTINGS_PER_RECORD;
      for (int k : order) {
        if (budget < frequencies.get(k)) {
          break;
        }
        int held = 0;
        for (int doc = holders.first(usable.get(k));
            doc != TermHolders.NO_MORE_DOCS && held < maxHolders;
            doc = holders.next()) {
          keyHolders[held++] = doc;
        }
        postings += held;
        budget -= held;
        if (held < 2) {
          continue;
        }
        float weight = (float) Math.log(1 + docCount / held);
        for (int i = 0; i < held; i++) {
          int doc = keyHolders[i];
          if (doc == self) {
            continue;
          }
          if (score[doc] == 0) {
            if (count == touched.length) {
              touched = Arrays.copyOf(touched, count * 2);
            }
            touched[count++] = doc;
          }
          score[doc] += weight;
        }
      }
      // Keys too common to walk: the next few holders after this record (sorted neighbourhood),
      // each weighing as the least of the rare keys. Records sharing such a value (a company name
      // on hundreds of rows) are chained to their neighbours instead of compared with all.
      int after = common.isEmpty() ? 0 : rankAfter(selfId);
      for (BytesRef term : common) {
        int[] ranks = commonHolders.get(term);
        if (ranks == null) {
          ranks = holderRanks(term);
          commonHolders.put(BytesRef.deepCopyOf(term), ranks);
        }
        int at = Arrays.binarySearch(ranks, after);
        at = at >= 0 ? at : -at - 1;
        for (int i = 0; i < Math.min(NEIGHBOURS, ranks.length - 1); i++) {
          int doc = docByRank[ranks[(at + i) % ranks.length]];
          if (doc == self) {
            continue;
          }
          postings++;
          if (score[doc] == 0) {
            if (count == touched.length) {
              touched = Arrays.copyOf(touched, count * 2);
            }
            touched[count++] = doc;
          }
          score[doc] += (float) Math.log(1 + docCount / maxHolders);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int n = Math.min(Math.min(limit, out.length), count);
    if (count > n) {
      // Partial selection by score: sort the touched docs by (score desc, doc asc).
      Integer[] order = new Integer[count];
      for (int i = 0; i < count; i++) {
        order[i] = touched[i];
      }
      Arrays.sort(
          order,
          (a, b) -> {
            int byScore = Float.compare(score[b], score[a]);
            return byScore != 0 ? byScore : Long.compare(ids[a], ids[b]);
          });
      for (int i = 0; i < n; i++) {
        out[i] = order[i];
      }
    } else {
      Integer[] order = new Integer[n];
      for (int i = 0; i < n; i++) {
        order[i] = touched[i];
      }
      Arrays.sort(order, (a, b) -> Long.compare(ids[a], ids[b]));
      for (int i = 0; i < n; i++) {
        out[i] = order[i];
      }
    }
    for (int i = 0; i < count; i++) {
      score[touched[i]] = 0;
    }
    return n;
  }
}
