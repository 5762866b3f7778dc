package org.xiaochong.pass;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.index.IndexSchema;

/**
 * A point-in-time view of the index for the passes: per global doc id, the record id and time
 * (loaded once from doc values: 16 bytes per document, so 16 MB for a million records), and the
 * window's documents as a bit set. Not thread-safe.
 */
public final class IndexSnapshot {
  private final DirectoryReader reader;
  private final long[] ids;
  private final long[] times;

  public IndexSnapshot(DirectoryReader reader) {
    this.reader = reader;
    int maxDoc = reader.maxDoc();
    ids = new long[maxDoc];
    times = new long[maxDoc];
    try {
      for (LeafReaderContext leaf : reader.leaves()) {
        load(leaf, IndexSchema.ID, ids);
        load(leaf, IndexSchema.REG_TIME, times);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void load(LeafReaderContext leaf, String field, long[] into) throws IOException {
    NumericDocValues values = leaf.reader().getNumericDocValues(field);
    if (values == null) {
      return;
    }
    for (int doc = values.nextDoc(); doc != NumericDocValues.NO_MORE_DOCS; doc = values.nextDoc()) {
      into[leaf.docBase + doc] = values.longValue();
    }
  }

  public DirectoryReader reader() {
    return reader;
  }

  public List<LeafReaderContext> leaves() {
    return reader.leaves();
  }

  public int maxDoc() {
    return ids.length;
  }

  public long id(int globalDoc) {
    return ids[globalDoc];
  }

  public long time(int globalDoc) {
    return times[globalDoc];
  }

  /**
   * The live documents in the window: the seed's RangeQuery result (step ④), read from the ids and
   * times loaded above (every document has them; a range query on the reg_time doc values would scan
   * the same values).
   */
  public FixedBitSet windowDocs(Window window) {
    FixedBitSet docs = new FixedBitSet(Math.max(1, reader.maxDoc()));
    for (LeafReaderContext leaf : reader.leaves()) {
      Bits live = leaf.reader().getLiveDocs();
      for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
        int global = leaf.docBase + doc;
        if ((live == null || live.get(doc)) && window.contains(ids[global], times[global])) {
          docs.set(leaf.docBase + doc);
        }
      }
    }
    return docs;
  }
}
