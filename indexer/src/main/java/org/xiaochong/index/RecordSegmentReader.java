package org.xiaochong.index;

import static org.xiaochong.index.KeyOrder.KEY_BYTES;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafMetaData;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.Terms;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
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
 * <p>The md5 terms and their postings are {@link SortedKeyTerms}; what such a segment has none of
 * (stored fields, norms, points, vectors, deletions) is {@link BulkLoadLeafReader}.
 */
final class RecordSegmentReader extends BulkLoadLeafReader {
  /** Field layout of the record index, read from a real one-document index so it cannot drift. */
  private static final FieldInfos FIELD_INFOS = schemaFieldInfos(0);

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
  private final SortedKeyTerms keyTerms;

  /**
   * @param ids record ids, per document
   * @param times reg_time in epoch ms, per document
   * @param keys 16-byte MD5 keys, document d at {@code [16d, 16d + 16)}
   * @param crcs row checksums, per document
   * @param syncSeq the sync number of every document
   * @param size documents: the first {@code size} entries of the arrays
   */
  RecordSegmentReader(long[] ids, long[] times, byte[] keys, long[] crcs, long syncSeq, int size) {
    this(ids, times, new long[0][], keys, crcs, syncSeq, size);
  }

  /**
   * @param ranks the keep rank's columns, each per document ({@link IndexSchema#storedRank}); none
   *     under latest
   */
  RecordSegmentReader(
      long[] ids, long[] times, long[][] ranks, byte[] keys, long[] crcs, long syncSeq, int size) {
    this.ranks = ranks;
    this.fieldInfos = ranks.length == 0 ? FIELD_INFOS : schemaFieldInfos(ranks.length);
    this.ids = ids;
    this.times = times;
    this.keys = keys;
    this.crcs = crcs;
    this.syncSeq = new long[] {syncSeq};
    this.maxDoc = size;
    this.keyTerms = new SortedKeyTerms(keys, size);
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
    return IndexSchema.MD5.equals(field) ? keyTerms : null;
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
  public LeafMetaData getMetaData() {
    return new LeafMetaData(Version.LATEST.major, Version.LATEST, null, false);
  }
}
