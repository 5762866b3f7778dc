package org.xiaochong.index;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.util.Bits;
import org.xiaochong.source.SourceRecord;

/**
 * What the index holds of each live record, sorted by id: the id, the time and the row checksum
 * (missing checksum: {@link SourceRecord#UNKNOWN_CRC}). The sync merges it with the table's rows in
 * id order. 24 bytes per record (24 MB for a million).
 */
record IndexedRows(long[] ids, long[] times, long[] crcs) {

  int size() {
    return ids.length;
  }

  static IndexedRows load(DirectoryReader reader) {
    // Each leaf is read into its own run; a leaf written by one sync slice is already in id order,
    // and then the runs only need putting in order of their first id (the usual case: no sort).
    List<IndexedRows> runs = new ArrayList<>();
    try {
      for (LeafReaderContext leaf : reader.leaves()) {
        runs.add(leaf(leaf));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    runs.removeIf(run -> run.size() == 0);
    runs.sort(Comparator.comparingLong(run -> run.ids[0]));
    int n = runs.stream().mapToInt(IndexedRows::size).sum();
    long[] ids = new long[n];
    long[] times = new long[n];
    long[] crcs = new long[n];
    int at = 0;
    for (IndexedRows run : runs) {
      System.arraycopy(run.ids, 0, ids, at, run.size());
      System.arraycopy(run.times, 0, times, at, run.size());
      System.arraycopy(run.crcs, 0, crcs, at, run.size());
      at += run.size();
    }
    IndexedRows rows = new IndexedRows(ids, times, crcs);
    return rows.isSorted() ? rows : rows.sorted();
  }

  private static IndexedRows leaf(LeafReaderContext leaf) throws IOException {
    int maxDoc = leaf.reader().maxDoc();
    Bits live = leaf.reader().getLiveDocs();
    NumericDocValues idValues = leaf.reader().getNumericDocValues(IndexSchema.ID);
    NumericDocValues timeValues = leaf.reader().getNumericDocValues(IndexSchema.REG_TIME);
    NumericDocValues crcValues = leaf.reader().getNumericDocValues(IndexSchema.ROW_CRC);
    long[] ids = new long[leaf.reader().numDocs()];
    long[] times = new long[ids.length];
    long[] crcs = new long[ids.length];
    int n = 0;
    for (int doc = 0; idValues != null && doc < maxDoc; doc++) {
      if ((live != null && !live.get(doc)) || !idValues.advanceExact(doc)) {
        continue;
      }
      ids[n] = idValues.longValue();
      times[n] =
          timeValues != null && timeValues.advanceExact(doc)
              ? timeValues.longValue()
              : SourceRecord.NULL_TIME;
      crcs[n] =
          crcValues != null && crcValues.advanceExact(doc)
              ? crcValues.longValue()
              : SourceRecord.UNKNOWN_CRC;
      n++;
    }
    return n == ids.length
        ? new IndexedRows(ids, times, crcs)
        : new IndexedRows(
            java.util.Arrays.copyOf(ids, n),
            java.util.Arrays.copyOf(times, n),
            java.util.Arrays.copyOf(crcs, n));
  }

  private boolean isSorted() {
    for (int i = 1; i < ids.length; i++) {
      if (ids[i - 1] > ids[i]) {
        return false;
      }
    }
    return true;
  }

  private IndexedRows sorted() {
    int[] order = new int[ids.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    IntArrays.sort(order, 0, order.length, (a, b) -> Long.compare(ids[a], ids[b]));
    long[] sortedIds = new long[ids.length];
    long[] sortedTimes = new long[ids.length];
    long[] sortedCrcs = new long[ids.length];
    for (int i = 0; i < order.length; i++) {
      sortedIds[i] = ids[order[i]];
      sortedTimes[i] = times[order[i]];
      sortedCrcs[i] = crcs[order[i]];
    }
    return new IndexedRows(sortedIds, sortedTimes, sortedCrcs);
  }
}
