package org.xiaochong.method.near;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.ReaderUtil;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.method.near.index.NearSchema;

/**
 * One thread's doc values iterators over the near index, for reading a few fields of many
 * candidates given in ascending doc order: each segment's iterator of a field is made once and
 * moved forward, and made again only when a doc before its position is asked for (the next record's
 * candidates). {@link IndexedNearKeys} makes a fresh iterator per read, which for the thousand
 * candidates a common key brings costs more than the reads. Not thread-safe: one per thread, over a
 * reader that stays open.
 */
final class CandidateValues {
  private static final long[] NONE = new long[0];

  private final List<LeafReaderContext> leaves;
  private final Field ids;
  private final Field keys;
  private final Field tel;
  private final Field matches;

  CandidateValues(List<LeafReaderContext> leaves) {
    this.leaves = leaves;
    ids = new Field(IndexSchema.ID, true, leaves.size());
    keys = new Field(NearSchema.KEYS, false, leaves.size());
    tel = new Field(NearSchema.TEL, false, leaves.size());
    matches = new Field(NearSchema.MATCH, false, leaves.size());
  }

  /** The global doc's record id (0 when it has none, as {@link IndexSchema#id} reads it). */
  long id(int doc) throws IOException {
    LeafReaderContext leaf = leaf(doc);
    NumericDocValues values = (NumericDocValues) ids.at(leaf, doc - leaf.docBase);
    return values != null && values.advanceExact(doc - leaf.docBase) ? values.longValue() : 0;
  }

  /** The doc's {@link NearSchema#KEYS}. */
  long[] keys(int doc) throws IOException {
    return keys.read(leaf(doc), doc);
  }

  /** The doc's {@link NearSchema#TEL} (empty when it has none). */
  long[] tel(int doc) throws IOException {
    return tel.read(leaf(doc), doc);
  }

  /** The doc's {@link NearSchema#MATCH} (empty when it has none). */
  long[] matches(int doc) throws IOException {
    return matches.read(leaf(doc), doc);
  }

  private LeafReaderContext leaf(int doc) {
    return leaves.get(ReaderUtil.subIndex(doc, leaves));
  }

  /** One field's iterator per segment. */
  private static final class Field {
    private final String name;
    private final boolean numeric;
    private final Object[] iterators;
    private final boolean[] made;

    Field(String name, boolean numeric, int segments) {
      this.name = name;
      this.numeric = numeric;
      this.iterators = new Object[segments];
      this.made = new boolean[segments];
    }

    /**
     * The segment's iterator, positioned at or before {@code target} (a segment doc), or null when
     * the segment has no such field.
     */
    Object at(LeafReaderContext leaf, int target) throws IOException {
      int i = leaf.ord;
      Object it = iterators[i];
      if (!made[i] || (it != null && docID(it) > target)) {
        LeafReader reader = leaf.reader();
        it = numeric ? reader.getNumericDocValues(name) : reader.getBinaryDocValues(name);
        iterators[i] = it;
        made[i] = true;
      }
      return it;
    }

    long[] read(LeafReaderContext leaf, int doc) throws IOException {
      int target = doc - leaf.docBase;
      BinaryDocValues values = (BinaryDocValues) at(leaf, target);
      return values != null && values.advanceExact(target)
          ? NearSchema.decode(values.binaryValue())
          : NONE;
    }

    private int docID(Object it) {
      return numeric ? ((NumericDocValues) it).docID() : ((BinaryDocValues) it).docID();
    }
  }
}
