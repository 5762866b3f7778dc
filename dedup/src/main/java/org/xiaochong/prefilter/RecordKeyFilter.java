package org.xiaochong.prefilter;

import java.util.function.LongFunction;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.util.BitUtil;
import org.xiaochong.bloom.CountingBloomFilter;
import org.xiaochong.bloom.FilterShape;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.index.LongList;
import org.xiaochong.index.RecordSegmentIndexer;

/**
 * The record key filter: every exact key (md5) of the record index once per live record holding it,
 * a multiset, so that its count of a key is at least the number of records holding it. A pass asks
 * {@link #mightHaveTwin} before each term lookup: since the record asking is itself in the index,
 * an estimated count below 2 proves the key has no twin (a counting filter never under-counts) and
 * the lookup is skipped. {@code check} asks {@link #mightContain} for a record not in the index: a
 * zero counter proves the key absent. A rebuild reads the md5 doc values of the live records (one
 * sequential read per record, no walk of the term dictionary), and a saved file must hold exactly
 * one key per live record to be loaded.
 */
public final class RecordKeyFilter extends IndexKeyFilter implements GroupPrefilter {
  /**
   * Opens or rebuilds this kind of filter. Its files are named {@code exact…}, after the key they
   * count, so filters saved by earlier versions still load.
   */
  public static final Kind<RecordKeyFilter> KIND =
      new Kind<>("exact", true, RecordKeyFilter::build, RecordKeyFilter::new);

  private RecordKeyFilter(CountingBloomFilter filter, int countersPerKey) {
    super(KIND, filter, countersPerKey);
  }

  private static CountingBloomFilter build(
      DirectoryReader reader, LongFunction<FilterShape> shapeForKeys) {
    // One key per live record: the size is known and the keys go straight in.
    CountingBloomFilter filter = new CountingBloomFilter(shapeForKeys.apply(reader.numDocs()));
    forEachValue(reader, IndexSchema.MD5, keys(filter::put));
    return filter;
  }

  @Override
  protected void followChange(
      DirectoryReader before, DirectoryReader after, long[] leftIds, long[] cameIds) {
    forEachValue(before, IndexSchema.MD5, leftIds, keys(filter::remove));
    forEachValue(after, IndexSchema.MD5, cameIds, keys(filter::put));
  }

  /** The exact key of a record's md5 doc value, as the two halves of the md5. */
  private static ValueConsumer keys(KeyConsumer consumer) {
    return (bytes, offset, length) -> {
      if (length >= CountingBloomFilter.KEY_BYTES) {
        consumer.accept(high(bytes, offset), low(bytes, offset));
      }
    };
  }

  private static long high(byte[] md5s, int at) {
    return (long) BitUtil.VH_BE_LONG.get(md5s, at);
  }

  private static long low(byte[] md5s, int at) {
    return (long) BitUtil.VH_BE_LONG.get(md5s, at + Long.BYTES);
  }

  /** Depends on the asking record being in the filter itself: its own key counts once. */
  @Override
  public boolean mightHaveTwin(byte[] md5) {
    return counted(filter.estimateCount(md5) >= 2);
  }

  /**
   * For an exact key that is not (yet) in the index: false means certainly absent, so the index
   * need not be asked (seed 000's lookup: any counter at zero). Counted in lookups / skipped.
   */
  public boolean mightContain(byte[] md5) {
    return counted(filter.mightContain(md5));
  }

  /** A record with this exact key entered the index. */
  public void added(byte[] md5) {
    filter.put(md5);
  }

  /** A record with this exact key left the index. */
  void removed(byte[] md5) {
    filter.remove(md5);
  }

  /**
   * Collects the exact keys of the segments a first build adds ({@link RecordSegmentIndexer}), so
   * that the filter is made from them in memory instead of read back from the new index's doc
   * values after the build. Thread-safe: each indexing thread adds its segments.
   */
  public static final class Collector implements RecordSegmentIndexer.SegmentKeys {
    private final LongList high = new LongList();
    private final LongList low = new LongList();

    @Override
    public synchronized void added(byte[] md5s, int count) {
      for (int i = 0; i < count; i++) {
        high.add(high(md5s, 16 * i));
        low.add(low(md5s, 16 * i));
      }
    }

    /**
     * The filter of the collected keys, shaped as {@link Kind#rebuild} would shape it: equal to a
     * rebuild from an index holding exactly these records.
     */
    public synchronized RecordKeyFilter filter(int countersPerKey, int hashes) {
      CountingBloomFilter filter =
          new CountingBloomFilter(shape(high.size(), countersPerKey, hashes));
      long[] h1 = high.values();
      long[] h2 = low.values();
      for (int i = 0; i < high.size(); i++) {
        filter.put(h1[i], h2[i]);
      }
      return new RecordKeyFilter(filter, countersPerKey);
    }
  }
}
