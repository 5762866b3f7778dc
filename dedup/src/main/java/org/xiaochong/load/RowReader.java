package org.xiaochong.load;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;

/** A streaming reader of rows of named values (CSV, TSV or JSON lines). Not thread-safe. */
public interface RowReader extends Closeable {
  /** The default limit of one record's size, in bytes of UTF-8 (--max-line-bytes): 16 MiB. */
  long DEFAULT_MAX_RECORD_BYTES = 16L << 20;

  /** The column names of the file, as written in it. */
  List<String> header();

  /**
   * The next row, its values in {@link #header()} order (null = no value), or null at the end.
   *
   * @throws org.xiaochong.source.BadInputException on a malformed row, naming its line
   */
  String[] next() throws IOException;

  /** The line (1-based) where the row last returned by {@link #next()} starts. */
  long line();
}
