package org.xiaochong.zone;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.xbill.DNS.Master;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Tokenizer;

/**
 * Reads the records of RFC 1035 master files with dnsjava, one logical entry at a time
 * ({@link ZoneLines}), so a malformed entry is reported with its file and line, counted, and
 * skipped. $ORIGIN, $TTL and $INCLUDE are handled here (they carry state from entry to entry);
 * every other entry, $GENERATE included, is parsed by its own dnsjava {@link Master}, which does
 * relative names, '@', omitted owner/TTL/class, parentheses, comments, escapes and RFC 3597 {@code
 * \#} rdata.
 *
 * <p>State as dnsjava keeps it: an omitted TTL is the $TTL, else the previous record's TTL (the
 * first SOA without one takes its minimum); an omitted owner is the previous record's. An included
 * file starts with the includer's origin (or the one the $INCLUDE names) and $TTL and no previous
 * record, and its $ORIGIN does not leak back.
 *
 * <p>$INCLUDE is refused unless an include directory is given, and then only followed to files
 * whose real path (symbolic links and ".." resolved) lies inside that directory's real path, at most
 * {@value #MAX_INCLUDE_DEPTH} deep. Not thread-safe.
 */
final class ZoneReader {

  static final int MAX_INCLUDE_DEPTH = 8;

  /** Receives the records and the skipped entries, in file order. */
  interface Listener {
    void record(Record record);

    /** A skipped entry: "file:line: why". */
    void skipped(String where, String why);
  }

  private final Path includeDir; // real path, or null: $INCLUDE refused
  private final Name initialOrigin; // may be null: relative names are errors

  /**
   * @param includeDir directory whose files $INCLUDE may read, or null to refuse every $INCLUDE
   * @param origin origin for relative names before any $ORIGIN, or null
   * @throws IOException if {@code includeDir} does not exist
   */
  ZoneReader(Path includeDir, Name origin) throws IOException {
    this.includeDir = includeDir == null ? null : includeDir.toRealPath();
    this.initialOrigin = origin;
  }

  /** Reads every record of {@code file} (and of the files it may include). */
  void read(Path file, Listener listener) throws IOException {
    read(file, initialOrigin, -1, 0, listener);
  }

  private void read(Path file, Name startOrigin, long startTtl, int depth, Listener listener)
      throws IOException {
    try (BufferedReader reader = new BufferedReader(
        new InputStreamReader(Files.newInputStream(file), StandardCharsets.ISO_8859_1), 1 << 16)) {
      new FileState(file, startOrigin, startTtl, depth, listener).readEntries(new ZoneLines(reader));
    }
  }

  /** The per-file state: origin, $TTL, previous record. */
  private final class FileState {
    final Path file;
    final int depth;
    final Listener listener;
    Name origin;
    long defaultTtl; // $TTL, -1 if none
    long lastTtl = -1;
    String lastOwner; // previous record's owner, absolute text

    FileState(Path file, Name origin, long defaultTtl, int depth, Listener listener) {
      this.file = file;
      this.origin = origin;
      this.defaultTtl = defaultTtl;
      this.depth = depth;
      this.listener = listener;
    }

    void readEntries(ZoneLines lines) throws IOException {
      for (ZoneLines.Entry entry = lines.next(); entry != null; entry = lines.next()) {
        if (entry.error() != null) {
          skip(entry.line(), entry.error());
        } else if (entry.text().charAt(0) == '$') {
          directive(entry);
        } else if (!records(entry) && entry.swallowedLine() > 0) {
          lines.resyncAfterFirstLine(entry);
        }
      }
    }

    /** Parses one entry; false if it was skipped. */
    private boolean records(ZoneLines.Entry entry) {
      String text = entry.text();
      if (entry.blankOwner()) {
        if (lastOwner == null) {
          skip(entry.line(), "no owner name (the line starts with white space and no record precedes it)");
          return false;
        }
        text = lastOwner + text;
      }
      long ttl = defaultTtl >= 0 ? defaultTtl : lastTtl;
      byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
      try (Master master = new Master(new EntryBytes(bytes), origin, ttl)) {
        for (Record record = master.nextRecord(); record != null; record = master.nextRecord()) {
          if (ttl < 0 && record instanceof SOARecord soa && soa.getTTL() == soa.getMinimum()) {
            // dnsjava gives a first SOA without a TTL its minimum and makes that the default TTL
            // (a first SOA whose explicit TTL equals its minimum does the same here: same TTLs).
            defaultTtl = soa.getTTL();
          }
          lastTtl = record.getTTL();
          lastOwner = record.getName().toString();
          listener.record(record);
        }
        return true;
      } catch (IOException | RuntimeException e) {
        // TextParseException (IOException) for bad syntax; RelativeNameException, InvalidTypeException,
        // InvalidTTLException and other IllegalArgumentExceptions for bad values.
        int swallowed = entry.swallowedLine();
        skip(entry.line(), dnsjavaMessage(e) + (swallowed < 0 ? ""
            : " (line " + swallowed + " looks like a new record: a '(' left open? reading again from line " + (entry.line() + 1) + ")"));
        return false;
      }
    }

    private void directive(ZoneLines.Entry entry) throws IOException {
      Tokenizer tokens = new Tokenizer(new ByteArrayInputStream(entry.text().getBytes(StandardCharsets.ISO_8859_1)));
      try {
        String name = tokens.getString();
        if (name.equalsIgnoreCase("$ORIGIN")) {
          origin = tokens.getName(Name.root);
          tokens.getEOL();
        } else if (name.equalsIgnoreCase("$TTL")) {
          defaultTtl = tokens.getTTL();
          tokens.getEOL();
        } else if (name.equalsIgnoreCase("$INCLUDE")) {
          String target = tokens.getString();
          Tokenizer.Token next = tokens.get();
          Name includeOrigin = origin;
          if (next.isString()) {
            includeOrigin = Name.fromString(next.value(), origin);
            tokens.getEOL();
          }
          include(entry.line(), target, includeOrigin);
        } else {
          records(entry); // $GENERATE and anything else: dnsjava's Master decides
        }
      } catch (TextParseException | RuntimeException e) {
        skip(entry.line(), dnsjavaMessage(e));
      }
    }

    private void include(int line, String target, Name includeOrigin) throws IOException {
      if (includeDir == null) {
        skip(line, "$INCLUDE " + target + " refused (pass --allow-include DIR to read included files under DIR)");
        return;
      }
      if (depth + 1 > MAX_INCLUDE_DEPTH) {
        skip(line, "$INCLUDE " + target + " refused: includes nested deeper than " + MAX_INCLUDE_DEPTH);
        return;
      }
      Path path = Path.of(target);
      if (!path.isAbsolute()) {
        Path parent = file.toAbsolutePath().getParent();
        path = parent == null ? path : parent.resolve(path);
      }
      Path real;
      try {
        real = path.toRealPath();
      } catch (NoSuchFileException e) {
        skip(line, "$INCLUDE " + target + ": no such file");
        return;
      }
      if (!real.startsWith(includeDir) || !Files.isRegularFile(real)) {
        skip(line, "$INCLUDE " + target + " refused: it resolves to " + real + ", outside --allow-include " + includeDir);
        return;
      }
      try {
        ZoneReader.this.read(real, includeOrigin, defaultTtl, depth + 1, listener);
      } catch (IOException e) {
        skip(line, "$INCLUDE " + target + ": cannot read " + real + ": " + e.getMessage());
      }
    }

    private void skip(int line, String why) {
      listener.skipped(file + ":" + line, why);
    }
  }

  /**
   * One entry's bytes for dnsjava's tokenizer, which reads a byte at a time. Being a
   * BufferedInputStream stops dnsjava from wrapping it in another one (an 8 KB buffer per entry),
   * and read() takes no lock, where BufferedInputStream.read() is synchronized: one uncontended lock
   * per byte was a visible share of the parse time (JFR on zone-bench).
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
