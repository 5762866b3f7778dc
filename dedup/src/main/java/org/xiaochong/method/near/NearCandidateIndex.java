package org.xiaochong.method.near;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.function.LongToIntFunction;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.index.TermHolders;
import org.xiaochong.method.near.index.NearSchema;

/**
 * Which records of one near pass meet ({@link NearCandidates#select}, {@link NearCandidates#meet}),
 * by position in the pass's newest-first order. Phone keys and the looked-up keys of records that
 * are not phone-blocked are read from the near index's postings; the keys of those records are also
 * held in memory ({@link KeyPostings}), for the phone-blocked records that look for them. Filled by
 * one thread in position order ({@link #add}), then read by many ({@link #forEach}; one postings
 * cursor per thread).
 */
final class NearCandidateIndex {
  private final int[] positionOf;
  private final FixedBitSet inPass;
  private final LongToIntFunction holders;
  private final KeyPostings loose =
      new KeyPostings(); // keys of the records that are not phone-blocked
  private final ThreadLocal<TermHolders> postings;
  private long looseRecords;

  /**
   * @param order the docs of the pass, newest first
   * @param holders records holding a key ({@link KeyFrequencies})
   */
  NearCandidateIndex(
      List<LeafReaderContext> leaves,
      int maxDoc,
      int[] order,
      int records,
      LongToIntFunction holders) {
    this.holders = holders;
    positionOf = new int[Math.max(1, maxDoc)];
    inPass = new FixedBitSet(Math.max(1, maxDoc));
    for (int pos = 0; pos < records; pos++) {
      positionOf[order[pos]] = pos;
      inPass.set(order[pos]);
    }
    postings =
        ThreadLocal.withInitial(
            () -> {
              try {
                return new TermHolders(leaves, NearSchema.KEY);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
  }

  /** The position of a doc of the pass in the newest-first order. */
  int positionOf(int doc) {
    return positionOf[doc];
  }

  /**
   * Adds the record at {@code pos}, one that is not {@link NearCandidates#phoneBlocked}, with its
   * keys, after every such record before it in the order.
   */
  void addLoose(int pos, long[] keys) {
    looseRecords++;
    for (long key : keys) {
      int df = holders.applyAsInt(key);
      if (df >= 2 && df <= NearCandidates.MAX_HOLDERS) {
        loose.add(key, pos);
      }
    }
  }

  /**
   * Hands {@code sink} the position of each record the record at {@code pos} meets: only those
   * before it in the order ({@code newerOnly}), or all of them. A position can come more than once
   * (through several keys); never {@code pos} itself.
   *
   * @return the postings lists read
   */
  int forEach(int pos, NearCandidates.Selection selection, boolean newerOnly, IntConsumer sink)
      throws IOException {
    int lists = 0;
    if (selection.telBlocked()) {
      for (long key : selection.tel()) {
        readIndex(key, pos, newerOnly, sink);
        lists++;
      }
    }
    if (selection.telBlocked() && looseRecords == 0) {
      return lists;
    }
    int found = 0;
    for (long key : selection.keys()) {
      if (NearCandidates.stopBefore(holders.applyAsInt(key), found)) {
        break;
      }
      found +=
          selection.telBlocked()
              ? readLoose(key, pos, newerOnly, sink)
              : readIndex(key, pos, newerOnly, sink);
      lists++;
    }
    return lists;
  }

  /** Reads the key's holders in the index; returns how many went to the sink. */
  private int readIndex(long key, int pos, boolean newerOnly, IntConsumer sink) throws IOException {
    TermHolders cursor = postings.get();
    int found = 0;
    for (int doc = cursor.first(NearSchema.keyBytes(key));
        doc != TermHolders.NO_MORE_DOCS;
        doc = cursor.next()) {
      if (inPass.get(doc)) {
        int other = positionOf[doc];
        if (other != pos && (!newerOnly || other < pos)) {
          sink.accept(other);
          found++;
        }
      }
    }
    return found;
  }

  /**
   * Reads the key's holders among the records that are not phone-blocked; returns how many went to
   * the sink.
   */
  private int readLoose(long key, int pos, boolean newerOnly, IntConsumer sink) {
    int size = loose.size(key);
    int[] positions = loose.positions(key);
    int found = 0;
    for (int i = 0; i < size; i++) {
      int other = positions[i];
      if (other >= pos && newerOnly) {
        break; // ascending: the rest are older
      }
      if (other != pos) {
        sink.accept(other);
        found++;
      }
    }
    return found;
  }
}
