package org.xiaochong.zone;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Master;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

/**
 * One master-file entry parsed on its own with dnsjava, on any thread: the entry's text with its
 * owner, and the origin and TTL it starts from, give the same records wherever it is parsed. {@link
 * ZoneReader} decides which entries may be parsed apart from the records before them ({@link
 * #hasOwnTtl}) and keeps the per-file state.
 */
final class ZoneEntryParser {
  private ZoneEntryParser() {}

  /**
   * Whether a one-line entry gives its own TTL: its second field, or its third after a class,
   * starts with a digit (types and classes never do; RFC 1035 allows TTL and class in either
   * order). False when unsure (parentheses, a comment before the type): such an entry is parsed in
   * line.
   */
  static boolean hasOwnTtl(String text) {
    if (text.indexOf('(') >= 0) {
      return false;
    }
    int at = skipField(text, 0); // the owner
    int second = skipBlanks(text, at);
    if (second >= text.length() || text.charAt(second) == ';') {
      return false;
    }
    if (Character.isDigit(text.charAt(second))) {
      return true;
    }
    int secondEnd = skipField(text, second);
    if (DClass.value(text.substring(second, secondEnd)) < 0) {
      return false;
    }
    int third = skipBlanks(text, secondEnd);
    return third < text.length() && Character.isDigit(text.charAt(third));
  }

  /** The end of the field starting at {@code from} (a backslash escapes the next character). */
  private static int skipField(String text, int from) {
    int i = from;
    while (i < text.length() && text.charAt(i) != ' ' && text.charAt(i) != '\t') {
      i += text.charAt(i) == '\\' ? 2 : 1;
    }
    return Math.min(i, text.length());
  }

  private static int skipBlanks(String text, int from) {
    int i = from;
    while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
      i++;
    }
    return i;
  }

  /**
   * An entry to parse: its first line, its bytes (owner included), and the origin and TTL it starts
   * from.
   */
  record ParseJob(int line, byte[] bytes, Name origin, long ttl) {
    /**
     * The entry's records up to the first error, and that error (or null); the same on any thread.
     */
    Parsed parse() {
      List<Record> records = new ArrayList<>(1);
      try (Master master = new Master(new EntryBytes(bytes), origin, ttl)) {
        for (Record record = master.nextRecord(); record != null; record = master.nextRecord()) {
          records.add(record);
        }
        return new Parsed(line, records, null);
      } catch (IOException | RuntimeException e) {
        // TextParseException (IOException) for bad syntax; RelativeNameException,
        // InvalidTypeException,
        // InvalidTTLException and other IllegalArgumentExceptions for bad values.
        return new Parsed(line, records, dnsjavaMessage(e));
      }
    }
  }

  /**
   * A batch's entries as parsed, with what the listener's preparer made of each record, in order
   * (or null).
   */
  record ParsedBatch(List<Parsed> parsed, List<Object> prepared) {
    /** Parses {@code jobs} in order and applies {@code preparer} (may be null) to each record. */
    static ParsedBatch parse(List<ParseJob> jobs, Function<Record, Object> preparer) {
      List<Parsed> parsed = new ArrayList<>(jobs.size());
      List<Object> prepared = preparer == null ? null : new ArrayList<>(jobs.size());
      for (ParseJob job : jobs) {
        Parsed entry = job.parse();
        parsed.add(entry);
        if (preparer != null) {
          for (Record record : entry.records()) {
            prepared.add(preparer.apply(record));
          }
        }
      }
      return new ParsedBatch(parsed, prepared);
    }
  }

  /** What an entry parsed to: its records, and the error that stopped it (null: none). */
  record Parsed(int line, List<Record> records, String error) {}

  /**
   * One entry's bytes for dnsjava's tokenizer, which reads a byte at a time. Being a
   * BufferedInputStream stops dnsjava from wrapping it in another one (an 8 KB buffer per entry),
   * and read() takes no lock, where BufferedInputStream.read() is synchronized: one uncontended
   * lock per byte was a visible share of the parse time (JFR on zone-bench).
   */
  private static final class EntryBytes extends BufferedInputStream {
    private final byte[] bytes;
    private int position;

    EntryBytes(byte[] bytes) {
      super(InputStream.nullInputStream(), 1);
      this.bytes = bytes;
    }

    @Override
    public int read() {
      return position < bytes.length ? bytes[position++] & 0xff : -1;
    }

    @Override
    public int read(byte[] target, int offset, int length) {
      if (position >= bytes.length) {
        return -1;
      }
      int count = Math.min(length, bytes.length - position);
      System.arraycopy(bytes, position, target, offset, count);
      position += count;
      return count;
    }

    @Override
    public int available() {
      return bytes.length - position;
    }
  }

  /** dnsjava's message without its own "<none>:1: " position (ours is more useful). */
  static String dnsjavaMessage(Exception e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return message.replaceFirst("^<none>:\\d+: ", "").replaceAll("\\s*\\R\\s*", " ");
  }
}
