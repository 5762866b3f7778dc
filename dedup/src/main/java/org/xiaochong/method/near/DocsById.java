package org.xiaochong.method.near;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.IntroSorter;
import org.xiaochong.index.IndexSchema;

/**
 * The docs of a reader by their record id ({@link IndexSchema#ID}, a doc value the index does not
 * search by): a check finds the incoming record's own docs once, instead of reading the id of each
 * of its thousand candidates to see whether it is one of them. Read when the reader is opened
 * (every doc, deleted or not: 12 bytes each); immutable, so threads share it.
 */
final class DocsById {
  private static final int[] NONE = new int[0];

  private final long[] ids;
  private final int[] docs;

  private DocsById(long[] ids, int[] docs) {
    this.ids = ids;
    this.docs = docs;
  }

  static DocsById of(List<LeafReaderContext> leaves) throws IOException {
    int total = 0;
    for (LeafReaderContext leaf : leaves) {
      total += leaf.reader().maxDoc();
    }
    long[] ids = new long[total];
    int[] docs = new int[total];
    int n = 0;
    for (LeafReaderContext leaf : leaves) {
      NumericDocValues values = leaf.reader().getNumericDocValues(IndexSchema.ID);
      if (values == null) {
        continue;
      }
      for (int doc = values.nextDoc();
          doc != DocIdSetIterator.NO_MORE_DOCS;
          doc = values.nextDoc()) {
        ids[n] = values.longValue();
        docs[n++] = leaf.docBase + doc;
      }
    }
    long[] sortedIds = Arrays.copyOf(ids, n);
    int[] sortedDocs = Arrays.copyOf(docs, n);
    new IntroSorter() {
      private long pivot;

      @Override
      protected void swap(int i, int j) {
        long id = sortedIds[i];
        sortedIds[i] = sortedIds[j];
        sortedIds[j] = id;
        int doc = sortedDocs[i];
        sortedDocs[i] = sortedDocs[j];
        sortedDocs[j] = doc;
      }

      @Override
      protected void setPivot(int i) {
        pivot = sortedIds[i];
      }

      @Override
      protected int comparePivot(int j) {
        return Long.compare(pivot, sortedIds[j]);
      }
    }.sort(0, n);
    return new DocsById(sortedIds, sortedDocs);
  }

  /** The docs of record {@code id}, ascending (none when the reader has none). */
  int[] docsOf(long id) {
    int at = Arrays.binarySearch(ids, id);
    if (at < 0) {
      return NONE;
    }
    int from = at;
    while (from > 0 && ids[from - 1] == id) {
      from--;
    }
    int to = at + 1;
    while (to < ids.length && ids[to] == id) {
      to++;
    }
    int[] found = Arrays.copyOfRange(docs, from, to);
    Arrays.sort(found);
    return found;
  }
}
