package org.xiaochong.index;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.Query;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.source.SourceRecord;

/**
 * The fields of the fingerprint index: one document per source record.
 *
 * <pre>
 * field      indexed as                         doc values   used by
 * id         -                                  numeric      deletes by id (doc-values set query), reading ids
 * reg_time   -                                  numeric      the window, keep-latest
 * md5        term (16 raw bytes)                binary       the exact pass's term query
 * row_crc    -                                  numeric      the change checks of the sync and the apply (RowChecksum)
 * sync_seq   -                                  numeric      the run's window: records indexed since a run
 * keep_rank  -                                  numeric      the keep policy's rank (KeepPolicy), one field per
 *                                                            column: keep_rank, keep_rank.1, …; absent under
 *                                                            keep.policy=latest, whose rank is reg_time
 * </pre>
 *
 * {@code row_crc} is the checksum of the fingerprint columns ({@code RowChecksum}); with {@code
 * reg_time} it tells the sync and the apply that a row was edited or re-dated since it was indexed
 * (then the document is replaced). {@code sync_seq} is the number of the sync that (re)indexed the
 * record (one per sync, kept in the commit user data): a nightly run examines the records with a
 * larger number than the last applied run reached. Documents of indexes built before these fields
 * lack them: the sync reads a missing checksum as unknown and re-indexes such a record once.
 *
 * <p>Nothing is stored: the database holds the records, the index only what dedup needs. Only the
 * md5 is searched by value; id and time are doc values only. The passes load both into arrays
 * anyway (IndexSnapshot) and test the window there, and deletes come in batches of up to a million
 * ids, each one scan of the id doc values. Points on id and time (built before 2026-11-22, still
 * readable: nothing reads them) cost a fifth of the 1M-row index build (BKD trees at every flush)
 * for queries a doc-values scan answers as fast (bench/RESULTS.md). Not terms either: a million
 * unique id terms would double the flush cost.
 */
public final class IndexSchema {
  public static final String ID = "id";
  public static final String REG_TIME = "reg_time";
  public static final String MD5 = "md5";
  public static final String ROW_CRC = "row_crc";
  static final String SYNC_SEQ = "sync_seq";

  /** The first column of the keep policy's rank; the others are {@link #rankField}. */
  public static final String KEEP_RANK = "keep_rank";

  /** Commit user data keys. */
  static final String USER_DATA_VERSION = "xiaochong.fingerprint-version";

  static final String USER_DATA_FIELDS = "xiaochong.fields";

  /**
   * A UUID made when the index is created: a run's watermark only holds for the index it was taken
   * on.
   */
  static final String USER_DATA_INDEX_ID = "xiaochong.index-id";

  /** The number of the last sync that indexed records (0: none yet). */
  static final String USER_DATA_SYNC_SEQ = "xiaochong.sync-seq";

  /**
   * The server's clock when the last sync started (for source.updated-column); absent until a sync
   * records it.
   */
  static final String USER_DATA_SYNC_STARTED = "xiaochong.sync-started";

  private IndexSchema() {}

  /** The id of a document given by its index-wide number (0 when it has none). */
  public static long id(List<LeafReaderContext> leaves, int doc) throws IOException {
    return numeric(leaves, doc, ID, 0);
  }

  /**
   * The time of a document given by its index-wide number ({@link SourceRecord#NULL_TIME} when it
   * has none).
   */
  public static long time(List<LeafReaderContext> leaves, int doc) throws IOException {
    return numeric(leaves, doc, REG_TIME, SourceRecord.NULL_TIME);
  }

  /** The doc-values field of the rank's {@code column}-th long ({@link KeepPolicy#rank}). */
  public static String rankField(int column) {
    return column == 0 ? KEEP_RANK : KEEP_RANK + "." + column;
  }

  /**
   * The rank an index document keeps for {@code record} ({@link KeepPolicy#rank}), or null under
   * {@code latest}, whose rank is the time the document holds anyway.
   *
   * @param columns the columns the record was read with ({@link
   *     org.xiaochong.source.TableSpec#fingerprintColumns})
   */
  public static long[] storedRank(KeepPolicy policy, SourceRecord record, List<String> columns) {
    return policy.isLatest() ? null : policy.rank(record, columns);
  }

  /** Adds the rank's fields to a document (none when {@code rank} is null: {@code latest}). */
  public static void addRank(Document doc, long[] rank) {
    if (rank != null) {
      for (int i = 0; i < rank.length; i++) {
        doc.add(new NumericDocValuesField(rankField(i), rank[i]));
      }
    }
  }

  /**
   * The rank of a document given by its index-wide number under {@code policy}: its time under
   * {@code latest}, else the {@code keep_rank} fields (a missing one ranks as NULL).
   */
  public static long[] rank(List<LeafReaderContext> leaves, int doc, KeepPolicy policy)
      throws IOException {
    if (policy.isLatest()) {
      return new long[] {time(leaves, doc)};
    }
    long[] rank = new long[policy.width()];
    for (int i = 0; i < rank.length; i++) {
      rank[i] = numeric(leaves, doc, rankField(i), Long.MIN_VALUE);
    }
    return rank;
  }

  private static long numeric(List<LeafReaderContext> leaves, int doc, String field, long missing)
      throws IOException {
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
    NumericDocValues values = leaf.reader().getNumericDocValues(field);
    return values != null && values.advanceExact(doc - leaf.docBase) ? values.longValue() : missing;
  }

  /**
   * @param rowCrc the server's checksum of the row ({@code SourceRecord#rowCrc}; UNKNOWN_CRC when
   *     not known)
   * @param syncSeq the number of the sync that indexes the record
   */
  static Document document(long id, long regTime, byte[] md5, long rowCrc, long syncSeq) {
    return document(id, regTime, null, md5, rowCrc, syncSeq);
  }

  /**
   * @param rank the record's keep rank ({@link #storedRank}; null under {@code latest})
   */
  static Document document(
      long id, long regTime, long[] rank, byte[] md5, long rowCrc, long syncSeq) {
    Document doc = new Document();
    addRank(doc, rank);
    doc.add(new NumericDocValuesField(ID, id));
    doc.add(new NumericDocValuesField(REG_TIME, regTime));
    BytesRef key = new BytesRef(md5);
    doc.add(new StringField(MD5, key, Field.Store.NO));
    doc.add(new BinaryDocValuesField(MD5, key));
    doc.add(new NumericDocValuesField(ROW_CRC, rowCrc));
    doc.add(new NumericDocValuesField(SYNC_SEQ, syncSeq));
    return doc;
  }

  /**
   * Matches the documents of these record ids: one pass over the id doc values of every segment (a
   * hash-set probe per document), so delete in large batches.
   */
  static Query idsQuery(long[] ids, int from, int to) {
    return NumericDocValuesField.newSlowSetQuery(ID, java.util.Arrays.copyOfRange(ids, from, to));
  }
}
