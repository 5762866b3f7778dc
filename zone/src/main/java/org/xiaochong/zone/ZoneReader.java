package org.xiaochong.zone;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.xbill.DNS.Master;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

/**
 * Reads the records of RFC 1035 master files with dnsjava, one logical entry at a time ({@link
 * ZoneLines}), so a malformed entry is reported with its file and line, counted, and skipped.
 * $ORIGIN, $TTL and $INCLUDE are handled here (they carry state from entry to entry); every other
 * entry, $GENERATE included, is parsed by its own dnsjava {@link Master}, which does relative
 * names, '@', omitted owner/TTL/class, parentheses, comments, escapes and RFC 3597 {@code \#}
 * rdata.
 *
 * <p>State as dnsjava keeps it: an omitted TTL is the $TTL, else the previous record's TTL (the
 * first SOA without one takes its minimum); an omitted owner is the previous record's. An included
 * file starts with the includer's origin (or the one the $INCLUDE names) and $TTL and no previous
 * record, and its $ORIGIN does not leak back.
 *
 * <p>$INCLUDE is refused unless an include directory is given, and then only followed to files
 * whose real path (symbolic links and ".." resolved) lies inside that directory's real path, at
 * most {@value #MAX_INCLUDE_DEPTH} deep.
 *
 * <p>Parsing is most of the cost (about two thirds of `zone` on the root zone, JFR), so with more
 * than one parse thread the entries that depend on no earlier record are parsed by a pool, in
 * batches: those with an owner name, a known TTL to start from ($TTL, or an earlier record's TTL
 * already known when the entry is read), and no line swallowed by an open '('. Every other entry
 * (blank owner, first record, a suspect '(' whose failure must resynchronise the reader,
 * directives, errors) waits for the batches before it and is parsed in line. The listener is called
 * on the reading thread, in file order, with exactly what one thread would give it. Not
 * thread-safe.
 *
 * <p>The reading of one file, its state and the hand-off to the pool, is {@link ZoneFileReader};
 * the parsing of one entry is {@link ZoneEntryParser}.
 */
final class ZoneReader {

  static final int MAX_INCLUDE_DEPTH = 8;

  /** Receives the records and the skipped entries, in file order. */
  interface Listener {
    void record(Record record);

    /**
     * A record with what {@link #preparer} made of it on a parse thread (null when it was parsed on
     * the reading thread).
     */
    default void record(Record record, Object prepared) {
      record(record);
    }

    /**
     * Work on each record that can run on the parse threads before the record is delivered (a key,
     * its text), or null for none. Asked once per batch, so the function it returns may keep
     * buffers.
     */
    default Function<Record, Object> preparer() {
      return null;
    }

    /** A skipped entry: "file:line: why". */
    void skipped(String where, String why);
  }

  final Path includeDir; // real path, or null: $INCLUDE refused
  private final Name initialOrigin; // may be null: relative names are errors
  final int parseThreads;
  final LongAdder parseCpuNanos = new LongAdder();
  ExecutorService parsers; // during read() with parseThreads > 1

  /** A reader that parses on the calling thread only. */
  ZoneReader(Path includeDir, Name origin) throws IOException {
    this(includeDir, origin, 1);
  }

  /**
   * @param includeDir directory whose files $INCLUDE may read, or null to refuse every $INCLUDE
   * @param origin origin for relative names before any $ORIGIN, or null
   * @param parseThreads threads that parse entries besides the reading one (1: the reading thread
   *     parses everything)
   * @throws IOException if {@code includeDir} does not exist
   */
  ZoneReader(Path includeDir, Name origin, int parseThreads) throws IOException {
    this.includeDir = includeDir == null ? null : includeDir.toRealPath();
    this.initialOrigin = origin;
    this.parseThreads = Math.max(1, parseThreads);
  }

  /** Reads every record of {@code file} (and of the files it may include). */
  void read(Path file, Listener listener) throws IOException {
    if (parseThreads > 1) {
      parsers =
          Executors.newFixedThreadPool(
              parseThreads,
              r -> {
                Thread thread = new Thread(r, "xiaochong-zone-parse");
                thread.setDaemon(true);
                return thread;
              });
    }
    try {
      read(file, initialOrigin, -1, 0, listener);
    } finally {
      if (parsers != null) {
        parsers.shutdownNow();
        parsers = null;
      }
    }
  }

  /**
   * CPU time the parse pool's threads spent parsing, over every read so far (the reading thread's
   * own is not in it).
   */
  long parseCpuNanos() {
    return parseCpuNanos.sum();
  }

  /** Reads {@code file} with the state an includer hands it ({@code depth}: includes above it). */
  void read(Path file, Name startOrigin, long startTtl, int depth, Listener listener)
      throws IOException {
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(Files.newInputStream(file), StandardCharsets.ISO_8859_1),
            1 << 16)) {
      new ZoneFileReader(this, file, startOrigin, startTtl, depth, listener)
          .readEntries(new ZoneLines(reader));
    }
  }
}
