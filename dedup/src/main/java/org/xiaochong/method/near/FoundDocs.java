package org.xiaochong.method.near;

import java.util.Arrays;
import org.apache.lucene.util.FixedBitSet;

/**
 * Distinct documents found for one record, in the order found; {@link #clear} before the next
 * record. Not thread-safe: one per worker thread.
 */
final class FoundDocs {
  private final FixedBitSet seen;
  int[] docs = new int[64];
  int size;

  FoundDocs(int maxDoc) {
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
