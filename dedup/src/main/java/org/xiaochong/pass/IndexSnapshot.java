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
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.source.SourceRecord;

/**
 * A point-in-time view of the index for the passes: per global doc id, the record id, time, keep
 * rank and row checksum (loaded once from doc values: 24 bytes per document, so 24 MB for a million
 * records, and 8 more under a keep policy other than latest), and the window's documents as a bit
 * set. Not thread-safe.
 *
 * <p>{@link #rank} is one long per document, compared with {@link KeepPolicy#compare(long, long,
 * long, long)} (larger rank first, then the larger id): the time under {@code latest}, the policy's
 * rank under a one-column policy, and under a policy of several columns the position of the
 * document's rank among the distinct ranks of the snapshot (equal ranks, equal positions), which
 * orders the documents exactly as {@link KeepPolicy#compare(long[], long, long[], long)} does.
 */
public final class IndexSnapshot {
  private final DirectoryReader reader;
  private final long[] ids;
  private final long[] times;
  private final long[] ranks;
  private final long[] crcs;

  /** A snapshot under keep.policy=latest. */
  public IndexSnapshot(DirectoryReader reader) {
    this(reader, null);
  }

  /**
   * @param policy the keep policy the index was built with (null: latest)
   */
  public IndexSnapshot(DirectoryReader reader, KeepPolicy policy) {
    this.reader = reader;
    int maxDoc = reader.maxDoc();
    ids = new long[maxDoc];
    times = new long[maxDoc];
    crcs = new long[maxDoc];
    java.util.Arrays.fill(
        crcs, SourceRecord.UNKNOWN_CRC); // documents indexed before the checksum existed
    boolean latest = policy == null || policy.isLatest();
    long[][] columns = new long[latest ? 0 : policy.width()][maxDoc];
    for (long[] column : columns) {
      java.util.Arrays.fill(column, Long.MIN_VALUE); // a document without a rank ranks as NULL
    }
    try {
      for (LeafReaderContext leaf : reader.leaves()) {
        load(leaf, IndexSchema.ID, ids);
        load(leaf, IndexSchema.REG_TIME, times);
        load(leaf, IndexSchema.ROW_CRC, crcs);
        for (int i = 0; i < columns.length; i++) {
          load(leaf, IndexSchema.rankField(i), columns[i]);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ranks = latest ? times : columns.length == 1 ? columns[0] : positions(columns, maxDoc);
  }

  /**
   * Each document's position among the distinct ranks (columns[c][doc]), ascending: the documents
   * sorted by rank once, equal ranks given the same position.
   */
  private static long[] positions(long[][] columns, int maxDoc) {
    int[] order = new int[maxDoc];
    for (int doc = 0; doc < maxDoc; doc++) {
      order[doc] = doc;
    }
    org.xiaochong.index.IntArrays.sort(order, 0, maxDoc, (a, b) -> compareRanks(columns, a, b));
    long[] positions = new long[maxDoc];
    long position = 0;
    for (int i = 0; i < maxDoc; i++) {
      if (i > 0 && compareRanks(columns, order[i - 1], order[i]) != 0) {
        position++;
      }
      positions[order[i]] = position;
    }
    return positions;
  }

  private static int compareRanks(long[][] columns, int a, int b) {
    for (long[] column : columns) {
      int c = Long.compare(column[a], column[b]);
      if (c != 0) {
        return c;
      }
    }
    return 0;
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
   * The document's keep rank as one long: the larger is kept ({@link KeepPolicy#compare(long, long,
   * long, long)}, ties by id).
   */
  public long rank(int globalDoc) {
    return ranks[globalDoc];
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
   * times loaded above (every document has them; a range query on the reg_time doc values would
   * scan the same values).
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
