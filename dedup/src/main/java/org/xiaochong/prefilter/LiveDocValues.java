package org.xiaochong.prefilter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.LongPredicate;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.index.IndexSchema;

/**
 * Reads the keys a filter is built from out of an index: one binary doc value per live record, in
 * doc order, segment by segment. Stateless.
 */
final class LiveDocValues {
  private LiveDocValues() {}

  /**
   * The doc values of {@code field} of the live records of {@code reader} whose id {@code wanted}
   * accepts; with {@code wanted} null, of every live record, and the ids are not read.
   */
  static void read(
      DirectoryReader reader,
      String field,
      LongPredicate wanted,
      IndexKeyFilter.ValueConsumer consumer) {
    try {
      for (LeafReaderContext leaf : reader.leaves()) {
        LeafReader leafReader = leaf.reader();
        Bits live = leafReader.getLiveDocs();
        NumericDocValues ids =
            wanted == null ? null : leafReader.getNumericDocValues(IndexSchema.ID);
        BinaryDocValues values = leafReader.getBinaryDocValues(field);
        if (values == null || wanted != null && ids == null) {
          continue;
        }
        for (int doc = values.nextDoc(); doc != PostingsEnum.NO_MORE_DOCS; doc = values.nextDoc()) {
          if (live != null && !live.get(doc)
              || wanted != null && !(ids.advanceExact(doc) && wanted.test(ids.longValue()))) {
            continue;
          }
          BytesRef bytes = values.binaryValue();
          consumer.accept(bytes.bytes, bytes.offset, bytes.length);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
