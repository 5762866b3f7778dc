package org.xiaochong.index;

import java.util.List;
import org.apache.lucene.document.Document;
import org.xiaochong.fingerprint.ExactKey;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/** Index documents carrying the exact MD5 key. Not thread-safe: one per thread. */
public final class ExactDocumentMaker implements DocumentMaker {
  private final ExactKey exactKey;
  private final int[] exactColumns;
  private final String[] exactValues;

  public ExactDocumentMaker(TableSpec spec) {
    this.exactKey = new ExactKey(spec.exactFields(), spec.phoneFields());
    List<String> columns = spec.fingerprintColumns();
    this.exactColumns = spec.exactFields().stream().mapToInt(columns::indexOf).toArray();
    this.exactValues = new String[exactColumns.length];
  }

  public byte[] exactKey(SourceRecord record) {
    for (int i = 0; i < exactColumns.length; i++) {
      exactValues[i] = record.values()[exactColumns[i]];
    }
    return exactKey.compute(exactValues);
  }

  @Override
  public Document make(SourceRecord record) {
    return IndexSchema.document(record.id(), record.regTime(), exactKey(record));
  }
}
