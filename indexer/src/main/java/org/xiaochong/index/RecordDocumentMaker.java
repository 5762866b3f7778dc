package org.xiaochong.index;

import java.util.List;
import org.apache.lucene.document.Document;
import org.xiaochong.fingerprint.ExactKey;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * The record index's documents ({@link IndexSchema}): a row's id, time, keep rank, checksum and
 * exact key (the MD5 of its normalized {@code fields.exact}). The exact key is the record's, not
 * one method's: the exact pass groups by it, the apply re-checks every method's removals by it
 * (rows that are still exact copies are duplicates under any rule), and {@code check} and the
 * prefilter read it. Not thread-safe: one per thread.
 */
public final class RecordDocumentMaker implements DocumentMaker {
  private final ExactKey exactKey;
  private final int[] exactColumns;
  private final String[] exactValues;
  private final byte[][] exactUtf8;
  private final long syncSeq;
  private final org.xiaochong.policy.KeepPolicy keepPolicy;
  private final List<String> columns;

  /** A maker for keys only ({@link #exactKey}); its documents carry sync number 0. */
  public RecordDocumentMaker(TableSpec spec) {
    this(spec, 0);
  }

  /**
   * @param syncSeq the sync number its documents carry ({@link IndexSchema#SYNC_SEQ})
   */
  public RecordDocumentMaker(TableSpec spec, long syncSeq) {
    this.syncSeq = syncSeq;
    this.exactKey = new ExactKey(spec.exactFields(), spec.phoneFields());
    List<String> columns = spec.fingerprintColumns();
    this.columns = columns;
    this.keepPolicy = spec.keepPolicy();
    this.exactColumns = spec.exactFields().stream().mapToInt(columns::indexOf).toArray();
    this.exactValues = new String[exactColumns.length];
    this.exactUtf8 = new byte[exactColumns.length][];
  }

  public byte[] exactKey(SourceRecord record) {
    byte[][] utf8 = record.utf8OrNull();
    if (utf8 != null) {
      for (int i = 0; i < exactColumns.length; i++) {
        exactUtf8[i] = utf8[exactColumns[i]];
      }
      return exactKey.computeUtf8(exactUtf8);
    }
    for (int i = 0; i < exactColumns.length; i++) {
      exactValues[i] = record.values()[exactColumns[i]];
    }
    return exactKey.compute(exactValues);
  }

  @Override
  public Document make(SourceRecord record) {
    return IndexSchema.document(
        record.id(),
        record.regTime(),
        storedRank(record),
        exactKey(record),
        record.rowCrc(),
        syncSeq);
  }

  /**
   * The rank the record's document keeps ({@link IndexSchema#storedRank}; null under
   * keep.policy=latest).
   */
  public long[] storedRank(SourceRecord record) {
    return IndexSchema.storedRank(keepPolicy, record, columns);
  }
}
