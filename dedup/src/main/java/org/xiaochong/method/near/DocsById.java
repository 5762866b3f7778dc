package org.xiaochong.method.near;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.index.IntArrays;

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
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    IntArrays.sort(order, 0, n, (a, b) -> Long.compare(ids[a], ids[b]));
    long[] sortedIds = new long[n];
    int[] sortedDocs = new int[n];
    for (int i = 0; i < n; i++) {
      sortedIds[i] = ids[order[i]];
      sortedDocs[i] = docs[order[i]];
    }
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
