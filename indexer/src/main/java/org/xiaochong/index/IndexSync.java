package org.xiaochong.index;

import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.apache.lucene.index.DirectoryReader;
import org.xiaochong.index.SyncIndexer.Indexed;
import org.xiaochong.source.RecordSource;

/**
 * Brings the index up to date with the table: adds rows not yet indexed, drops ids that left the
 * table, and replaces the documents of rows changed in place (edited or re-dated), so that the
 * passes see each row as it is now.
 *
 * <p>How: the index's (id, time, row checksum), sorted by id, are merged with the table's
 * (streaming {@code SELECT id, time, <checksum> ... ORDER BY id} in {@code threads} id slices at
 * once, the primary key order; the checksum is the CRC32 of the fingerprint columns, {@link
 * org.xiaochong.source.RowChecksum}, computed by the server here and by whichever side reads the
 * full rows when they are indexed, the two agreeing byte for byte). A row whose time or checksum
 * differs from its document's is deleted from the index and indexed again, like a missing row. With
 * an updated column ({@link #withUpdatedColumn}), the id stream reads ids only and the checksums
 * are compared only for the rows updated since the watermark the last sync recorded as it started
 * (the column's largest value then, less the age of the oldest open transaction: {@link
 * org.xiaochong.source.RecordSource#updatedWatermark}), minus {@link #UPDATED_MARGIN_SECONDS}. The
 * rows to add are then streamed in full when they are many (or the index is empty), in {@code
 * threads} id slices read and indexed in parallel, else fetched by id in batches. Every sync that
 * indexes rows takes the next sync number of the index ({@link FingerprintIndex#nextSyncSeq}),
 * which its documents carry.
 *
 * <p>The invariant: every id is either left alone, deleted, or deleted and indexed again, once,
 * under one sync number. The merge of the two sorted streams is {@link TableDiff}; the indexing of
 * the rows wanted, streamed or fetched by id, is {@link SyncIndexer}.
 */
public final class IndexSync {
  /**
   * Rows updated this long before the last sync's watermark are compared again: a transaction that
   * set its updated value before the sync started but committed after the sync read the table is
   * still seen, when the user may not see the server's open transactions (the watermark then does
   * not go back to them), and so are the repeated hour of a DATETIME column written in a zone with
   * daylight saving.
   */
  static final int UPDATED_MARGIN_SECONDS = 3600;

  /**
   * What a sync did.
   *
   * @param added rows indexed that the index did not hold
   * @param changed rows whose document was replaced because their time or fingerprint columns
   *     changed (or dropped, for rows {@link #skipping} leaves out)
   * @param deleted documents dropped because their row left the table
   * @param leftIds the ids whose documents the sync deleted (rows gone or changed), ascending;
   *     empty on a first build
   * @param cameIds the ids it indexed (rows missing or changed, those still in the table and not
   *     skipped), ascending; empty on a first build. A prefilter follows the sync with both lists.
   */
  public record Result(
      long tableRows,
      long added,
      long changed,
      long deleted,
      double seconds,
      long[] leftIds,
      long[] cameIds) {}

  private final RecordSource source;
  private final FingerprintIndex index;
  private final Supplier<RecordIndexer> indexers;
  private final int threads;
  private int slicesPerThread = 1;
  private java.util.function.LongPredicate skip = id -> false;
  private String updatedColumn;

  /**
   * @param indexers makes the {@link RecordIndexer} of each worker thread
   * @param threads worker threads for a full read of the table
   */
  public IndexSync(
      RecordSource source, FingerprintIndex index, Supplier<RecordIndexer> indexers, int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads (" + threads + ") must be >= 1");
    }
    this.source = source;
    this.index = index;
    this.indexers = indexers;
    this.threads = threads;
  }

  /**
   * Leaves out the rows whose id matches: they stay "missing" and a later sync adds them if they
   * are still in the table. The near index uses it for rows the exact pass of the same run removes.
   */
  public IndexSync skipping(java.util.function.LongPredicate ids) {
    this.skip = ids;
    return this;
  }

  /**
   * Cuts a full read of the table into {@code n} id slices per thread instead of one, each thread
   * taking the next slice when done with one: for indexers whose cost per row varies (the near
   * index segments text and leaves out the rows of the exact pass's removals), so that no thread
   * idles at the end while the other finishes a slice. Only for indexers that may start and finish
   * any number of times ({@link RecordIndexer#documents}); one whose every slice writes its own
   * segments ({@link RecordSegmentIndexer}) keeps one slice per thread.
   */
  public IndexSync slicesPerThread(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("slices per thread (" + n + ") must be >= 1");
    }
    this.slicesPerThread = n;
    return this;
  }

  /**
   * Finds changed rows through this DATETIME/TIMESTAMP column (validated by the caller) instead of
   * comparing every row's checksum, once the index has recorded when its last sync started; the id
   * stream still finds the new and the deleted rows. Null: compare every row.
   */
  public IndexSync withUpdatedColumn(String column) {
    this.updatedColumn = column;
    return this;
  }

  /**
   * Runs the sync and commits the index.
   *
   * @param progress called with the number of rows handled since the last call
   */
  public Result run(LongConsumer progress) {
    long start = System.nanoTime();
    IndexedRows indexed;
    try (DirectoryReader reader = index.openReader()) {
      indexed = IndexedRows.load(reader);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    String syncStarted = updatedColumn == null ? null : source.updatedWatermark(updatedColumn);
    SyncIndexer adder = new SyncIndexer(source, index, indexers, threads, slicesPerThread, skip);
    long tableRows;
    Indexed done;
    long changed = 0;
    long deleted = 0;
    long[] changedSorted = new long[0];
    long[] leftIds = new long[0];
    long[] cameIds = new long[0];
    if (indexed.size() == 0) {
      // First run: no need to diff, stream every row once.
      index.nextSyncSeq();
      done = adder.addAll(null, 0, new long[0], progress);
      tableRows = done.added();
    } else {
      boolean byUpdatedColumn = updatedColumn != null && index.syncStarted() != null;
      TableDiff diff = TableDiff.compute(source, indexed, threads, byUpdatedColumn);
      LongList missing = diff.missing();
      LongList changedIds = diff.changed();
      LongList gone = diff.gone();
      if (byUpdatedColumn) {
        long[] ids = indexed.ids();
        LongList updated = new LongList();
        source.forEachRowStateUpdatedSince(
            updatedColumn,
            index.syncStarted(),
            UPDATED_MARGIN_SECONDS,
            (id, time, crc) -> {
              int at = java.util.Arrays.binarySearch(ids, id);
              if (at >= 0 && (indexed.times()[at] != time || indexed.crcs()[at] != crc)) {
                updated.add(id);
              }
            });
        changedIds = updated;
      }
      tableRows = diff.rows();
      index.deleteIds(gone.values(), 0, gone.size());
      deleted = gone.size();
      // A changed row's document goes; the row is then indexed again like a missing one.
      index.deleteIds(changedIds.values(), 0, changedIds.size());
      changed = changedIds.size();
      changedSorted = java.util.Arrays.copyOf(changedIds.values(), changedIds.size());
      LongList wanted = union(missing, changedIds);
      leftIds = union(gone, changedIds).toArray();
      cameIds = wanted.toArray();
      if (wanted.size() == 0) {
        done = new Indexed(0, 0);
      } else {
        index.nextSyncSeq();
        if (wanted.size() > tableRows / 4) {
          done = adder.addAll(wanted, wanted.size(), changedSorted, progress);
        } else {
          done = adder.addSome(wanted, changedSorted, progress);
        }
      }
    }
    if (syncStarted != null) {
      index.setSyncStarted(syncStarted);
    }
    if (done.added() + done.changed() > 0
        || deleted > 0
        || changed > 0
        || syncStarted != null
        || index.rebuilding()) {
      // Only on change (the commit generation tags the prefilter snapshot), to record when this
      // sync started (an updated column: the next sync compares only the rows updated since), or
      // to publish a rebuild (of an empty table too). The sync number taken above is committed
      // with the documents that carry it.
      index.commit();
    }
    return new Result(
        tableRows,
        done.added(),
        changed,
        deleted,
        (System.nanoTime() - start) / 1e9,
        leftIds,
        cameIds);
  }

  /** The ids of two increasing lists without common ids, in increasing order. */
  private static LongList union(LongList a, LongList b) {
    LongList out = new LongList();
    int i = 0;
    int j = 0;
    while (i < a.size() || j < b.size()) {
      if (j == b.size() || (i < a.size() && a.values()[i] < b.values()[j])) {
        out.add(a.values()[i++]);
      } else {
        out.add(b.values()[j++]);
      }
    }
    return out;
  }
}
