package org.xiaochong.index;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.Bits;

/** The ids of an index's live documents, read from the id doc values. Stateless. */
final class LiveIds {
  private LiveIds() {}

  /** See {@link FingerprintIndex#liveIdsIndexedAfter}. */
  static long[] indexedAfter(DirectoryReader reader, long syncSeq) {
    LongList ids = new LongList();
    try {
      for (LeafReaderContext leaf : reader.leaves()) {
        NumericDocValues seqs = leaf.reader().getNumericDocValues(IndexSchema.SYNC_SEQ);
        NumericDocValues idValues = leaf.reader().getNumericDocValues(IndexSchema.ID);
        Bits live = leaf.reader().getLiveDocs();
        if (seqs == null || idValues == null) {
          continue;
        }
        for (int doc = seqs.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = seqs.nextDoc()) {
          if (seqs.longValue() > syncSeq
              && (live == null || live.get(doc))
              && idValues.advanceExact(doc)) {
            ids.add(idValues.longValue());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long[] sorted = ids.toArray();
    Arrays.sort(sorted);
    return sorted;
  }

  /** See {@link FingerprintIndex#liveIdsSorted}. */
  static long[] sorted(DirectoryReader reader) {
    long[] ids = new long[reader.numDocs()];
    int n = 0;
    try {
      for (LeafReaderContext leaf : reader.leaves()) {
        NumericDocValues values = leaf.reader().getNumericDocValues(IndexSchema.ID);
        if (values == null) {
          continue;
        }
        Bits live = leaf.reader().getLiveDocs();
        for (int doc = values.nextDoc();
            doc != DocIdSetIterator.NO_MORE_DOCS;
            doc = values.nextDoc()) {
          if (live == null || live.get(doc)) {
            ids[n++] = values.longValue();
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long[] result = n == ids.length ? ids : Arrays.copyOf(ids, n);
    Arrays.sort(result);
    return result;
  }
}
