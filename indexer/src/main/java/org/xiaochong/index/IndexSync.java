package org.xiaochong.index;

import java.util.ArrayList;
import java.util.List;
import java.math.BigInteger;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.source.RecordSource;

/**
 * Brings the index up to date with the table: adds rows not yet indexed, drops ids that left the
 * table. Rows changed in place keep their old fingerprints (there is no reliable change column in
 * general); run {@code dedup index --rebuild} after bulk updates.
 *
 * <p>How: the sorted ids of the index are merged with the table's ids (one streaming {@code SELECT id
 * ORDER BY id}, the primary key order); the rows to add are then streamed in full when they are many
 * (or the index is empty), in {@code threads} id slices read and indexed in parallel, else fetched by
 * id in batches.
 */
public final class IndexSync {
  private static final int PROGRESS_STEP = 1024;

  /** What a sync did. */
  public record Result(long tableRows, long added, long deleted, double seconds) {}

  private final RecordSource source;
  private final FingerprintIndex index;
  private final Supplier<RecordIndexer> indexers;
  private final int threads;
  private java.util.function.LongPredicate skip = id -> false;

  /**
   * @param indexers makes the {@link RecordIndexer} of each worker thread
   * @param threads worker threads for a full read of the table
   */
  public IndexSync(RecordSource source, FingerprintIndex index, Supplier<RecordIndexer> indexers, int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads (" + threads + ") must be >= 1");
    }
    this.source = source;
    this.index = index;
    this.indexers = indexers;
    this.threads = threads;
  }

  /**
   * Leaves out the rows whose id matches: they stay "missing" and a later sync adds them if they are
   * still in the table. The near index uses it for rows the exact pass of the same run removes.
   */
  public IndexSync skipping(java.util.function.LongPredicate ids) {
    this.skip = ids;
    return this;
  }

  /**
   * Runs the sync and commits the index.
   *
   * @param progress called with the number of rows handled since the last call
   */
  public Result run(LongConsumer progress) {
    long start = System.nanoTime();
    long[] indexed;
    try (DirectoryReader reader = index.openReader()) {
      indexed = FingerprintIndex.liveIdsSorted(reader);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    long tableRows;
    long added;
    long deleted = 0;
    if (indexed.length == 0) {
      // First run: no need to diff, stream every row once.
      tableRows = addAll(null, 0, progress);
      added = tableRows;
    } else {
      FixedBitSet stillInTable = new FixedBitSet(indexed.length);
      LongList missing = new LongList();
      long[] rows = {0};
      int[] cursor = {0};
      source.forEachId(id -> {
        rows[0]++;
        // Merge walk: both sequences are increasing.
        while (cursor[0] < indexed.length && indexed[cursor[0]] < id) {
          cursor[0]++;
        }
        if (cursor[0] < indexed.length && indexed[cursor[0]] == id) {
          stillInTable.set(cursor[0]);
        } else {
          missing.add(id);
        }
      });
      tableRows = rows[0];
      LongList gone = new LongList();
      for (int i = 0; i < indexed.length; i++) {
        if (!stillInTable.get(i)) {
          gone.add(indexed[i]);
        }
      }
      index.deleteIds(gone.values(), 0, gone.size());
      deleted = gone.size();
      if (missing.size() == 0) {
        added = 0;
      } else if (missing.size() > tableRows / 4) {
        added = addAll(missing, missing.size(), progress);
      } else {
        added = addSome(missing, progress);
      }
    }
    if (added > 0 || deleted > 0) {
      index.commit(); // only on change: the commit generation tags the prefilter snapshot
    }
    return new Result(tableRows, added, deleted, (System.nanoTime() - start) / 1e9);
  }

  /**
   * Streams all rows and indexes those in {@code wanted} (all when null); returns rows indexed. The id
   * range is cut into one slice per thread; each thread streams its slice on its own connection and
   * fingerprints and indexes what it reads, so reading, hashing and indexing all run in parallel (and
   * the server scans the slices in parallel too).
   */
  private long addAll(LongList wanted, int wantedCount, LongConsumer progress) {
    long[] range = source.idRange();
    if (range == null) {
      return 0;
    }
    BigInteger min = BigInteger.valueOf(range[0]);
    BigInteger span = BigInteger.valueOf(range[1]).subtract(min).add(BigInteger.ONE);
    List<Callable<Long>> slices = new ArrayList<>();
    for (int part = 0; part < threads; part++) {
      long from = min.add(span.multiply(BigInteger.valueOf(part)).divide(BigInteger.valueOf(threads))).longValueExact();
      BigInteger toExclusive = min.add(span.multiply(BigInteger.valueOf(part + 1)).divide(BigInteger.valueOf(threads)));
      // The last slice ends after the max id; Long.MAX_VALUE itself is excluded only in theory.
      long to = toExclusive.bitLength() > 63 ? Long.MAX_VALUE : toExclusive.longValueExact();
      slices.add(() -> indexSlice(from, to, wanted, wantedCount, progress));
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "xiaochong-index-slice");
      t.setDaemon(true);
      return t;
    });
    try {
      long total = 0;
      for (Future<Long> f : pool.invokeAll(slices)) {
        total += f.get();
      }
      // On the document path each slice leaves an in-memory segment (up to the writer's RAM buffer).
      // Flushed here, one per thread at once, rather than one after the other by the thread that
      // commits. (Indexers that write whole segments have none left: these return false.)
      List<Callable<Boolean>> flushes = java.util.Collections.nCopies(threads, index::flushNextBuffer);
      for (Future<Boolean> f : pool.invokeAll(flushes)) {
        f.get();
      }
      return total;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while indexing", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException("indexing failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  private long indexSlice(long from, long to, LongList wanted, int wantedCount, LongConsumer progress) {
    RecordIndexer indexer = indexers.get();
    int[] cursor = {wanted == null ? 0 : lowerBound(wanted.values(), wantedCount, from)};
    long[] done = {0};
    source.forEachRecordInRange(from, to, record -> {
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
      if (++done[0] % PROGRESS_STEP == 0) {
        progress.accept(PROGRESS_STEP);
      }
    });
    indexer.finish();
    progress.accept(done[0] % PROGRESS_STEP);
    return done[0];
  }

  /** Fetches the given rows by id in batches and indexes them on this thread (few rows). */
  private long addSome(LongList ids, LongConsumer progress) {
    RecordIndexer indexer = indexers.get();
    long[] done = {0};
    source.forEachRecord(ids.values(), ids.size(), record -> {
      if (skip.test(record.id())) {
        return;
      }
      indexer.add(record);
      done[0]++;
      progress.accept(1);
    });
    indexer.finish();
    return done[0];
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
