package org.xiaochong.load;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import java.util.ArrayList;
import java.util.List;
import org.xiaochong.source.BadInputException;

/**
 * Streaming CSV (RFC 4180) and TSV reader: the first record is the header, every other record must
 * have as many fields. CSV: fields may be quoted with {@code "}, a quoted field may hold the
 * separator, line breaks and {@code ""} (one quote); CRLF, LF and CR all end a record; a UTF-8 BOM
 * is skipped. TSV: fields are separated by tabs and never quoted. Empty lines are skipped. With
 * {@code trimSpaces} the blanks around each unquoted value are dropped (Febrl's {@code ", "}
 * separator). A quote inside an unquoted field is kept as a character (lenient, as most real files
 * need). Reads one record at a time: the file is never held in memory, and a record longer than
 * {@code maxRecordBytes} (in UTF-8, a quoted field's line breaks included) is an error naming its
 * line, so neither a huge line nor a quote left open reads the rest of the file into memory. Not
 * thread-safe.
 */
public final class DelimitedReader implements RowReader {
  private final Reader in;
  private final char separator;
  private final boolean quoting;
  private final boolean trimSpaces;
  private final long maxRecordBytes;
  private final List<String> header;
  private int pushedBack = -2;
  private long line = 1;
  private long recordLine;
  private long recordBytes; // bytes of UTF-8 read since the current record started

  DelimitedReader(
      Reader in, char separator, boolean quoting, boolean trimSpaces, long maxRecordBytes)
      throws IOException {
    this.in = in;
    this.separator = separator;
    this.quoting = quoting;
    this.trimSpaces = trimSpaces;
    this.maxRecordBytes = maxRecordBytes;
    int first = read();
    if (first != '\uFEFF') {
      unread(first);
    }
    List<String> names = readRecord();
    if (names == null) {
      throw new BadInputException("the file is empty: no header row");
    }
    this.header = List.copyOf(names);
  }

  /** A CSV reader (comma, RFC 4180 quoting) with the default record limit. */
  public static DelimitedReader csv(Reader in, boolean trimSpaces) throws IOException {
    return csv(in, trimSpaces, RowReader.DEFAULT_MAX_RECORD_BYTES);
  }

  /** A CSV reader (comma, RFC 4180 quoting). */
  public static DelimitedReader csv(Reader in, boolean trimSpaces, long maxRecordBytes)
      throws IOException {
    return new DelimitedReader(in, ',', true, trimSpaces, maxRecordBytes);
  }

  /** A TSV reader (tab, no quoting) with the default record limit. */
  public static DelimitedReader tsv(Reader in) throws IOException {
    return tsv(in, RowReader.DEFAULT_MAX_RECORD_BYTES);
  }

  /** A TSV reader (tab, no quoting). */
  public static DelimitedReader tsv(Reader in, long maxRecordBytes) throws IOException {
    return new DelimitedReader(in, '\t', false, false, maxRecordBytes);
  }

  @Override
  public List<String> header() {
    return header;
  }

  @Override
  public String[] next() throws IOException {
    List<String> fields = readRecord();
    if (fields == null) {
      return null;
    }
    if (fields.size() != header.size()) {
      throw new BadInputException(
          "line " + recordLine + ": " + fields.size() + " fields, the header has " + header.size());
    }
    return fields.toArray(new String[0]);
  }

  @Override
  public long line() {
    return recordLine;
  }

  /** The next record's fields, or null at the end of the input; skips empty lines. */
  List<String> readRecord() throws IOException {
    int c;
    recordBytes = 0;
    // skip empty lines
    while (true) {
      c = read();
      if (c == -1) {
        return null;
      }
      if (c == '\n') {
        line++;
      } else if (c == '\r') {
        int d = read();
        if (d != '\n') {
          unread(d);
        }
        line++;
      } else {
        break;
      }
      recordBytes = 0; // a skipped empty line is no part of the record
    }
    recordLine = line;
    recordBytes = LineReader.utf8Length((char) c);
    List<String> fields = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean blank = true; // the field holds only whitespace so far: a quote may still open it
    boolean quoted = false;
    boolean wasQuoted = false;
    while (true) {
      if (quoted) {
        if (c == -1) {
          throw new BadInputException(
              "line " + recordLine + ": a quoted field is not closed before the end of the file");
        }
        if (c == '"') {
          int d = read();
          if (d == '"') {
            field.append('"');
          } else {
            quoted = false;
            unread(d);
          }
        } else {
          field.append((char) c);
          if (c == '\n') {
            line++;
          } else if (c == '\r') {
            int d = read();
            if (d == '\n') {
              field.append('\n');
            } else {
              unread(d);
            }
            line++;
          }
        }
      } else if (c == -1 || c == '\n' || c == '\r') {
        if (c == '\r') {
          int d = read();
          if (d != '\n') {
            unread(d);
          }
        }
        if (c != -1) {
          line++;
        }
        fields.add(finish(field, wasQuoted));
        return fields;
      } else if (c == separator) {
        fields.add(finish(field, wasQuoted));
        field.setLength(0);
        blank = true;
        wasQuoted = false;
      } else if (c == '"' && quoting && !wasQuoted && blank) {
        if (!field.isEmpty() && !trimSpaces) {
          throw new BadInputException(
              "line " + line + ": a quote after blanks at the start of a field");
        }
        field.setLength(0);
        quoted = true;
        wasQuoted = true;
      } else if (wasQuoted && !(trimSpaces && (c == ' ' || c == '\t'))) {
        throw new BadInputException("line " + line + ": text after the closing quote of a field");
      } else if (!wasQuoted) {
        field.append((char) c);
        // Kept as it goes: testing the whole field at each quote made a field of n quotes cost n^2.
        blank &= Character.isWhitespace(c);
      }
      c = read();
    }
  }

  private String finish(StringBuilder field, boolean wasQuoted) {
    String value = field.toString();
    return trimSpaces && !wasQuoted ? value.strip() : value;
  }

  private int read() throws IOException {
    int c;
    if (pushedBack != -2) {
      c = pushedBack;
      pushedBack = -2;
    } else {
      try {
        c = in.read();
      } catch (CharacterCodingException e) {
        throw new BadInputException("line " + line + ": not valid UTF-8");
      }
    }
    if (c >= 0) {
      recordBytes += LineReader.utf8Length((char) c);
      if (recordBytes > maxRecordBytes) {
        throw new BadInputException(
            "line "
                + recordLine
                + ": a record longer than "
                + maxRecordBytes
                + " bytes (--max-line-bytes); is a quote left open?");
      }
    }
    return c;
  }

  private void unread(int c) {
    pushedBack = c;
    if (c >= 0) {
      recordBytes -= LineReader.utf8Length((char) c);
    }
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
