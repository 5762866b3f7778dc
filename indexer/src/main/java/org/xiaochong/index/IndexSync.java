package org.xiaochong.index;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.concurrent.ParallelTasks;
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
 * <p>Over 300 lines because the merge of the two sorted streams, the decision between streaming and
 * fetching by id, and the per-slice workers share one invariant (every id is either left alone,
 * deleted, or deleted and indexed again, once, under one sync number); each is short on its own.
 */
public final class IndexSync {
  private static final int PROGRESS_STEP = 1024;

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
   * segments ({@link ExactSegmentIndexer}) keeps one slice per thread.
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
      done = addAll(null, 0, new long[0], progress);
      tableRows = done.added();
    } else {
      boolean byUpdatedColumn = updatedColumn != null && index.syncStarted() != null;
      Diff diff = diff(indexed, byUpdatedColumn);
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
          done = addAll(wanted, wanted.size(), changedSorted, progress);
        } else {
          done = addSome(wanted, changedSorted, progress);
        }
      }
    }
    if (syncStarted != null) {
      index.setSyncStarted(syncStarted);
    }
    if (done.added() + done.changed() > 0 || deleted > 0 || changed > 0 || syncStarted != null) {
      // Only on change (the commit generation tags the prefilter snapshot), or to record when this
      // sync
      // started (an updated column: the next sync compares only the rows updated since). The sync
      // number taken above is committed with the documents that carry it.
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

  /**
   * The table's rows against the index's: rows read, and the ids missing, changed and gone, each
   * ascending.
   */
  private record Diff(long rows, LongList missing, LongList changed, LongList gone) {}

  /**
   * Merges the table's rows with the index's, in {@code threads} id slices read on their own
   * connections at once: the server computes the row checksums on as many cores (they are most of
   * the cost of an unchanged sync: on 1M rows the CRC32 of every row took the server ~0.7 s of the
   * ~1 s, SUM(id) alone ~0.25 s). With {@code idsOnly} (an updated column finds the changed rows)
   * only ids are read and compared.
   */
  private Diff diff(IndexedRows indexed, boolean idsOnly) {
    long[] range = source.idRange();
    long[] bounds =
        new long[threads + 1]; // slice i is [bounds[i], bounds[i + 1]); the first and last are open
    bounds[0] = Long.MIN_VALUE;
    bounds[threads] = Long.MAX_VALUE;
    for (int part = 1; part < threads; part++) {
      bounds[part] =
          range == null
              ? Long.MAX_VALUE
              : BigInteger.valueOf(range[0])
                  .add(
                      BigInteger.valueOf(range[1])
                          .subtract(BigInteger.valueOf(range[0]))
                          .add(BigInteger.ONE)
                          .multiply(BigInteger.valueOf(part))
                          .divide(BigInteger.valueOf(threads)))
                  .longValueExact();
    }
    List<Callable<Diff>> slices = new ArrayList<>();
    for (int part = 0; part < threads; part++) {
      long from = bounds[part];
      long to = bounds[part + 1];
      boolean last = part == threads - 1;
      slices.add(() -> diffSlice(indexed, from, to, last, idsOnly));
    }
    Diff total = new Diff(0, new LongList(), new LongList(), new LongList());
    for (Diff slice :
        ParallelTasks.runAll(
            slices,
            threads,
            "xiaochong-sync-slice",
            "reading the table")) { // in slice order: the lists stay ascending
      slice.missing().forEach(total.missing()::add);
      slice.changed().forEach(total.changed()::add);
      slice.gone().forEach(total.gone()::add);
      total = new Diff(total.rows() + slice.rows(), total.missing(), total.changed(), total.gone());
    }
    return total;
  }

  /**
   * The merge walk of one slice: the table's ids in [from, to) (to included when {@code last})
   * against the index's.
   */
  private Diff diffSlice(IndexedRows indexed, long from, long to, boolean last, boolean idsOnly) {
    long[] ids = indexed.ids();
    int start = lowerBound(ids, ids.length, from);
    int end = last ? ids.length : lowerBound(ids, ids.length, to);
    FixedBitSet stillInTable = new FixedBitSet(Math.max(1, end - start));
    LongList missing = new LongList();
    LongList changed = new LongList();
    long[] rows = {0};
    int[] cursor = {start};
    RecordSource.RowState merge =
        (id, time, crc) -> {
          rows[0]++;
          // Merge walk: both sequences are increasing.
          while (cursor[0] < end && ids[cursor[0]] < id) {
            cursor[0]++;
          }
          if (cursor[0] < end && ids[cursor[0]] == id) {
            stillInTable.set(cursor[0] - start);
            if (!idsOnly
                && (indexed.times()[cursor[0]] != time || indexed.crcs()[cursor[0]] != crc)) {
              changed.add(id);
            }
          } else {
            missing.add(id);
          }
        };
    if (idsOnly) {
      source.forEachIdInRange(from, to, last, id -> merge.accept(id, 0, 0));
    } else {
      source.forEachRowStateInRange(from, to, last, merge);
    }
    LongList gone = new LongList();
    for (int i = start; i < end; i++) {
      if (!stillInTable.get(i - start)) {
        gone.add(ids[i]);
      }
    }
    return new Diff(rows[0], missing, changed, gone);
  }

  /** Rows indexed: new ones, and changed ones indexed again. */
  private record Indexed(long added, long changed) {
    Indexed plus(Indexed other) {
      return new Indexed(added + other.added, changed + other.changed);
    }
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

  /**
   * Streams all rows and indexes those in {@code wanted} (all when null); returns rows indexed,
   * those in {@code changedSorted} counted apart. The id range is cut into one slice per thread;
   * each thread streams its slice on its own connection and fingerprints and indexes what it reads,
   * so reading, hashing and indexing all run in parallel (and the server scans the slices in
   * parallel too).
   */
  private Indexed addAll(
      LongList wanted, int wantedCount, long[] changedSorted, LongConsumer progress) {
    long[] range = source.idRange();
    if (range == null) {
      return new Indexed(0, 0);
    }
    BigInteger min = BigInteger.valueOf(range[0]);
    BigInteger span = BigInteger.valueOf(range[1]).subtract(min).add(BigInteger.ONE);
    List<Callable<Indexed>> slices = new ArrayList<>();
    int parts = threads * slicesPerThread; // run on `threads` threads, each taking the next slice
    for (int part = 0; part < parts; part++) {
      long from =
          min.add(span.multiply(BigInteger.valueOf(part)).divide(BigInteger.valueOf(parts)))
              .longValueExact();
      BigInteger toExclusive =
          min.add(span.multiply(BigInteger.valueOf(part + 1)).divide(BigInteger.valueOf(parts)));
      // The last slice ends after the max id; Long.MAX_VALUE itself is excluded only in theory.
      long to = toExclusive.bitLength() > 63 ? Long.MAX_VALUE : toExclusive.longValueExact();
      slices.add(() -> indexSlice(from, to, wanted, wantedCount, changedSorted, progress));
    }
    Indexed total = new Indexed(0, 0);
    for (Indexed slice :
        ParallelTasks.runAll(slices, threads, "xiaochong-index-slice", "indexing")) {
      total = total.plus(slice);
    }
    // On the document path each slice leaves an in-memory segment (up to the writer's RAM buffer).
    // Flushed here, one per thread at once, rather than one after the other by the thread that
    // commits. (Indexers that write whole segments have none left: these return false.)
    List<Callable<Boolean>> flushes =
        java.util.Collections.nCopies(threads, index::flushNextBuffer);
    ParallelTasks.runAll(flushes, threads, "xiaochong-index-slice", "indexing");
    return total;
  }

  private Indexed indexSlice(
      long from,
      long to,
      LongList wanted,
      int wantedCount,
      long[] changedSorted,
      LongConsumer progress) {
    RecordIndexer indexer = indexers.get();
    int[] cursor = {wanted == null ? 0 : lowerBound(wanted.values(), wantedCount, from)};
    long[] done = {0};
    long[] changed = {0};
    source.forEachRecordInRange(
        from,
        to,
        record -> {
          if (wanted != null) {
            // Merge walk: both the slice's rows and the wanted ids are increasing.
            while (cursor[0] < wantedCount && wanted.values()[cursor[0]] < record.id()) {
              cursor[0]++;
            }
            if (cursor[0] >= wantedCount || wanted.values()[cursor[0]] != record.id()) {
              return;
            }
          }
          if (skip.test(record.id())) {
            return;
          }
          indexer.add(record);
          if (changedSorted.length > 0
              && java.util.Arrays.binarySearch(changedSorted, record.id()) >= 0) {
            changed[0]++;
          }
          if (++done[0] % PROGRESS_STEP == 0) {
            progress.accept(PROGRESS_STEP);
          }
        });
    indexer.finish();
    progress.accept(done[0] % PROGRESS_STEP);
    return new Indexed(done[0] - changed[0], changed[0]);
  }

  /** Fetches the given rows by id in batches and indexes them on this thread (few rows). */
  private Indexed addSome(LongList ids, long[] changedSorted, LongConsumer progress) {
    RecordIndexer indexer = indexers.get();
    long[] done = {0};
    long[] changed = {0};
    source.forEachRecord(
        ids.values(),
        ids.size(),
        record -> {
          if (skip.test(record.id())) {
            return;
          }
          indexer.add(record);
          if (java.util.Arrays.binarySearch(changedSorted, record.id()) >= 0) {
            changed[0]++;
          }
          done[0]++;
          progress.accept(1);
        });
    indexer.finish();
    return new Indexed(done[0] - changed[0], changed[0]);
  }

  private static int lowerBound(long[] sorted, int size, long key) {
    int lo = 0;
    int hi = size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
