package org.xiaochong.method.simhash;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.NumericDocValuesField;
import org.xiaochong.index.DocumentMaker;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.simhash.Simhash64;
import org.xiaochong.simhash.SimhashIndex;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * Simhash index documents: {@code id}, {@code reg_time} and {@code row_crc} doc values under the
 * names of {@link IndexSchema} (so id deletes, the sync's change check and {@code IndexSnapshot}
 * work as on the other indexes), and the 64-bit simhash of the configured fields as {@link
 * SimhashIndex} block terms and doc value. A record without features (empty text) gets neither: it
 * is in step with the table but never a candidate, as all empty texts share fingerprint 0. The
 * {@link Simhash64} is shared by all workers; one maker per worker thread (it keeps a buffer).
 */
final class SimhashDocumentMaker implements DocumentMaker {
  private final Simhash64 simhash;
  private final int[] columns;
  private final FeatureFrequencies frequencies;
  private final KeepPolicy keepPolicy;
  private final List<String> recordColumns;
  private final StringBuilder text = new StringBuilder();
  private final double[] sums = new double[Simhash64.BITS];

  /**
   * @param simhash the features (its own weights are not used: see {@link #fingerprint})
   * @param frequencies the frozen frequencies for tf-idf weights, or null for tf weights
   */
  SimhashDocumentMaker(
      TableSpec spec, SimhashConfig config, Simhash64 simhash, FeatureFrequencies frequencies) {
    this(
        simhash,
        config.fields().stream().mapToInt(spec.fingerprintColumns()::indexOf).toArray(),
        frequencies,
        spec.keepPolicy(),
        spec.fingerprintColumns());
  }

  private SimhashDocumentMaker(
      Simhash64 simhash,
      int[] columns,
      FeatureFrequencies frequencies,
      KeepPolicy keepPolicy,
      List<String> recordColumns) {
    this.simhash = simhash;
    this.columns = columns;
    this.frequencies = frequencies;
    this.keepPolicy = keepPolicy;
    this.recordColumns = recordColumns;
  }

  /** A maker like this one with its own buffers, for another thread. */
  SimhashDocumentMaker copy() {
    return new SimhashDocumentMaker(simhash, columns, frequencies, keepPolicy, recordColumns);
  }

  /** The fingerprint of the record's fields, or null when their text has no features. */
  Long fingerprint(SourceRecord record) {
    List<String> features = simhash.features(text(record));
    return features.isEmpty() ? null : fingerprint(features);
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
   * {@link Simhash64#fingerprint} of these features. With tf weights, without its map of weights:
   * adding 1 per occurrence sums to the same whole numbers as adding each feature's count once, so
   * the bits are the same. With tf-idf, each distinct feature once, weighted tf * idf from the
   * frozen frequencies (the BM25 idf of {@link Simhash64}).
   */
  long fingerprint(List<String> features) {
    if (frequencies == null) {
      Arrays.fill(sums, 0);
      for (String feature : features) {
        Simhash64.add(sums, Simhash64.hash(feature), 1);
      }
      return Simhash64.toBits(sums);
    }
    Map<String, Double> counts = new HashMap<>();
    for (String feature : features) {
      counts.merge(feature, 1.0, Double::sum);
    }
    // Each distinct feature's hash once: the sums, in Simhash64.fromWeights' order, and its df
    // bucket.
    long docCount = frequencies.docCount();
    Arrays.fill(sums, 0);
    for (Map.Entry<String, Double> entry : counts.entrySet()) {
      long hash = Simhash64.hash(entry.getKey());
      Simhash64.add(
          sums, hash, entry.getValue() * Simhash64.idf(docCount, frequencies.docFreqOfHash(hash)));
    }
    return Simhash64.toBits(sums);
  }

  @Override
  public Document make(SourceRecord record) {
    Document doc = new Document();
    doc.add(new NumericDocValuesField(IndexSchema.ID, record.id()));
    doc.add(new NumericDocValuesField(IndexSchema.REG_TIME, record.regTime()));
    doc.add(new NumericDocValuesField(IndexSchema.ROW_CRC, record.rowCrc()));
    IndexSchema.addRank(doc, IndexSchema.storedRank(keepPolicy, record, recordColumns));
    Long fingerprint = fingerprint(record);
    if (fingerprint != null) {
      SimhashIndex.addFields(doc, fingerprint);
    }
    return doc;
  }
}
