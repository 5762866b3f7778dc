package org.xiaochong.index;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.index.BaseTermsEnum;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.ByteVectorValues;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.Fields;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.ImpactsEnum;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafMetaData;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.index.StoredFieldVisitor;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.TermVectors;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.KnnCollector;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;
import org.apache.lucene.util.Version;

/**
 * A read-only Lucene leaf over buffered exact fingerprints (id, reg_time, md5, row_crc per document
 * and one sync_seq for all, in the layout of {@link IndexSchema}), for {@code
 * IndexWriter.addIndexes}: Lucene writes it as a segment through its codec, exactly as if the
 * documents had been added one by one. Not thread-safe; used once, by the thread that made it.
 *
 * <p>Why: adding a document goes through Lucene's general indexing chain, which for our four fields
 * mostly hashes each md5 term into an in-memory postings table, grows and rehashes that table, and
 * sorts it when the segment is flushed. Here the keys are sorted once, as packed longs, and
 * Lucene's merge code reads terms and postings straight from the arrays. This takes about a third
 * less CPU than the indexing chain for 1M keys (bench/RESULTS.md). Lucene offers no bulk-load API
 * for postings; a custom leaf passed to addIndexes is the supported way (Lucene's own index sorting
 * and field-dropping tools work the same way).
 *
 * <p>Over 300 lines because a {@link LeafReader} has some twenty abstract methods: half are
 * one-line "this segment has none", and the terms enum and postings that read the sorted key arrays
 * are inner classes over the same arrays.
 */
final class ExactSegmentReader extends LeafReader {
  /** Field layout of the exact index, read from a real one-document index so it cannot drift. */
  private static final FieldInfos FIELD_INFOS = schemaFieldInfos(0);

  private static final int KEY_BYTES = 16;

  private final long[] ids;
  private final long[] times;
  private final byte[] keys;
  private final long[] crcs;

  /**
   * The keep rank's columns ({@link IndexSchema#rankField}), each per document; empty under
   * keep.policy=latest.
   */
  private final long[][] ranks;

  private final FieldInfos fieldInfos;
  private final long[] syncSeq;
  private final int maxDoc;

  /**
   * Doc numbers in (key, doc) order: a term is a run of equal keys, its postings the run's docs.
   */
  private final int[] docsByKey;

  /** Positions in docsByKey where a new key (term) starts. */
  private final FixedBitSet termStarts;

  private final int termCount;

  /**
   * @param ids record ids, per document
   * @param times reg_time in epoch ms, per document
   * @param keys 16-byte MD5 keys, document d at {@code [16d, 16d + 16)}
   * @param crcs row checksums, per document
   * @param syncSeq the sync number of every document
   * @param size documents: the first {@code size} entries of the arrays
   */
  ExactSegmentReader(long[] ids, long[] times, byte[] keys, long[] crcs, long syncSeq, int size) {
    this(ids, times, new long[0][], keys, crcs, syncSeq, size);
  }

  /**
   * @param ranks the keep rank's columns, each per document ({@link IndexSchema#storedRank}); none
   *     under latest
   */
  ExactSegmentReader(
      long[] ids, long[] times, long[][] ranks, byte[] keys, long[] crcs, long syncSeq, int size) {
    this.ranks = ranks;
    this.fieldInfos = ranks.length == 0 ? FIELD_INFOS : schemaFieldInfos(ranks.length);
    this.ids = ids;
    this.times = times;
    this.keys = keys;
    this.crcs = crcs;
    this.syncSeq = new long[] {syncSeq};
    this.maxDoc = size;
    this.docsByKey = docsInKeyOrder(keys, size);
    this.termStarts = new FixedBitSet(size + 1);
    for (int i = 0; i < size; i++) {
      if (i == 0 || compareKeys(keys, docsByKey[i - 1], docsByKey[i]) != 0) {
        termStarts.set(i);
      }
    }
    termStarts.set(size); // the end of the last term
    this.termCount = termStarts.cardinality() - 1;
  }

  /*
   * Sorting n keys of 128 bits by (key, doc): pack the key's top (64 - b) bits and the doc number
   * (b = bits of n - 1) into one long and sort the longs (Arrays.sort on primitives, no comparator
   * calls). The sign bit is flipped so that signed long order is the unsigned byte order Lucene's
   * terms need. Docs whose packed prefixes are equal end up next to each other, ordered by doc: equal
   * keys (the duplicates) are then already in order; only runs that mix different keys sharing a
   * prefix are sorted again by full key (with MD5 and n = 1M, 44 prefix bits: expected 0.03 such
   * pairs, so this costs nothing but keeps the order right whatever the keys).
   */
  static int[] docsInKeyOrder(byte[] keys, int n) {
    int docBits = Math.max(1, 64 - Long.numberOfLeadingZeros(Math.max(1, n - 1)));
    long docMask = (1L << docBits) - 1;
    long[] packed = new long[n];
    for (int doc = 0; doc < n; doc++) {
      packed[doc] = ((high(keys, doc) >>> docBits) << docBits | doc) ^ Long.MIN_VALUE;
    }
    java.util.Arrays.sort(packed);
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = (int) (packed[i] & docMask);
    }
    for (int start = 0; start < n; ) {
      int end = start + 1;
      boolean mixed = false;
      while (end < n && packed[end] >>> docBits == packed[start] >>> docBits) {
        mixed |= compareKeys(keys, order[start], order[end]) != 0;
        end++;
      }
      if (mixed) {
        sortByKeyThenDoc(keys, order, start, end);
      }
      start = end;
    }
    return order;
  }

  private static void sortByKeyThenDoc(byte[] keys, int[] order, int from, int to) {
    IntArrays.sort(
        order,
        from,
        to,
        (a, b) -> {
          int c = compareKeys(keys, a, b);
          return c != 0 ? c : Integer.compare(a, b);
        });
  }

  private static long high(byte[] keys, int doc) {
    return word(keys, KEY_BYTES * doc);
  }

  private static final VarHandle BIG_ENDIAN_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  /** Bytes [offset, offset + 8) as a big-endian long: unsigned long order is then byte order. */
  private static long word(byte[] keys, int offset) {
    return (long) BIG_ENDIAN_LONG.get(keys, offset);
  }

  /** Unsigned byte order of two documents' keys (the order of Lucene's terms). */
  private static int compareKeys(byte[] keys, int a, int b) {
    int c = Long.compareUnsigned(word(keys, KEY_BYTES * a), word(keys, KEY_BYTES * b));
    return c != 0
        ? c
        : Long.compareUnsigned(word(keys, KEY_BYTES * a + 8), word(keys, KEY_BYTES * b + 8));
  }

  /** The fields of an exact document with a keep rank of {@code rankColumns} longs. */
  private static FieldInfos schemaFieldInfos(int rankColumns) {
    try (ByteBuffersDirectory directory = new ByteBuffersDirectory();
        IndexWriter writer =
            new IndexWriter(directory, new IndexWriterConfig(new KeywordAnalyzer()))) {
      writer.addDocument(
          IndexSchema.document(
              0, 0, rankColumns == 0 ? null : new long[rankColumns], new byte[KEY_BYTES], 0, 0));
      writer.commit();
      try (DirectoryReader reader = DirectoryReader.open(directory)) {
        return reader.leaves().get(0).reader().getFieldInfos();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Terms terms(String field) {
    return IndexSchema.MD5.equals(field) ? new KeyTerms() : null;
  }

  @Override
  public NumericDocValues getNumericDocValues(String field) {
    long[] values =
        switch (field) {
          case IndexSchema.ID -> ids;
          case IndexSchema.REG_TIME -> times;
          case IndexSchema.ROW_CRC -> crcs;
          case IndexSchema.SYNC_SEQ -> syncSeq; // one value for every document
          default -> rankValues(field);
        };
    if (values == null) {
      return null;
    }
    boolean constant = values == syncSeq;
    return new NumericDocValues() {
      private final DenseDocs docs = new DenseDocs(maxDoc);

      @Override
      public long longValue() {
        return values[constant ? 0 : docs.doc];
      }

      @Override
      public boolean advanceExact(int target) {
        docs.doc = target;
        return true;
      }

      @Override
      public int docID() {
        return docs.doc;
      }

      @Override
      public int nextDoc() {
        return docs.advance(docs.doc + 1);
      }

      @Override
      public int advance(int target) {
        return docs.advance(target);
      }

      @Override
      public long cost() {
        return maxDoc;
      }
    };
  }

  private long[] rankValues(String field) {
    for (int i = 0; i < ranks.length; i++) {
      if (IndexSchema.rankField(i).equals(field)) {
        return ranks[i];
      }
    }
    return null;
  }

  @Override
  public BinaryDocValues getBinaryDocValues(String field) {
    if (!IndexSchema.MD5.equals(field)) {
      return null;
    }
    return new BinaryDocValues() {
      private final DenseDocs docs = new DenseDocs(maxDoc);
      private final BytesRef value = new BytesRef(keys, 0, KEY_BYTES);

      @Override
      public BytesRef binaryValue() {
        value.offset = KEY_BYTES * docs.doc;
        return value;
      }

      @Override
      public boolean advanceExact(int target) {
        docs.doc = target;
        return true;
      }

      @Override
      public int docID() {
        return docs.doc;
      }

      @Override
      public int nextDoc() {
        return docs.advance(docs.doc + 1);
      }

      @Override
      public int advance(int target) {
        return docs.advance(target);
      }

      @Override
      public long cost() {
        return maxDoc;
      }
    };
  }

  /** The position of an iterator over docs 0..maxDoc-1, all of which have a value. */
  private static final class DenseDocs {
    private final int maxDoc;
    int doc = -1;

    DenseDocs(int maxDoc) {
      this.maxDoc = maxDoc;
    }

    int advance(int target) {
      return doc = target < maxDoc ? target : DocIdSetIterator.NO_MORE_DOCS;
    }
  }

  private final class KeyTerms extends Terms {
    @Override
    public TermsEnum iterator() {
      return new KeyTermsEnum();
    }

    @Override
    public long size() {
      return termCount;
    }

    @Override
    public long getSumTotalTermFreq() {
      return maxDoc;
    }

    @Override
    public long getSumDocFreq() {
      return maxDoc;
    }

    @Override
    public int getDocCount() {
      return maxDoc;
    }

    @Override
    public boolean hasFreqs() {
      return false;
    }

    @Override
    public boolean hasOffsets() {
      return false;
    }

    @Override
    public boolean hasPositions() {
      return false;
    }

    @Override
    public boolean hasPayloads() {
      return false;
    }
  }

  /**
   * Walks the terms in order (all a merge needs): a term is the run docsByKey[start, end) of one
   * key.
   */
  private final class KeyTermsEnum extends BaseTermsEnum {
    private int start;
    private int end;
    private long ord = -1;
    private final BytesRef term = new BytesRef(keys, 0, KEY_BYTES);

    @Override
    public BytesRef next() {
      start = end;
      if (start >= maxDoc) {
        return null;
      }
      end = termStarts.nextSetBit(start + 1);
      ord++;
      term.offset = KEY_BYTES * docsByKey[start];
      return term;
    }

    @Override
    public SeekStatus seekCeil(BytesRef text) {
      throw new UnsupportedOperationException("only walked in order, by addIndexes");
    }

    @Override
    public void seekExact(long ord) {
      throw new UnsupportedOperationException("only walked in order, by addIndexes");
    }

    @Override
    public BytesRef term() {
      return term;
    }

    @Override
    public long ord() {
      return ord;
    }

    @Override
    public int docFreq() {
      return end - start;
    }

    @Override
    public long totalTermFreq() {
      return end - start;
    }

    @Override
    public PostingsEnum postings(PostingsEnum reuse, int flags) {
      return new RunPostings(start, end);
    }

    @Override
    public ImpactsEnum impacts(int flags) {
      throw new UnsupportedOperationException("only walked in order, by addIndexes");
    }
  }

  /** The docs docsByKey[from, to) of one term, increasing (the sort breaks key ties by doc). */
  private final class RunPostings extends PostingsEnum {
    private final int to;
    private int next;
    private int doc = -1;

    RunPostings(int from, int to) {
      this.next = from;
      this.to = to;
    }

    @Override
    public int freq() {
      return 1;
    }

    @Override
    public int nextPosition() {
      return -1;
    }

    @Override
    public int startOffset() {
      return -1;
    }

    @Override
    public int endOffset() {
      return -1;
    }

    @Override
    public BytesRef getPayload() {
      return null;
    }

    @Override
    public int docID() {
      return doc;
    }

    @Override
    public int nextDoc() {
      return doc = next < to ? docsByKey[next++] : NO_MORE_DOCS;
    }

    @Override
    public int advance(int target) {
      int d = nextDoc();
      while (d < target) {
        d = nextDoc();
      }
      return d;
    }

    @Override
    public long cost() {
      return to - next;
    }
  }

  @Override
  public FieldInfos getFieldInfos() {
    return fieldInfos;
  }

  @Override
  public int numDocs() {
    return maxDoc;
  }

  @Override
  public int maxDoc() {
    return maxDoc;
  }

  @Override
  public Bits getLiveDocs() {
    return null;
  }

  @Override
  public LeafMetaData getMetaData() {
    return new LeafMetaData(Version.LATEST.major, Version.LATEST, null, false);
  }

  // Nothing else is in the schema: no stored fields, norms, points, vectors or sorted doc values.

  @Override
  public SortedDocValues getSortedDocValues(String field) {
    return null;
  }

  @Override
  public SortedNumericDocValues getSortedNumericDocValues(String field) {
    return null;
  }

  @Override
  public SortedSetDocValues getSortedSetDocValues(String field) {
    return null;
  }

  @Override
  public NumericDocValues getNormValues(String field) {
    return null;
  }

  @Override
  public FloatVectorValues getFloatVectorValues(String field) {
    return null;
  }

  @Override
  public ByteVectorValues getByteVectorValues(String field) {
    return null;
  }

  @Override
  public void searchNearestVectors(
      String field, float[] target, KnnCollector collector, Bits acceptDocs) {}

  @Override
  public void searchNearestVectors(
      String field, byte[] target, KnnCollector collector, Bits acceptDocs) {}

  @Override
  public PointValues getPointValues(String field) {
    return null;
  }

  @Override
  @Deprecated
  public Fields getTermVectors(int docID) {
    return null;
  }

  @Override
  public TermVectors termVectors() {
    return TermVectors.EMPTY;
  }

  @Override
  @Deprecated
  public void document(int docID, StoredFieldVisitor visitor) {}

  @Override
  public StoredFields storedFields() {
    return new StoredFields() {
      @Override
      public void document(int docID, StoredFieldVisitor visitor) {}
    };
  }

  @Override
  public void checkIntegrity() {}

  @Override
  protected void doClose() {}

  @Override
  public CacheHelper getCoreCacheHelper() {
    return null;
  }

  @Override
  public CacheHelper getReaderCacheHelper() {
    return null;
  }
}
