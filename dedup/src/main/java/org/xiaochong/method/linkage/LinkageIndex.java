package org.xiaochong.method.linkage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.index.DocumentMaker;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.source.SourceRecord;

/**
 * The documents of the linkage index ({@code <index.dir>/linkage}): {@code id}, {@code reg_time},
 * {@code row_crc} and the keep rank under the names of {@link IndexSchema} (so id deletes, the
 * sync's change check and the pass's snapshot work as on the other indexes); the record's {@link
 * BlockingKeys} as terms of {@value #KEYS}; and its compared columns' canonical values as one
 * binary doc value ({@value #VALUES}, joined by U+001F), which the pass loads once. Values are cut
 * at {@value #MAX_VALUE_CHARS} chars: a huge field compares as its start.
 */
final class LinkageIndex {
  static final String KEYS = "lk";
  static final String VALUES = "lv";
  static final int MAX_VALUE_CHARS = 2_000;
  private static final char SEPARATOR = '\u001F';

  private LinkageIndex() {}

  /**
   * The compared columns' values (at {@code positions} of the record's values), each as its kind
   * compares it ({@link Values#of}).
   */
  static String[] values(SourceRecord record, int[] positions, List<ColumnKind> kinds) {
    String[] values = new String[positions.length];
    for (int c = 0; c < positions.length; c++) {
      String raw = record.values()[positions[c]];
      if (raw != null && raw.length() > MAX_VALUE_CHARS) {
        raw = raw.substring(0, MAX_VALUE_CHARS);
      }
      values[c] = Values.of(kinds.get(c), raw).replace(SEPARATOR, ' ');
    }
    return values;
  }

  /** A maker of linkage documents; one per worker thread. */
  static DocumentMaker maker(
      List<ColumnKind> kinds, int[] positions, KeepPolicy keepPolicy, List<String> recordColumns) {
    BlockingKeys blocking = new BlockingKeys(kinds);
    return record -> {
      String[] values = values(record, positions, kinds);
      Document doc = new Document();
      doc.add(new NumericDocValuesField(IndexSchema.ID, record.id()));
      doc.add(new NumericDocValuesField(IndexSchema.REG_TIME, record.regTime()));
      doc.add(new NumericDocValuesField(IndexSchema.ROW_CRC, record.rowCrc()));
      IndexSchema.addRank(doc, IndexSchema.storedRank(keepPolicy, record, recordColumns));
      for (String key : blocking.keys(values)) {
        doc.add(new StringField(KEYS, key, Field.Store.NO));
      }
      doc.add(
          new BinaryDocValuesField(
              VALUES, new BytesRef(String.join(String.valueOf(SEPARATOR), values))));
      return doc;
    };
  }

  /** Every document's values by global doc id (null for a document without them). */
  static String[][] loadValues(List<LeafReaderContext> leaves, int maxDoc, int columns) {
    String[][] values = new String[maxDoc][];
    try {
      for (LeafReaderContext leaf : leaves) {
        BinaryDocValues docValues = leaf.reader().getBinaryDocValues(VALUES);
        if (docValues == null) {
          continue;
        }
        for (int doc = docValues.nextDoc();
            doc != BinaryDocValues.NO_MORE_DOCS;
            doc = docValues.nextDoc()) {
          BytesRef bytes = docValues.binaryValue();
          String joined =
              new String(bytes.bytes, bytes.offset, bytes.length, StandardCharsets.UTF_8);
          String[] split = joined.split(String.valueOf(SEPARATOR), -1);
          values[leaf.docBase + doc] =
              split.length == columns ? split : java.util.Arrays.copyOf(split, columns);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return values;
  }
}
