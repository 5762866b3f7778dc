package org.xiaochong.method.near.index;

import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.util.BitUtil;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.method.near.fingerprint.Evidence;
import org.xiaochong.method.near.fingerprint.Fingerprints;
import org.xiaochong.method.near.fingerprint.NearOutcome;

/**
 * The fields of the near-duplicate index (a separate Lucene index, by default {@code
 * <index.dir>/near}, built only for {@code --method near|both}): one document per source record.
 *
 * <pre>
 * field          indexed as                        doc values   used by
 * id             -                                 numeric      deletes by id, reading ids
 * reg_time       -                                 numeric      the window, newest-first order
 * near_key       term per key (8 bytes, BE)        -            candidate lookups (rarest keys per family); also
 *                the keys of the place and number columns' values, for their document frequencies (weights)
 * near_keys      -                                 binary       similarity: distinct keys of all families, ascending
 * near_grams     -                                 binary       keys of the q-gram family, ascending
 * near_shingles  -                                 binary       keys of the shingle family, ascending
 * near_top       -                                 binary       the post's subject key (0 or 1 key, see topKeys)
 * near_tel       -                                 binary       keys of the post's tel: terms, ascending
 * near_num       -                                 binary       keys of the post's number terms, ascending
 * near_match     -                                 binary       one key per fields.must-match column (0: empty)
 * near_fields    -                                 binary       per key of near_keys, the mask of its fields (1 or 4 bytes)
 * near_evidence  -                                 binary       {@link Evidence}: place and number values, text amounts
 * near_present   -                                 numeric      mask of the fields that gave a key
 * near_short     -                                 numeric      mask of the short fields (Fingerprints#shortFields)
 * near_outcome   -                                 numeric      {@link NearOutcome} ordinal (+256 if truncated)
 * row_crc        -                                 numeric      the sync's change check (as in {@link IndexSchema})
 * </pre>
 *
 * {@code id} and {@code reg_time} have the names of {@link IndexSchema}, so {@link
 * FingerprintIndex#liveIdsSorted}, id deletes and the window query work on both indexes. A key is
 * the first 8 bytes of a term's MD5 ({@link Fingerprints#high(int)}).
 */
public final class NearSchema {
  public static final String KEY = "near_key";
  public static final String KEYS = "near_keys";
  public static final String TOP = "near_top";
  public static final String GRAMS = "near_grams";

  /**
   * Least term frequency of a post's subject: 2. A post names its product in the title and again in
   * the text; a record whose every term occurs once has no subject. (3, the product's title +
   * product field + content, let cora keep about 6,000 more true pairs but merged the same seller's
   * pear and apple posts when the table has no product column to must-match: NearPassTest.)
   */
  static final int SUBJECT_COUNT = 2;

  public static final String SHINGLES = "near_shingles";
  public static final String TEL = "near_tel";
  public static final String NUM = "near_num";
  public static final String MATCH = "near_match";

  /**
   * Per key of {@link #KEYS}, the mask of the near fields it occurs in ({@link
   * Fingerprints#sortedKeyFields}).
   */
  public static final String FIELDS = "near_fields";

  /**
   * The mask of the near fields that gave the post a key ({@link Fingerprints#presentFields});
   * absent: unknown.
   */
  public static final String PRESENT = "near_present";

  /** The mask of the short fields ({@link Fingerprints#shortFields}): compared by their q-grams. */
  public static final String SHORT = "near_short";

  /**
   * Version of the document layout above; part of the near index digest, so an index written with
   * another layout is rebuilt (3: key families, near_top holds the subject only; 4: near_fields,
   * near_present and near_short; 5: near_evidence, and the column values' keys in near_key; 6: the
   * grades of the text in near_evidence).
   */
  public static final String LAYOUT = "near-schema/6";

  /** The record's {@link Evidence} ({@link Evidence#encode}); absent: none. */
  public static final String EVIDENCE = "near_evidence";

  public static final String OUTCOME = "near_outcome";

  /** Added to the outcome ordinal when the post was cut to near.max-chars. */
  static final int TRUNCATED_FLAG = 256;

  private NearSchema() {}

  /**
   * @param matchKeys the keys of the fields.must-match values ({@code TopTermsMd5#matchKey}), in
   *     the order of the config; empty when no field must match
   */
  public static Document document(
      long id, long regTime, Fingerprints fingerprints, int pre, long[] matchKeys) {
    return document(
        id, regTime, org.xiaochong.source.SourceRecord.UNKNOWN_CRC, fingerprints, pre, matchKeys);
  }

  /**
   * @param rowCrc the server's checksum of the row: the near index's own sync tells edited rows by
   *     it, also those edited while only exact runs kept the record index up to date
   */
  public static Document document(
      long id, long regTime, long rowCrc, Fingerprints fingerprints, int pre, long[] matchKeys) {
    return document(
        id, regTime, rowCrc, fingerprints, pre, matchKeys, Evidence.ofText(fingerprints));
  }

  /**
   * @param evidence the record's place and number values and its text's amounts ({@code
   *     NearDocumentMaker#evidence}); the keys of its column values are indexed in {@link #KEY}
   *     too, so that the rule weighs a differing value by how many records hold it, as it weighs
   *     every key
   */
  public static Document document(
      long id,
      long regTime,
      long rowCrc,
      Fingerprints fingerprints,
      int pre,
      long[] matchKeys,
      Evidence evidence) {
    Document doc = new Document();
    doc.add(new NumericDocValuesField(IndexSchema.ID, id));
    doc.add(new NumericDocValuesField(IndexSchema.REG_TIME, regTime));
    doc.add(new NumericDocValuesField(IndexSchema.ROW_CRC, rowCrc));
    long[] sorted = fingerprints.sortedKeys();
    for (long key : sorted) {
      doc.add(new StringField(KEY, keyBytes(key), Field.Store.NO));
    }
    doc.add(new BinaryDocValuesField(KEYS, new BytesRef(encode(sorted, sorted.length))));
    addIfAny(doc, GRAMS, fingerprints.sortedGrams());
    addIfAny(doc, SHINGLES, fingerprints.sortedShingles());
    long[] top = topKeys(fingerprints, pre);
    doc.add(new BinaryDocValuesField(TOP, new BytesRef(encode(top, top.length))));
    addIfAny(doc, TEL, telKeys(fingerprints));
    addIfAny(doc, NUM, numberKeys(fingerprints));
    addIfAny(doc, MATCH, matchKeys);
    if (!evidence.isEmpty()) {
      doc.add(new BinaryDocValuesField(EVIDENCE, new BytesRef(evidence.encode())));
      for (long key : evidence.columnKeys()) {
        doc.add(new StringField(KEY, keyBytes(key), Field.Store.NO));
      }
    }
    if (fingerprints.shortFields() != 0) {
      doc.add(new NumericDocValuesField(SHORT, fingerprints.shortFields()));
    }
    int[] fields = fingerprints.sortedKeyFields();
    if (fields != null && fingerprints.presentFields() != 0) {
      doc.add(new BinaryDocValuesField(FIELDS, new BytesRef(encodeFields(fields))));
      doc.add(new NumericDocValuesField(PRESENT, fingerprints.presentFields()));
    }
    NearOutcome outcome = fingerprints.outcome();
    doc.add(
        new NumericDocValuesField(
            OUTCOME, outcome.ordinal() + (fingerprints.truncated() ? TRUNCATED_FLAG : 0)));
    return doc;
  }

  private static void addIfAny(Document doc, String field, long[] keys) {
    if (keys.length > 0) {
      doc.add(new BinaryDocValuesField(field, new BytesRef(encode(keys, keys.length))));
    }
  }

  /**
   * The key stored in {@link #TOP}: the post's subject, its rank-0 term, when the post repeats it
   * (term frequency >= {@link #SUBJECT_COUNT}, as a post's product is repeated in title, product
   * and content); else none. A record whose terms all occur once (a person, an address, a citation)
   * has no subject: its rank-0 term is only the first by the tie-break (the smallest string) and
   * says nothing about what the record is. {@code pre} is unused (kept for the callers' signature).
   */
  public static long[] topKeys(Fingerprints fingerprints, int pre) {
    if (fingerprints.isEmpty() || fingerprints.topCount() < SUBJECT_COUNT) {
      return new long[0];
    }
    return new long[] {fingerprints.high(0)};
  }

  /**
   * The keys stored in {@link #TEL}: those of the {@code tel:} terms ("tel:13800138000"),
   * ascending.
   */
  public static long[] telKeys(Fingerprints fingerprints) {
    return keysOf(fingerprints, term -> term.startsWith("tel:"));
  }

  /**
   * The keys stored in {@link #NUM}: those of the number terms ("1000斤", "2.5元", "2023"),
   * ascending. Only they start with a digit, because numbers are taken out of the text before
   * smartcn segments it.
   */
  public static long[] numberKeys(Fingerprints fingerprints) {
    return keysOf(
        fingerprints, term -> !term.isEmpty() && term.charAt(0) >= '0' && term.charAt(0) <= '9');
  }

  private static long[] keysOf(
      Fingerprints fingerprints, java.util.function.Predicate<String> kind) {
    long[] ranked = fingerprints.prefixes();
    long[] keys = new long[ranked.length];
    int count = 0;
    for (int i = 0; i < ranked.length; i++) {
      if (kind.test(fingerprints.terms().get(i))) {
        keys[count++] = ranked[i];
      }
    }
    keys = java.util.Arrays.copyOf(keys, count);
    java.util.Arrays.sort(keys);
    return keys;
  }

  /** The term of one key: 8 bytes, big-endian. */
  public static BytesRef keyBytes(long key) {
    byte[] bytes = new byte[8];
    BitUtil.VH_BE_LONG.set(bytes, 0, key);
    return new BytesRef(bytes);
  }

  static byte[] encode(long[] keys, int count) {
    byte[] bytes = new byte[8 * count];
    for (int i = 0; i < count; i++) {
      BitUtil.VH_BE_LONG.set(bytes, 8 * i, keys[i]);
    }
    return bytes;
  }

  /**
   * The field masks of {@link #FIELDS}: one byte per key when every mask is below 255 or {@link
   * Fingerprints#ANY_FIELD} (stored as 255; tables of up to 8 near fields), else 4 bytes
   * big-endian.
   */
  static byte[] encodeFields(int[] fields) {
    boolean small = true;
    for (int mask : fields) {
      small &= mask == Fingerprints.ANY_FIELD || (mask >= 0 && mask < 255);
    }
    byte[] bytes = new byte[(small ? 1 : 4) * fields.length];
    for (int i = 0; i < fields.length; i++) {
      if (small) {
        bytes[i] = (byte) (fields[i] == Fingerprints.ANY_FIELD ? 255 : fields[i]);
      } else {
        BitUtil.VH_BE_INT.set(bytes, 4 * i, fields[i]);
      }
    }
    return bytes;
  }

  /**
   * Decodes {@link #encodeFields} for a post of {@code keys} keys (the width follows from the
   * length).
   */
  public static int[] decodeFields(BytesRef ref, int keys) {
    int[] fields = new int[keys];
    boolean small = ref.length == keys;
    for (int i = 0; i < keys && (small ? i : 4 * i + 3) < ref.length; i++) {
      if (small) {
        int b = ref.bytes[ref.offset + i] & 0xFF;
        fields[i] = b == 255 ? Fingerprints.ANY_FIELD : b;
      } else {
        fields[i] = (int) BitUtil.VH_BE_INT.get(ref.bytes, ref.offset + 4 * i);
      }
    }
    return fields;
  }

  /** Decodes keys written by {@link #document} from doc values bytes. */
  public static long[] decode(BytesRef ref) {
    long[] keys = new long[ref.length / 8];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = (long) BitUtil.VH_BE_LONG.get(ref.bytes, ref.offset + 8 * i);
    }
    return keys;
  }

  public static NearOutcome outcome(long stored) {
    return NearOutcome.values()[(int) (stored % TRUNCATED_FLAG)];
  }

  public static boolean truncated(long stored) {
    return stored >= TRUNCATED_FLAG;
  }
}
