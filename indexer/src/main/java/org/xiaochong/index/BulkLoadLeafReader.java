package org.xiaochong.index;

import org.apache.lucene.index.ByteVectorValues;
import org.apache.lucene.index.DocValuesSkipper;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.index.StoredFieldVisitor;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.TermVectors;
import org.apache.lucene.search.AcceptDocs;
import org.apache.lucene.search.KnnCollector;
import org.apache.lucene.util.Bits;

/**
 * Base of a read-only leaf made to be written by {@code IndexWriter.addIndexes}, whose documents
 * have terms and numeric or binary doc values only: it has no deleted documents, stored fields,
 * norms, points, vectors, sorted doc values or term vectors, no cache helpers and nothing to close.
 * A subclass gives the fields, terms, doc values and document counts.
 */
abstract class BulkLoadLeafReader extends LeafReader {
  @Override
  public Bits getLiveDocs() {
    return null;
  }

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
      String field, float[] target, KnnCollector collector, AcceptDocs acceptDocs) {}

  @Override
  public void searchNearestVectors(
      String field, byte[] target, KnnCollector collector, AcceptDocs acceptDocs) {}

  @Override
  public DocValuesSkipper getDocValuesSkipper(String field) {
    return null;
  }

  @Override
  public PointValues getPointValues(String field) {
    return null;
  }

  @Override
  public TermVectors termVectors() {
    return TermVectors.EMPTY;
  }

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
