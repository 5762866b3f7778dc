package org.xiaochong.pass;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.source.SourceRecord;

/**
 * A point-in-time view of the index for the passes: per global doc id, the record id, time and row
 * checksum (loaded once from doc values: 24 bytes per document, so 24 MB for a million records), and
 * the window's documents as a bit set. Not thread-safe.
 */
public final class IndexSnapshot {
  private final DirectoryReader reader;
  private final long[] ids;
  private final long[] times;
  private final long[] crcs;

  public IndexSnapshot(DirectoryReader reader) {
    this.reader = reader;
    int maxDoc = reader.maxDoc();
    ids = new long[maxDoc];
    times = new long[maxDoc];
    crcs = new long[maxDoc];
    java.util.Arrays.fill(crcs, SourceRecord.UNKNOWN_CRC); // documents indexed before the checksum existed
    try {
      for (LeafReaderContext leaf : reader.leaves()) {
        load(leaf, IndexSchema.ID, ids);
        load(leaf, IndexSchema.REG_TIME, times);
        load(leaf, IndexSchema.ROW_CRC, crcs);
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

  DirectoryReader reader() {
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
   * What the document knew of its row when it was indexed: the plan keeps it so that the apply can
   * tell a row changed since ({@link DeletionPlan.RowState}).
   */
  public DeletionPlan.RowState state(int globalDoc) {
    return new DeletionPlan.RowState(times[globalDoc], crcs[globalDoc]);
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
