package org.xiaochong.load;

import java.io.Closeable;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import org.xiaochong.source.BadInputException;

/**
 * Reads lines (ended by LF, CRLF or CR, as {@link java.io.BufferedReader#readLine}) of at most
 * {@code maxBytes} bytes of UTF-8 each, so one huge line cannot fill the memory: a longer line is
 * skipped to its end without being kept, and reported by a {@link BadInputException} naming its
 * line; the next call reads the line after it. So is a line that is not valid UTF-8, when the
 * reader reports it and reads on ({@link StrictUtf8Reader}). Not thread-safe.
 */
public final class LineReader implements Closeable {
  private final Reader in;
  private final long maxBytes;
  private final char[] buffer = new char[8192];
  private int position;
  private int limit;
  private long line;
  private boolean inLine; // the next char belongs to line `line`, not to the one after it
  private long
      notUtf8Line; // the line holding the last malformed bytes the reader reported; 0: none

  public LineReader(Reader in, long maxBytes) {
    this.in = in;
    this.maxBytes = maxBytes;
  }

  /**
   * The next line without its end, or null at the end of the input.
   *
   * @throws BadInputException when the line is longer than the limit (the line was skipped), or the
   *     input is not valid UTF-8 (for a reader that reports it, such as {@link StrictUtf8Reader})
   */
  public String readLine() throws IOException {
    if (position == limit && !fill()) {
      return null;
    }
    line++;
    inLine = true;
    StringBuilder text = new StringBuilder();
    long bytes = 0;
    while (position < limit || fill()) {
      char c = buffer[position++];
      if (c == '\n' || c == '\r') {
        inLine = false;
      }
      if (c == '\n') {
        break;
      }
      if (c == '\r') {
        if ((position < limit || fill()) && buffer[position] == '\n') {
          position++;
        }
        break;
      }
      bytes += utf8Length(c);
      if (bytes <= maxBytes) {
        text.append(c);
      }
    }
    inLine = false;
    if (notUtf8Line == line) {
      throw new BadInputException("line " + line + ": not valid UTF-8");
    }
    if (bytes > maxBytes) {
      throw new BadInputException(
          "line " + line + ": longer than " + maxBytes + " bytes (--max-line-bytes)");
    }
    return text.toString();
  }

  /** The number of the line last read (1-based). */
  public long line() {
    return line;
  }

  private boolean fill() throws IOException {
    int n;
    while (true) {
      try {
        n = in.read(buffer, 0, buffer.length);
        break;
      } catch (CharacterCodingException e) {
        // Remembered, and the line read to its end: readLine reports it then, and the next call
        // reads the line after it.
        notUtf8Line = inLine ? line : line + 1;
      }
    }
    position = 0;
    limit = Math.max(0, n);
    return n > 0;
  }

  /**
   * Bytes of UTF-8 for one UTF-16 char: a surrogate counts 2, so a pair counts the 4 of its code
   * point.
   */
  static int utf8Length(char c) {
    return c < 0x80 ? 1 : c < 0x800 || Character.isSurrogate(c) ? 2 : 3;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
