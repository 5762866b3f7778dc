package org.xiaochong.index;

import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.search.Query;
import org.apache.lucene.util.BytesRef;

/**
 * The fields of the fingerprint index: one document per source record.
 *
 * <pre>
 * field      indexed as                         doc values   used by
 * id         -                                  numeric      deletes by id (doc-values set query), reading ids
 * reg_time   -                                  numeric      the window, keep-latest
 * md5        term (16 raw bytes)                binary       the exact pass's term query
 * </pre>
 *
 * Nothing is stored: the database holds the records, the index only what dedup needs. Only the md5
 * is searched by value; id and time are doc values only. The passes load both into arrays anyway
 * (IndexSnapshot) and test the window there, and deletes come in batches of up to a million ids, each
 * one scan of the id doc values. Points on id and time (built before 2026-11-22, still readable:
 * nothing reads them) cost a fifth of the 1M-row index build (BKD trees at every flush) for
 * queries a doc-values scan answers as fast (bench/RESULTS.md). Not terms either: a million unique
 * id terms would double the flush cost.
 */
public final class IndexSchema {
  public static final String ID = "id";
  public static final String REG_TIME = "reg_time";
  public static final String MD5 = "md5";

  /** Commit user data keys. */
  public static final String USER_DATA_VERSION = "xiaochong.fingerprint-version";
  public static final String USER_DATA_FIELDS = "xiaochong.fields";

  private IndexSchema() {}

  public static Document document(long id, long regTime, byte[] md5) {
    Document doc = new Document();
    doc.add(new NumericDocValuesField(ID, id));
    doc.add(new NumericDocValuesField(REG_TIME, regTime));
    BytesRef key = new BytesRef(md5);
    doc.add(new StringField(MD5, key, Field.Store.NO));
    doc.add(new BinaryDocValuesField(MD5, key));
    return doc;
  }

  /**
   * Matches the documents of these record ids: one pass over the id doc values of every segment
   * (a hash-set probe per document), so delete in large batches.
   */
  public static Query idsQuery(long[] ids, int from, int to) {
    return NumericDocValuesField.newSlowSetQuery(ID, java.util.Arrays.copyOfRange(ids, from, to));
  }
}
