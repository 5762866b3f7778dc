package org.xiaochong.source;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import java.util.zip.CRC32;

/**
 * A row's checksum over its fingerprint columns: how the index sync and the apply tell that a row
 * changed since it was indexed. It is a CRC32 of the values joined with 0x1F (NULLs skipped)
 * followed by a 0x1F and one '0'/'1' ISNULL flag per column, so that NULL and '' (and which column
 * is NULL) differ. The time column is not in it: both compare the time itself.
 *
 * <p>The same checksum is computed two ways. The server computes it ({@link #sqlExpression}) where
 * only the id and the time travel, in the sync's id stream and the apply's row locks. The client
 * computes it ({@link #ofUtf8}) from the values it reads anyway when indexing rows: a second pass
 * of the server over every column cost 15-35 % of a first build (bench/RESULTS.md). The two agree
 * when every fingerprint column is stored in UTF-8 (or ASCII), whose stored bytes are the UTF-8 the
 * client has; for other charsets every read selects the server's expression ({@link
 * #clientMayCompute}). A disagreement would cost time, never a wrong decision: rows whose checksums
 * differ are re-read and decided again.
 */
public final class RowChecksum {
  private static final byte SEPARATOR = 0x1F;

  private RowChecksum() {}

  /**
   * The checksum as a SQL expression over {@code columns} of the table alias {@code alias} (null:
   * no alias).
   *
   * @param castToBinary cast each value to BINARY (its bytes as stored): needed when the columns do
   *     not share one charset and collation (CONCAT_WS would fail with "illegal mix of
   *     collations"), and costly (on 1M sample rows the server took about twice as long as
   *     without). For columns of one charset the bytes hashed are the same either way.
   */
  static String sqlExpression(List<String> columns, boolean castToBinary, String alias) {
    String prefix = alias == null ? "" : alias + ".";
    String values =
        columns.stream()
            .map(
                c ->
                    castToBinary
                        ? "CAST(" + prefix + TableSpec.quote(c) + " AS BINARY)"
                        : prefix + TableSpec.quote(c))
            .collect(Collectors.joining(", "));
    String nulls =
        columns.stream()
            .map(c -> "ISNULL(" + prefix + TableSpec.quote(c) + ")")
            .collect(Collectors.joining(", "));
    return "CRC32(CONCAT_WS(0x1F, " + values + ", CONCAT(" + nulls + ")))";
  }

  /**
   * Whether the client's checksum of columns stored in {@code charset} (an information_schema
   * character_set_name, shared by all of them) equals the server's: their stored bytes are the
   * UTF-8 encoding of the text.
   */
  static boolean clientMayCompute(String charset) {
    return charset != null
        && switch (charset.toLowerCase(java.util.Locale.ROOT)) {
          case "utf8mb4", "utf8mb3", "utf8", "ascii" -> true;
          default -> false;
        };
  }

  /**
   * The checksum of values given as their UTF-8 bytes (NULLs are null), as {@link #sqlExpression}
   * computes it.
   */
  public static long ofUtf8(byte[][] values) {
    CRC32 crc = new CRC32();
    byte[] nulls = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        nulls[i] = '1';
      } else {
        crc.update(values[i]);
        crc.update(SEPARATOR);
        nulls[i] = '0';
      }
    }
    crc.update(nulls);
    return crc.getValue();
  }

  /** As {@link #ofUtf8}, for values given as strings. */
  public static long of(String[] values) {
    byte[][] utf8 = new byte[values.length][];
    for (int i = 0; i < values.length; i++) {
      utf8[i] = values[i] == null ? null : values[i].getBytes(StandardCharsets.UTF_8);
    }
    return ofUtf8(utf8);
  }
}
