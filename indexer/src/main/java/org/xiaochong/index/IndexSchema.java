package org.xiaochong.index;

import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.search.Query;
import org.apache.lucene.util.BytesRef;

/**
 * The fields of the fingerprint index: one document per source record.
 *
 * <pre>
 * field      indexed as                         doc values   used by
 * id         LongPoint                          numeric      deletes by id (set query), reading ids
 * reg_time   LongPoint                          numeric      the window range query, keep-latest
 * md5        term (16 raw bytes)                binary       the exact pass's term query
 * </pre>
 *
 * Nothing is stored: the database holds the records, the index only what dedup needs. The id is a
 * point, not a term: a million unique id terms would double the flush cost, and deletes come in
 * batches that one {@code LongPoint.newSetQuery} serves.
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
    doc.add(new LongPoint(ID, id));
    doc.add(new NumericDocValuesField(ID, id));
    doc.add(new LongPoint(REG_TIME, regTime));
    doc.add(new NumericDocValuesField(REG_TIME, regTime));
    BytesRef key = new BytesRef(md5);
    doc.add(new StringField(MD5, key, Field.Store.NO));
    doc.add(new BinaryDocValuesField(MD5, key));
    return doc;
  }

  /** Matches the documents of these record ids. */
  public static Query idsQuery(long[] ids, int from, int to) {
    return LongPoint.newSetQuery(ID, java.util.Arrays.copyOfRange(ids, from, to));
  }
}
