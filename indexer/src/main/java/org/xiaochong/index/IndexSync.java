package org.xiaochong.index;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;

/**
 * Brings the index up to date with the table: adds rows not yet indexed, drops ids that left the
 * table. Rows changed in place keep their old fingerprints (there is no reliable change column in
 * general); run {@code dedup index --rebuild} after bulk updates.
 *
 * <p>How: the sorted ids of the index are merged with the table's ids (one streaming {@code SELECT id
 * ORDER BY id}, the primary key order); the rows to add are then streamed in full when they are many
 * (or the index is empty), else fetched by id in batches. Fingerprints are computed on {@code threads}
 * worker threads while one thread reads from the database.
 */
public final class IndexSync {
  private static final int BATCH = 512;

  /** What a sync did. */
  public record Result(long tableRows, long added, long deleted, double seconds) {}

  private final RecordSource source;
  private final FingerprintIndex index;
  private final Supplier<DocumentMaker> makers;
  private final int threads;

  public IndexSync(RecordSource source, FingerprintIndex index, Supplier<DocumentMaker> makers, int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads (" + threads + ") must be >= 1");
    }
    this.source = source;
    this.index = index;
    this.makers = makers;
    this.threads = threads;
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
      for (int from = 0; from < gone.size; from += 1024) {
        index.deleteIds(gone.values, from, Math.min(gone.size, from + 1024));
      }
      deleted = gone.size;
      if (missing.size == 0) {
        added = 0;
      } else if (missing.size > tableRows / 4) {
        added = addAll(missing, missing.size, progress);
      } else {
        added = addSome(missing, progress);
      }
    }
    index.commit();
    return new Result(tableRows, added, deleted, (System.nanoTime() - start) / 1e9);
  }

  /** Streams all rows and indexes those in {@code wanted} (all when null). Returns rows indexed. */
  private long addAll(LongList wanted, int wantedCount, LongConsumer progress) {
    try (Workers workers = new Workers(progress)) {
      int[] cursor = {0};
      source.forEachRecord(record -> {
        if (wanted != null) {
          while (cursor[0] < wantedCount && wanted.values[cursor[0]] < record.id()) {
            cursor[0]++;
          }
          if (cursor[0] >= wantedCount || wanted.values[cursor[0]] != record.id()) {
            return;
          }
        }
        workers.submit(record);
      });
      return workers.finish();
    }
  }

  private long addSome(LongList ids, LongConsumer progress) {
    try (Workers workers = new Workers(progress)) {
      source.forEachRecord(ids.values, ids.size, workers::submit);
      return workers.finish();
    }
  }

  /** A reader thread (the caller) hands batches of records to fingerprinting worker threads. */
  private final class Workers implements AutoCloseable {
    private final BlockingQueue<List<SourceRecord>> queue = new ArrayBlockingQueue<>(threads * 4);
    private final ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "xiaochong-fingerprint");
      t.setDaemon(true);
      return t;
    });
    private final List<Future<Long>> futures = new ArrayList<>();
    private List<SourceRecord> batch = new ArrayList<>(BATCH);
    private final LongConsumer progress;

    Workers(LongConsumer progress) {
      this.progress = progress;
      for (int i = 0; i < threads; i++) {
        futures.add(pool.submit(this::work));
      }
    }

    private long work() throws InterruptedException {
      DocumentMaker maker = makers.get();
      long done = 0;
      while (true) {
        List<SourceRecord> records = queue.take();
        if (records.isEmpty()) {
          return done; // poison pill
        }
        for (SourceRecord record : records) {
          index.addDocument(maker.make(record));
        }
        done += records.size();
        progress.accept(records.size());
      }
    }

    void submit(SourceRecord record) {
      batch.add(record);
      if (batch.size() == BATCH) {
        put(batch);
        batch = new ArrayList<>(BATCH);
      }
    }

    private void put(List<SourceRecord> records) {
      try {
        while (!queue.offer(records, 100, TimeUnit.MILLISECONDS)) {
          for (Future<Long> f : futures) {
            if (f.isDone()) {
              result(f); // a worker died: surface its exception
            }
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while indexing", e);
      }
    }

    long finish() {
      if (!batch.isEmpty()) {
        List<SourceRecord> last = batch;
        batch = new ArrayList<>();
        put(last);
      }
      for (int i = 0; i < threads; i++) {
        put(List.of()); // one poison pill per worker; put blocks while the queue is full
      }
      long total = 0;
      for (Future<Long> f : futures) {
        total += result(f);
      }
      return total;
    }

    private long result(Future<Long> f) {
        try {
          return f.get();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while indexing", e);
        } catch (java.util.concurrent.ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof RuntimeException re) {
            throw re;
          }
          throw new IllegalStateException("fingerprinting failed: " + cause, cause);
        }
    }

    @Override
    public void close() {
      pool.shutdownNow();
    }
  }

  /** A growable array of longs (no boxing: a table may have 100M ids). */
  static final class LongList {
    long[] values = new long[1024];
    int size;

    void add(long value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = value;
    }
  }
}
