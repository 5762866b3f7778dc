package org.xiaochong.index;

import static org.xiaochong.index.IdSlices.lowerBound;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.LongConsumer;
import java.util.function.LongPredicate;
import java.util.function.Supplier;
import org.xiaochong.concurrent.ParallelTasks;
import org.xiaochong.source.RecordSource;

/**
 * Indexes the rows a sync wants, for {@link IndexSync}: by streaming the table in id slices read
 * and indexed in parallel, or by fetching them by id on one thread when they are few. Rows that
 * {@code skip} matches are left out. Each call runs on its own threads; not for concurrent calls.
 */
final class SyncIndexer {
  private static final int PROGRESS_STEP = 1024;

  private final RecordSource source;
  private final FingerprintIndex index;
  private final Supplier<RecordIndexer> indexers;
  private final int threads;
  private final int slicesPerThread;
  private final LongPredicate skip;

  /** See {@link IndexSync#slicesPerThread} and {@link IndexSync#skipping}. */
  SyncIndexer(
      RecordSource source,
      FingerprintIndex index,
      Supplier<RecordIndexer> indexers,
      int threads,
      int slicesPerThread,
      LongPredicate skip) {
    this.source = source;
    this.index = index;
    this.indexers = indexers;
    this.threads = threads;
    this.slicesPerThread = slicesPerThread;
    this.skip = skip;
  }

  /** Rows indexed: new ones, and changed ones indexed again. */
  record Indexed(long added, long changed) {
    Indexed plus(Indexed other) {
      return new Indexed(added + other.added, changed + other.changed);
    }
  }

  /**
   * Streams all rows and indexes those in {@code wanted} (all when null); returns rows indexed,
   * those in {@code changedSorted} counted apart. The id range is cut into one slice per thread;
   * each thread streams its slice on its own connection and fingerprints and indexes what it reads,
   * so reading, hashing and indexing all run in parallel (and the server scans the slices in
   * parallel too).
   */
  Indexed addAll(LongList wanted, int wantedCount, long[] changedSorted, LongConsumer progress) {
    long[] range = source.idRange();
    if (range == null) {
      return new Indexed(0, 0);
    }
    List<Callable<Indexed>> slices = new ArrayList<>();
    int parts = threads * slicesPerThread; // run on `threads` threads, each taking the next slice
    for (int part = 0; part < parts; part++) {
      long from = IdSlices.bound(range, part, parts);
      long to = IdSlices.bound(range, part + 1, parts); // the last ends after the max id
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
    List<Callable<Boolean>> flushes = Collections.nCopies(threads, index::flushNextBuffer);
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
          if (changedSorted.length > 0 && Arrays.binarySearch(changedSorted, record.id()) >= 0) {
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
  Indexed addSome(LongList ids, long[] changedSorted, LongConsumer progress) {
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
          if (Arrays.binarySearch(changedSorted, record.id()) >= 0) {
            changed[0]++;
          }
          done[0]++;
          progress.accept(1);
        });
    indexer.finish();
    return new Indexed(done[0] - changed[0], changed[0]);
  }
}
