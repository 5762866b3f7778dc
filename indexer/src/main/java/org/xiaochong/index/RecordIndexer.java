package org.xiaochong.index;

import org.xiaochong.source.SourceRecord;

/**
 * Puts source records into an index. {@link IndexSync} makes one per worker thread; implementations
 * may buffer (not thread-safe).
 */
public interface RecordIndexer {
  /** Indexes one record (possibly only buffered until {@link #finish}). */
  void add(SourceRecord record);

  /** Writes out whatever is buffered; called once, by the same thread, after its last record. */
  void finish();

  /** Adds one document per record, made by {@code maker}, through the index writer. */
  static RecordIndexer documents(FingerprintIndex index, DocumentMaker maker) {
    return new RecordIndexer() {
      @Override
      public void add(SourceRecord record) {
        index.addDocument(maker.make(record));
      }

      @Override
      public void finish() {
        // IndexSync flushes the writer's buffers once all threads are done
      }
    };
  }
}
