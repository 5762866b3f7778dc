package org.xiaochong.method.minhash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.StringHelper;
import org.xiaochong.index.DocumentMaker;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * MinHash signatures of a record's {@code minhash.fields} text and their index documents. The text
 * is the fields' non-empty values joined by a line break, lower-cased, white space dropped; its
 * features are its character 3-shingles (the whole text when shorter). Signature position i is the
 * least of {@code h1 + i * h2 mod 2^32} over the features, where h1 and h2 are two MurmurHash3
 * values of the feature (Kirsch and Mitzenmacher's two-hash family). The {@link #HASHES} positions
 * form {@link #BANDS} bands of {@link #ROWS}; each band is one term of {@link #BAND_FIELD}. The
 * signature itself is a binary doc value. A record without text has neither. One instance per
 * thread.
 */
final class MinHashSignatures implements DocumentMaker {
  static final int ROWS = 4;
  static final int BANDS = 8;
  static final int HASHES = ROWS * BANDS;
  static final String BAND_FIELD = "minhash_band";
  static final String SIGNATURE_FIELD = "minhash_signature";

  private final List<String> fields;
  private final int[] columns;
  private final org.xiaochong.policy.KeepPolicy keepPolicy;
  private final List<String> readable;

  MinHashSignatures(TableSpec spec) {
    List<String> readable = spec.fingerprintColumns();
    this.readable = readable;
    this.keepPolicy = spec.keepPolicy();
    this.fields = spec.columns(MinHashMethod.FIELDS);
    this.columns = fields.stream().mapToInt(readable::indexOf).toArray();
  }

  /** The record's signature, or null when its fields hold no text. */
  int[] of(SourceRecord record) {
    return of(Arrays.stream(columns).mapToObj(c -> record.values()[c]).toList());
  }

  /**
   * The signature of a record given by column name (a missing column is NULL), or null without
   * text.
   */
  int[] of(Map<String, String> record) {
    return of(fields.stream().map(record::get).toList());
  }

  private static int[] of(List<String> values) {
    StringBuilder text = new StringBuilder();
    for (String value : values) {
      if (value != null && !value.isBlank()) {
        text.append(text.isEmpty() ? "" : "\n").append(value);
      }
    }
    String folded = text.toString().toLowerCase(Locale.ROOT).replaceAll("\\s+", "");
    if (folded.isEmpty()) {
      return null;
    }
    int[] points = folded.codePoints().toArray();
    long[] min = new long[HASHES];
    Arrays.fill(min, Long.MAX_VALUE);
    int shingles = Math.max(1, points.length - 2);
    for (int start = 0; start < shingles; start++) {
      byte[] bytes =
          new String(points, start, Math.min(3, points.length - start))
              .getBytes(StandardCharsets.UTF_8);
      long h1 = StringHelper.murmurhash3_x86_32(bytes, 0, bytes.length, 0x9747b28c) & 0xffffffffL;
      long h2 = StringHelper.murmurhash3_x86_32(bytes, 0, bytes.length, 0x5bd1e995) & 0xffffffffL;
      for (int i = 0; i < HASHES; i++) {
        min[i] = Math.min(min[i], (h1 + i * h2) & 0xffffffffL);
      }
    }
    int[] signature = new int[HASHES];
    for (int i = 0; i < HASHES; i++) {
      signature[i] = (int) min[i];
    }
    return signature;
  }

  /**
   * The share of positions two signatures agree on: an estimate of the Jaccard of their shingles.
   */
  static double similarity(int[] a, int[] b) {
    int same = 0;
    for (int i = 0; i < HASHES; i++) {
      same += a[i] == b[i] ? 1 : 0;
    }
    return same / (double) HASHES;
  }

  /** The term of band {@code band} of {@code signature}. */
  static BytesRef bandTerm(int band, int[] signature) {
    StringBuilder term = new StringBuilder().append(band);
    for (int row = 0; row < ROWS; row++) {
      term.append(':').append(Integer.toHexString(signature[band * ROWS + row]));
    }
    return new BytesRef(term);
  }

  /** Adds the band terms and the signature of a record to its document. */
  static void addFields(Document doc, int[] signature) {
    for (int band = 0; band < BANDS; band++) {
      doc.add(new StringField(BAND_FIELD, bandTerm(band, signature), Field.Store.NO));
    }
    ByteBuffer bytes = ByteBuffer.allocate(HASHES * Integer.BYTES);
    bytes.asIntBuffer().put(signature);
    doc.add(new BinaryDocValuesField(SIGNATURE_FIELD, new BytesRef(bytes.array())));
  }

  /** Every document's signature by global doc id (null for documents without one). */
  static int[][] load(List<LeafReaderContext> leaves, int maxDoc) {
    int[][] signatures = new int[maxDoc][];
    try {
      for (LeafReaderContext leaf : leaves) {
        BinaryDocValues values = leaf.reader().getBinaryDocValues(SIGNATURE_FIELD);
        if (values == null) {
          continue;
        }
        for (int doc = values.nextDoc();
            doc != BinaryDocValues.NO_MORE_DOCS;
            doc = values.nextDoc()) {
          BytesRef bytes = values.binaryValue();
          int[] signature = new int[HASHES];
          ByteBuffer.wrap(bytes.bytes, bytes.offset, bytes.length).asIntBuffer().get(signature);
          signatures[leaf.docBase + doc] = signature;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return signatures;
  }

  @Override
  public Document make(SourceRecord record) {
    Document doc = new Document();
    doc.add(new NumericDocValuesField(IndexSchema.ID, record.id()));
    doc.add(new NumericDocValuesField(IndexSchema.REG_TIME, record.regTime()));
    doc.add(new NumericDocValuesField(IndexSchema.ROW_CRC, record.rowCrc()));
    IndexSchema.addRank(doc, IndexSchema.storedRank(keepPolicy, record, readable));
    int[] signature = of(record);
    if (signature != null) {
      addFields(doc, signature);
    }
    return doc;
  }
}
