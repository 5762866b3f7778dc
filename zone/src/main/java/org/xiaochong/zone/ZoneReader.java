package org.xiaochong.zone;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.xbill.DNS.Master;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Tokenizer;

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
 * <p>Over 300 lines because the per-file state and the hand-off to the pool act on the same state
 * for each entry (which entries may go, in what order their records come back); the parsing of one
 * entry is {@link ZoneEntryParser}.
 */
final class ZoneReader {

  static final int MAX_INCLUDE_DEPTH = 8;
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /**
   * Entries per parse task: large enough that handing a batch over costs little next to parsing it.
   */
  private static final int PARSE_BATCH = 512;

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

  private final Path includeDir; // real path, or null: $INCLUDE refused
  private final Name initialOrigin; // may be null: relative names are errors
  private final int parseThreads;
  private final LongAdder parseCpuNanos = new LongAdder();
  private ExecutorService parsers; // during read() with parseThreads > 1

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

  private void read(Path file, Name startOrigin, long startTtl, int depth, Listener listener)
      throws IOException {
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(Files.newInputStream(file), StandardCharsets.ISO_8859_1),
            1 << 16)) {
      new FileState(file, startOrigin, startTtl, depth, listener)
          .readEntries(new ZoneLines(reader));
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
    Name lastOwner; // previous record's owner

    FileState(Path file, Name origin, long defaultTtl, int depth, Listener listener) {
      this.file = file;
      this.origin = origin;
      this.defaultTtl = defaultTtl;
      this.depth = depth;
      this.listener = listener;
    }

    private List<ZoneEntryParser.ParseJob> batch = new ArrayList<>();
    private final ArrayDeque<Future<ZoneEntryParser.ParsedBatch>> inFlight = new ArrayDeque<>();

    void readEntries(ZoneLines lines) throws IOException {
      for (ZoneLines.Entry entry = lines.next(); entry != null; entry = lines.next()) {
        if (entry.error() == null
            && entry.text().charAt(0) != '$'
            && parsers != null
            && independent(entry)) {
          batch.add(
              new ZoneEntryParser.ParseJob(
                  entry.line(),
                  entry.text().getBytes(StandardCharsets.ISO_8859_1),
                  origin,
                  defaultTtl >= 0 ? defaultTtl : lastTtl));
          if (batch.size() == PARSE_BATCH) {
            submit();
          }
          continue;
        }
        drain(); // what follows depends on every earlier record
        if (entry.error() != null) {
          skip(entry.line(), entry.error());
        } else if (entry.text().charAt(0) == '$') {
          directive(entry);
        } else if (!records(entry) && entry.swallowedLine() > 0) {
          lines.resyncAfterFirstLine(entry);
        }
      }
      drain();
    }

    /**
     * Whether an entry parses the same whatever the records before it hold: it names its owner, its
     * TTL does not come from the record before it ($TTL, or a TTL of its own once the first record
     * is read), and no line of it looks like a new record (then its failure moves the reader).
     */
    private boolean independent(ZoneLines.Entry entry) {
      return !entry.blankOwner()
          && entry.swallowedLine() < 0
          && (defaultTtl >= 0 || lastTtl >= 0 && ZoneEntryParser.hasOwnTtl(entry.text()));
    }

    /**
     * Hands the current batch to the pool; waits for the oldest batch when enough are in flight.
     */
    private void submit() {
      List<ZoneEntryParser.ParseJob> jobs = batch;
      batch = new ArrayList<>();
      inFlight.add(
          parsers.submit(
              () -> {
                long cpu = THREADS.getCurrentThreadCpuTime();
                ZoneEntryParser.ParsedBatch parsed =
                    ZoneEntryParser.ParsedBatch.parse(jobs, listener.preparer());
                parseCpuNanos.add(THREADS.getCurrentThreadCpuTime() - cpu);
                return parsed;
              }));
      if (inFlight.size() > 2 * parseThreads) {
        deliver(inFlight.poll());
      }
    }

    /** Delivers every batch handed over and the one being filled, in file order. */
    private void drain() {
      if (!batch.isEmpty()) {
        submit();
      }
      while (!inFlight.isEmpty()) {
        deliver(inFlight.poll());
      }
    }

    private void deliver(Future<ZoneEntryParser.ParsedBatch> future) {
      ZoneEntryParser.ParsedBatch batch;
      try {
        batch = future.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while parsing " + file, e);
      } catch (ExecutionException e) {
        throw new IllegalStateException(
            "parsing " + file + " failed: " + e.getCause(), e.getCause());
      }
      int at = 0;
      for (ZoneEntryParser.Parsed entry : batch.parsed()) {
        for (Record record : entry.records()) {
          lastTtl = record.getTTL();
          lastOwner = record.getName();
          listener.record(record, batch.prepared() == null ? null : batch.prepared().get(at++));
        }
        if (entry.error() != null) {
          skip(entry.line(), entry.error());
        }
      }
    }

    /** Parses one entry on this thread; false if it was skipped. */
    private boolean records(ZoneLines.Entry entry) {
      String text = entry.text();
      if (entry.blankOwner()) {
        if (lastOwner == null) {
          skip(
              entry.line(),
              "no owner name (the line starts with white space and no record precedes it)");
          return false;
        }
        text = lastOwner.toString() + text;
      }
      long ttl = defaultTtl >= 0 ? defaultTtl : lastTtl;
      ZoneEntryParser.Parsed parsed =
          new ZoneEntryParser.ParseJob(
                  entry.line(), text.getBytes(StandardCharsets.ISO_8859_1), origin, ttl)
              .parse();
      for (Record record : parsed.records()) {
        if (ttl < 0 && record instanceof SOARecord soa && soa.getTTL() == soa.getMinimum()) {
          // dnsjava gives a first SOA without a TTL its minimum and makes that the default TTL
          // (a first SOA whose explicit TTL equals its minimum does the same here: same TTLs).
          defaultTtl = soa.getTTL();
        }
        lastTtl = record.getTTL();
        lastOwner = record.getName();
        listener.record(record);
      }
      if (parsed.error() != null) {
        int swallowed = entry.swallowedLine();
        skip(
            entry.line(),
            parsed.error()
                + (swallowed < 0
                    ? ""
                    : " (line "
                        + swallowed
                        + " looks like a new record: a '(' left open? reading again from line "
                        + (entry.line() + 1)
                        + ")"));
        return false;
      }
      return true;
    }

    private void directive(ZoneLines.Entry entry) throws IOException {
      Tokenizer tokens =
          new Tokenizer(
              new ByteArrayInputStream(entry.text().getBytes(StandardCharsets.ISO_8859_1)));
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
        skip(entry.line(), ZoneEntryParser.dnsjavaMessage(e));
      }
    }

    private void include(int line, String target, Name includeOrigin) throws IOException {
      if (includeDir == null) {
        skip(
            line,
            "$INCLUDE "
                + target
                + " refused (pass --allow-include DIR to read included files under DIR)");
        return;
      }
      if (depth + 1 > MAX_INCLUDE_DEPTH) {
        skip(
            line,
            "$INCLUDE " + target + " refused: includes nested deeper than " + MAX_INCLUDE_DEPTH);
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
        skip(
            line,
            "$INCLUDE "
                + target
                + " refused: it resolves to "
                + real
                + ", outside --allow-include "
                + includeDir);
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
}
