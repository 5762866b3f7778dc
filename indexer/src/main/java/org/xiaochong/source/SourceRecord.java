package org.xiaochong.source;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * One row of the source table as the pipeline sees it: its id, its time, and the values of {@link
 * TableSpec#fingerprintColumns()} in that order (NULLs are null).
 *
 * <p>The values come as strings, or as the UTF-8 bytes the database sent ({@link #ofUtf8}): the
 * exact key is computed from the bytes without decoding them ({@link
 * org.xiaochong.fingerprint.ExactKey#computeUtf8}), and {@link #values()} decodes them only when a
 * caller asks (the near fingerprints need strings). Not thread-safe: a record belongs to the thread
 * that reads it.
 */
public final class SourceRecord {
  /** The time of a row whose time column is NULL: older than any real time. */
  public static final long NULL_TIME = Long.MIN_VALUE;

  /**
   * The row checksum of a record whose checksum the server did not compute (made by hand, `check
   * --add`): never equal to a checksum the server computes (CRC32 is in [0, 2^32)), so the next
   * index sync sees such a record as changed and re-reads it from the table.
   */
  public static final long UNKNOWN_CRC = -1;

  private final long id;
  private final long regTime;
  private final long rowCrc;
  private final byte[][] utf8;
  private String[] values;

  /**
   * @param id the row id
   * @param regTime the row's time in epoch milliseconds (UTC reading of the DATETIME), or {@link
   *     #NULL_TIME} when NULL: a NULL time counts as the oldest
   * @param values the values of {@link TableSpec#fingerprintColumns()}, in that order; NULLs are
   *     null
   */
  public SourceRecord(long id, long regTime, String[] values) {
    this(id, regTime, UNKNOWN_CRC, null, values);
  }

  /**
   * @param rowCrc the checksum of the row's fingerprint columns ({@link RowChecksum})
   */
  public SourceRecord(long id, long regTime, long rowCrc, String[] values) {
    this(id, regTime, rowCrc, null, values);
  }

  private SourceRecord(long id, long regTime, long rowCrc, byte[][] utf8, String[] values) {
    this.id = id;
    this.regTime = regTime;
    this.rowCrc = rowCrc;
    this.utf8 = utf8;
    this.values = values;
  }

  /** A record whose values are the UTF-8 bytes of the strings (NULLs are null). */
  public static SourceRecord ofUtf8(long id, long regTime, byte[][] utf8) {
    return new SourceRecord(id, regTime, UNKNOWN_CRC, utf8, null);
  }

  /**
   * A record of named values (a JSON record, a row read by name): the value of each of {@code
   * columns}, in their order; a column missing from {@code fields} is NULL.
   */
  public static SourceRecord ofFields(
      long id, long regTime, List<String> columns, Map<String, String> fields) {
    String[] values = new String[columns.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = fields.get(columns.get(i));
    }
    return new SourceRecord(id, regTime, values);
  }

  /** As {@link #ofUtf8(long, long, byte[][])}, with the row checksum. */
  public static SourceRecord ofUtf8(long id, long regTime, long rowCrc, byte[][] utf8) {
    return new SourceRecord(id, regTime, rowCrc, utf8, null);
  }

  public long id() {
    return id;
  }

  public long regTime() {
    return regTime;
  }

  /**
   * The checksum of the fingerprint columns ({@link RowChecksum}), or {@link #UNKNOWN_CRC}: how the
   * index sync tells an edited row.
   */
  public long rowCrc() {
    return rowCrc;
  }

  /** The values as strings (decoded on the first call when the record was read as UTF-8). */
  public String[] values() {
    if (values == null) {
      String[] decoded = new String[utf8.length];
      for (int i = 0; i < utf8.length; i++) {
        decoded[i] = utf8[i] == null ? null : new String(utf8[i], StandardCharsets.UTF_8);
      }
      values = decoded;
    }
    return values;
  }

  /**
   * The values as the UTF-8 bytes they were read as, or null when the record was made of strings.
   */
  public byte[][] utf8OrNull() {
    return utf8;
  }

  @Override
  public String toString() {
    return "SourceRecord[id=" + id + ", regTime=" + regTime + "]";
  }
}
