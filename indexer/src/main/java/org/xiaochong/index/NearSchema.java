package org.xiaochong.index;

import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.fingerprint.Fingerprints;
import org.xiaochong.fingerprint.NearOutcome;

/**
 * The fields of the near-duplicate index (a separate Lucene index, by default {@code <index.dir>/near},
 * built only for {@code --method near|both}): one document per source record.
 *
 * <pre>
 * field          indexed as                        doc values   used by
 * id             -                                 numeric      deletes by id, reading ids
 * reg_time       -                                 numeric      the window, newest-first order
 * near_key       term per key (8 bytes, BE)        -            candidate lookups (top-pre keys of a post)
 * near_keys      -                                 binary       similarity: distinct keys, ascending
 * near_top       -                                 binary       the post's top-pre keys, rank order
 * near_tel       -                                 binary       keys of the post's tel: terms, ascending
 * near_outcome   -                                 numeric      {@link NearOutcome} ordinal (+256 if truncated)
 * </pre>
 *
 * {@code id} and {@code reg_time} have the names of {@link IndexSchema}, so {@link
 * FingerprintIndex#liveIdsSorted}, id deletes and the window query work on both indexes. A key is the
 * first 8 bytes of a term's MD5 ({@link Fingerprints#high(int)}).
 */
public final class NearSchema {
  public static final String KEY = "near_key";
  public static final String KEYS = "near_keys";
  public static final String TOP = "near_top";
  public static final String TEL = "near_tel";
  public static final String OUTCOME = "near_outcome";
  /** Added to the outcome ordinal when the post was cut to near.max-chars. */
  public static final int TRUNCATED_FLAG = 256;

  private NearSchema() {}

  public static Document document(long id, long regTime, Fingerprints fingerprints, int pre) {
    Document doc = new Document();
    doc.add(new NumericDocValuesField(IndexSchema.ID, id));
    doc.add(new NumericDocValuesField(IndexSchema.REG_TIME, regTime));
    long[] sorted = fingerprints.sortedPrefixes();
    for (long key : sorted) {
      doc.add(new StringField(KEY, keyBytes(key), Field.Store.NO));
    }
    doc.add(new BinaryDocValuesField(KEYS, new BytesRef(encode(sorted, sorted.length))));
    long[] ranked = fingerprints.prefixes();
    doc.add(new BinaryDocValuesField(TOP, new BytesRef(encode(ranked, Math.min(pre, ranked.length)))));
    long[] tel = new long[ranked.length];
    int tels = 0;
    for (int i = 0; i < ranked.length; i++) {
      if (fingerprints.terms().get(i).startsWith("tel:")) {
        tel[tels++] = ranked[i];
      }
    }
    if (tels > 0) {
      java.util.Arrays.sort(tel, 0, tels);
      doc.add(new BinaryDocValuesField(TEL, new BytesRef(encode(tel, tels))));
    }
    NearOutcome outcome = fingerprints.outcome();
    doc.add(new NumericDocValuesField(OUTCOME, outcome.ordinal() + (fingerprints.truncated() ? TRUNCATED_FLAG : 0)));
    return doc;
  }

  /** The term of one key: 8 bytes, big-endian. */
  public static BytesRef keyBytes(long key) {
    byte[] bytes = new byte[8];
    writeLong(bytes, 0, key);
    return new BytesRef(bytes);
  }

  static byte[] encode(long[] keys, int count) {
    byte[] bytes = new byte[8 * count];
    for (int i = 0; i < count; i++) {
      writeLong(bytes, 8 * i, keys[i]);
    }
    return bytes;
  }

  /** Decodes keys written by {@link #document} from doc values bytes. */
  public static long[] decode(BytesRef ref) {
    long[] keys = new long[ref.length / 8];
    for (int i = 0; i < keys.length; i++) {
      long v = 0;
      int base = ref.offset + 8 * i;
      for (int b = 0; b < 8; b++) {
        v = (v << 8) | (ref.bytes[base + b] & 0xFF);
      }
      keys[i] = v;
    }
    return keys;
  }

  public static NearOutcome outcome(long stored) {
    return NearOutcome.values()[(int) (stored % TRUNCATED_FLAG)];
  }

  public static boolean truncated(long stored) {
    return stored >= TRUNCATED_FLAG;
  }

  private static void writeLong(byte[] bytes, int offset, long v) {
    for (int b = 0; b < 8; b++) {
      bytes[offset + b] = (byte) (v >>> (56 - 8 * b));
    }
  }
}
