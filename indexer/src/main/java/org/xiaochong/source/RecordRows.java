package org.xiaochong.source;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.function.Consumer;
import org.xiaochong.source.ChunkedRangeReader.RowHandler;

/**
 * Reads {@link SourceRecord}s from rows whose columns are a {@link ChecksumPlan}'s select list: id,
 * time, the fingerprint columns, then the checksum unless the client computes it. Values are read
 * as the server's UTF-8 bytes when the driver decodes them from UTF-8, else as strings. Immutable.
 */
final class RecordRows {
  private final int columns;
  private final boolean crcOnClient;

  /** Rows of {@code columns} fingerprint columns, whose checksums are made as {@code plan} says. */
  RecordRows(int columns, ChecksumPlan plan) {
    this.columns = columns;
    this.crcOnClient = plan.onClient();
  }

  /**
   * The handler that reads records: as UTF-8 bytes when the driver decodes every fingerprint column
   * from UTF-8 (then the bytes it holds are that UTF-8, and {@code getString} would only decode
   * them), else as strings.
   */
  RowHandler records(ResultSet rs, Consumer<SourceRecord> consumer) throws SQLException {
    if (!columnsAreUtf8(rs, 3, columns)) {
      return row -> consumer.accept(read(row));
    }
    int crcColumn = columns + 3;
    return row -> {
      byte[][] values = new byte[columns][];
      for (int i = 0; i < values.length; i++) {
        values[i] = row.getBytes(i + 3);
      }
      long crc = crcOnClient ? RowChecksum.ofUtf8(values) : row.getLong(crcColumn);
      consumer.accept(
          SourceRecord.ofUtf8(
              row.getLong(1), RecordSource.toMillis(RecordSource.readTime(row, 2)), crc, values));
    };
  }

  /** The record of the current row, its values read as strings. */
  SourceRecord read(ResultSet rs) throws SQLException {
    long id = rs.getLong(1);
    long time = RecordSource.toMillis(RecordSource.readTime(rs, 2));
    String[] values = new String[columns];
    for (int i = 0; i < values.length; i++) {
      values[i] = rs.getString(i + 3);
    }
    long crc = crcOnClient ? RowChecksum.of(values) : rs.getLong(columns + 3);
    return new SourceRecord(id, time, crc, values);
  }

  /**
   * Whether the driver decodes columns {@code [first, first + count)} of {@code rs} from UTF-8:
   * then {@code getBytes} gives their UTF-8 (the exact key is computed from it without decoding).
   */
  static boolean columnsAreUtf8(ResultSet rs, int first, int count) throws SQLException {
    ResultSetMetaData meta = rs.getMetaData();
    if (!meta.isWrapperFor(com.mysql.cj.jdbc.result.ResultSetMetaData.class)) {
      return false;
    }
    com.mysql.cj.jdbc.result.ResultSetMetaData mysql =
        meta.unwrap(com.mysql.cj.jdbc.result.ResultSetMetaData.class);
    for (int i = 0; i < count; i++) {
      if (!isUtf8(mysql.getColumnCharacterEncoding(first + i))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether a Java encoding name (as Connector/J reports it: "UTF-8", "GBK", "Cp1252" …) is UTF-8.
   */
  private static boolean isUtf8(String encoding) {
    try {
      return encoding != null
          && java.nio.charset.Charset.forName(encoding)
              .equals(java.nio.charset.StandardCharsets.UTF_8);
    } catch (
        IllegalArgumentException
            e) { // an unknown or illegal name: leave the decoding to the driver
      return false;
    }
  }
}
