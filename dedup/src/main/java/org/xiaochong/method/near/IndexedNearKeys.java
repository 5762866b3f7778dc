package org.xiaochong.method.near;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.ReaderUtil;
import org.xiaochong.method.near.fingerprint.Evidence;
import org.xiaochong.method.near.index.NearSchema;

/**
 * The stored keys of one document of the near index, for {@link NearRule}: the key set is given
 * (the caller has read it), the others are read from doc values when the rule asks for them; the
 * q-gram keys once (the rule asks for them per candidate when the record has some). Not
 * thread-safe.
 */
public final class IndexedNearKeys implements NearRule.Keys {
  private final List<LeafReaderContext> leaves;
  private final int doc;
  private final long[] keys;
  private long[] grams;
  private long[] shingles;
  private int present = -1; // not read yet
  private Evidence evidence;

  /**
   * @param leaves the reader's leaves
   * @param doc the global doc id
   * @param keys the document's {@link NearSchema#KEYS}
   */
  public IndexedNearKeys(List<LeafReaderContext> leaves, int doc, long[] keys) {
    this.leaves = leaves;
    this.doc = doc;
    this.keys = keys;
  }

  /** The document with its key set read from the index. */
  public static IndexedNearKeys of(List<LeafReaderContext> leaves, int doc) {
    return new IndexedNearKeys(leaves, doc, read(leaves, doc, NearSchema.KEYS));
  }

  /** Every key of the document read into memory at once, for a record compared many times. */
  static NearRule.Stored stored(List<LeafReaderContext> leaves, int doc) {
    return NearRule.Stored.copyOf(of(leaves, doc));
  }

  @Override
  public long[] keys() {
    return keys;
  }

  @Override
  public long[] top() {
    return read(leaves, doc, NearSchema.TOP);
  }

  @Override
  public long[] tel() {
    return read(leaves, doc, NearSchema.TEL);
  }

  @Override
  public long[] numbers() {
    return read(leaves, doc, NearSchema.NUM);
  }

  @Override
  public long[] matches() {
    return read(leaves, doc, NearSchema.MATCH);
  }

  @Override
  public long[] grams() {
    if (grams == null) {
      grams = read(leaves, doc, NearSchema.GRAMS);
    }
    return grams;
  }

  @Override
  public int shortFields() {
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
    try {
      NumericDocValues values = leaf.reader().getNumericDocValues(NearSchema.SHORT);
      return values != null && values.advanceExact(doc - leaf.docBase)
          ? (int) values.longValue()
          : 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public int presentFields() {
    if (present < 0) {
      present = readPresent(leaves, doc);
    }
    return present;
  }

  /**
   * Sets the present-fields mask read ahead by the caller (the pass reads them for every document
   * once).
   */
  public IndexedNearKeys withPresentFields(int mask) {
    present = mask;
    return this;
  }

  @Override
  public int[] keyFields() {
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
    try {
      BinaryDocValues values = leaf.reader().getBinaryDocValues(NearSchema.FIELDS);
      if (values == null || !values.advanceExact(doc - leaf.docBase)) {
        return null;
      }
      return NearSchema.decodeFields(values.binaryValue(), keys.length);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Read once: the rule asks for it only for pairs whose keys reach the threshold, and then twice.
   */
  @Override
  public Evidence evidence() {
    if (evidence == null) {
      LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
      try {
        BinaryDocValues values = leaf.reader().getBinaryDocValues(NearSchema.EVIDENCE);
        evidence =
            values == null || !values.advanceExact(doc - leaf.docBase)
                ? Evidence.NONE
                : Evidence.decode(
                    values.binaryValue().bytes,
                    values.binaryValue().offset,
                    values.binaryValue().length);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return evidence;
  }

  /** The {@link NearSchema#PRESENT} mask of one document, 0 when it has none. */
  static int readPresent(List<LeafReaderContext> leaves, int doc) {
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
    try {
      NumericDocValues values = leaf.reader().getNumericDocValues(NearSchema.PRESENT);
      return values != null && values.advanceExact(doc - leaf.docBase)
          ? (int) values.longValue()
          : 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public long[] shingles() {
    if (shingles == null) {
      shingles = read(leaves, doc, NearSchema.SHINGLES);
    }
    return shingles;
  }

  /**
   * Keys of one document from a binary doc values field (a fresh iterator: documents come in any
   * order).
   */
  static long[] read(List<LeafReaderContext> leaves, int doc, String field) {
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
    try {
      BinaryDocValues values = leaf.reader().getBinaryDocValues(field);
      if (values == null || !values.advanceExact(doc - leaf.docBase)) {
        return new long[0];
      }
      return NearSchema.decode(values.binaryValue());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
