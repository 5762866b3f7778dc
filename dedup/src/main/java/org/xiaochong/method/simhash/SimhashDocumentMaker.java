package org.xiaochong.method.simhash;

import java.util.Arrays;
import java.util.List;
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
  private final double[] sums = new double[Simhash64.BITS];

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

  /**
   * {@link Simhash64#fingerprint} with tf weights, without its map of weights: adding 1 per occurrence
   * sums to the same whole numbers as adding each feature's count once, so the bits are the same.
   */
  long fingerprint(List<String> features) {
    Arrays.fill(sums, 0);
    for (String feature : features) {
      Simhash64.add(sums, Simhash64.hash(feature), 1);
    }
    return Simhash64.toBits(sums);
  }

  @Override
  public Document make(SourceRecord record) {
    Document doc = new Document();
    doc.add(new NumericDocValuesField(IndexSchema.ID, record.id()));
    doc.add(new NumericDocValuesField(IndexSchema.REG_TIME, record.regTime()));
    doc.add(new NumericDocValuesField(IndexSchema.ROW_CRC, record.rowCrc()));
    List<String> features = simhash.features(text(record));
    if (!features.isEmpty()) {
      SimhashIndex.addFields(doc, fingerprint(features));
    }
    return doc;
  }
}
