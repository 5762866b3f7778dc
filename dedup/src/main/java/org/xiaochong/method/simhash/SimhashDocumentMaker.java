package org.xiaochong.method.simhash;

import org.apache.lucene.document.Document;
import org.apache.lucene.document.NumericDocValuesField;
import org.xiaochong.index.DocumentMaker;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.simhash.Simhash64;
import org.xiaochong.simhash.SimhashIndex;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * Simhash index documents: {@code id}, {@code reg_time} and {@code row_crc} doc values under the names
 * of {@link IndexSchema} (so id deletes, the sync's change check and {@code IndexSnapshot} work as on
 * the other indexes), and the 64-bit simhash of the configured fields as {@link SimhashIndex} block
 * terms and doc value. A record without features (empty text) gets neither: it is in step with the
 * table but never a candidate, as all empty texts share fingerprint 0. The {@link Simhash64} is
 * shared by all workers; one maker per worker thread (it keeps a buffer).
 */
final class SimhashDocumentMaker implements DocumentMaker {
  private final Simhash64 simhash;
  private final int[] columns;
  private final StringBuilder text = new StringBuilder();

  SimhashDocumentMaker(TableSpec spec, SimhashConfig config, Simhash64 simhash) {
    this.simhash = simhash;
    this.columns = config.fields().stream().mapToInt(spec.fingerprintColumns()::indexOf).toArray();
  }

  /** The fields' text: their non-empty values, in config order, joined by a line break. */
  String text(SourceRecord record) {
    text.setLength(0);
    for (int column : columns) {
      String value = record.values()[column];
      if (value != null && !value.isEmpty()) {
        text.append(text.isEmpty() ? "" : "\n").append(value);
      }
    }
    return text.toString();
  }

  @Override
  public Document make(SourceRecord record) {
    Document doc = new Document();
    doc.add(new NumericDocValuesField(IndexSchema.ID, record.id()));
    doc.add(new NumericDocValuesField(IndexSchema.REG_TIME, record.regTime()));
    doc.add(new NumericDocValuesField(IndexSchema.ROW_CRC, record.rowCrc()));
    java.util.Map<String, Double> weights = simhash.weights(text(record));
    if (!weights.isEmpty()) {
      SimhashIndex.addFields(doc, Simhash64.fromWeights(weights));
    }
    return doc;
  }
}
