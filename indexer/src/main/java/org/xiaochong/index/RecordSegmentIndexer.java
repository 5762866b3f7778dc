package org.xiaochong.index;

import java.util.Arrays;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * Indexes records into the record index by whole segments: buffers (id, reg_time, md5, row_crc) of
 * up to {@link #SEGMENT_DOCS} records, then hands them to Lucene as one new segment through {@link
 * RecordSegmentReader} (see there why). The index ends up with the same documents as adding {@link
 * RecordDocumentMaker}'s documents one by one; every document carries the index's current sync
 * number ({@link FingerprintIndex#syncSeq()} when the indexer is made). Not thread-safe: one per
 * thread.
 */
public final class RecordSegmentIndexer implements RecordIndexer {
  /**
   * Records per segment: 2^20 records buffer 40 MB (8 + 8 + 16 + 8 bytes each) plus 12 MB to sort
   * them, about what the writer's 128 MB RAM buffer holds per thread on the document path.
   */
  static final int SEGMENT_DOCS = 1 << 20;

  /** Receives the keys of each segment once it is in the index: a filter can be built alongside. */
  @FunctionalInterface
  public interface SegmentKeys {
    SegmentKeys NONE = (md5s, count) -> {};

    /**
     * Called on the indexing thread (several threads may call at once) after a segment is added.
     *
     * @param md5s the keys, record i at {@code [16 * i, 16 * i + 16)}; reused after the call
     * @param count the records of the segment
     */
    void added(byte[] md5s, int count);
  }

  private final FingerprintIndex index;
  private final RecordDocumentMaker keys;
  private final SegmentKeys segmentKeys;
  private final int segmentDocs;
  private final long syncSeq;
  private long[] ids = new long[1024];
  private long[] crcs = new long[1024];
  private long[] times = new long[1024];

  /** The keep rank's columns, each per document; none under keep.policy=latest. */
  private long[][] ranks;

  private byte[] md5s = new byte[16 * 1024];
  private int size;

  public RecordSegmentIndexer(FingerprintIndex index, TableSpec spec) {
    this(index, spec, SegmentKeys.NONE);
  }

  /**
   * @param segmentKeys told the keys of each segment added
   */
  public RecordSegmentIndexer(FingerprintIndex index, TableSpec spec, SegmentKeys segmentKeys) {
    this(index, spec, segmentKeys, SEGMENT_DOCS);
  }

  RecordSegmentIndexer(
      FingerprintIndex index, TableSpec spec, SegmentKeys segmentKeys, int segmentDocs) {
    this.index = index;
    this.keys = new RecordDocumentMaker(spec);
    this.segmentKeys = segmentKeys;
    this.segmentDocs = segmentDocs;
    this.syncSeq = index.syncSeq();
    this.ranks = new long[spec.keepPolicy().isLatest() ? 0 : spec.keepPolicy().width()][1024];
  }

  @Override
  public void add(SourceRecord record) {
    if (size == ids.length) {
      int capacity = Math.min(segmentDocs, size * 2);
      ids = Arrays.copyOf(ids, capacity);
      times = Arrays.copyOf(times, capacity);
      crcs = Arrays.copyOf(crcs, capacity);
      for (int i = 0; i < ranks.length; i++) {
        ranks[i] = Arrays.copyOf(ranks[i], capacity);
      }
      md5s = Arrays.copyOf(md5s, 16 * capacity);
    }
    ids[size] = record.id();
    times[size] = record.regTime();
    crcs[size] = record.rowCrc();
    if (ranks.length > 0) {
      long[] rank = keys.storedRank(record);
      for (int i = 0; i < ranks.length; i++) {
        ranks[i][size] = rank[i];
      }
    }
    System.arraycopy(keys.exactKey(record), 0, md5s, 16 * size, 16);
    if (++size == segmentDocs) {
      finish();
    }
  }

  @Override
  public void finish() {
    if (size > 0) {
      index.addSegment(new RecordSegmentReader(ids, times, ranks, md5s, crcs, syncSeq, size));
      segmentKeys.added(md5s, size);
      size = 0;
    }
  }
}
