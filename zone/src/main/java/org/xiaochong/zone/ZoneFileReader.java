package org.xiaochong.zone;

import java.io.ByteArrayInputStream;
import java.io.IOException;
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
import java.util.concurrent.Future;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Tokenizer;

/**
 * The reading of one master file by a {@link ZoneReader}: the per-file state (origin, $TTL,
 * previous record), the directives, and the hand-off of independent entries to the reader's parse
 * pool in batches, delivered back in file order. Not thread-safe: one instance per file read. The
 * state and the hand-off stay in one class because they act on the same state for each entry (which
 * entries may go, in what order their records come back); the parsing of one entry is {@link
 * ZoneEntryParser}.
 */
final class ZoneFileReader {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /**
   * Entries per parse task: large enough that handing a batch over costs little next to parsing it.
   */
  private static final int PARSE_BATCH = 512;

  private final ZoneReader reader;
  private final Path file;
  private final int depth;
  private final ZoneReader.Listener listener;
  private Name origin;
  private long defaultTtl; // $TTL, -1 if none
  private long lastTtl = -1;
  private Name lastOwner; // previous record's owner

  ZoneFileReader(
      ZoneReader reader,
      Path file,
      Name origin,
      long defaultTtl,
      int depth,
      ZoneReader.Listener listener) {
    this.reader = reader;
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
          && reader.parsers != null
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
   * TTL does not come from the record before it ($TTL, or a TTL of its own once the first record is
   * read), and no line of it looks like a new record (then its failure moves the reader).
   */
  private boolean independent(ZoneLines.Entry entry) {
    return !entry.blankOwner()
        && entry.swallowedLine() < 0
        && (defaultTtl >= 0 || lastTtl >= 0 && ZoneEntryParser.hasOwnTtl(entry.text()));
  }

  /** Hands the current batch to the pool; waits for the oldest batch when enough are in flight. */
  private void submit() {
    List<ZoneEntryParser.ParseJob> jobs = batch;
    batch = new ArrayList<>();
    inFlight.add(
        reader.parsers.submit(
            () -> {
              long cpu = THREADS.getCurrentThreadCpuTime();
              ZoneEntryParser.ParsedBatch parsed =
                  ZoneEntryParser.ParsedBatch.parse(jobs, listener.preparer());
              reader.parseCpuNanos.add(THREADS.getCurrentThreadCpuTime() - cpu);
              return parsed;
            }));
    if (inFlight.size() > 2 * reader.parseThreads) {
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
      throw new IllegalStateException("parsing " + file + " failed: " + e.getCause(), e.getCause());
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
        new Tokenizer(new ByteArrayInputStream(entry.text().getBytes(StandardCharsets.ISO_8859_1)));
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
    if (reader.includeDir == null) {
      skip(
          line,
          "$INCLUDE "
              + target
              + " refused (pass --allow-include DIR to read included files under DIR)");
      return;
    }
    if (depth + 1 > ZoneReader.MAX_INCLUDE_DEPTH) {
      skip(
          line,
          "$INCLUDE "
              + target
              + " refused: includes nested deeper than "
              + ZoneReader.MAX_INCLUDE_DEPTH);
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
    if (!real.startsWith(reader.includeDir) || !Files.isRegularFile(real)) {
      skip(
          line,
          "$INCLUDE "
              + target
              + " refused: it resolves to "
              + real
              + ", outside --allow-include "
              + reader.includeDir);
      return;
    }
    try {
      reader.read(real, includeOrigin, defaultTtl, depth + 1, listener);
    } catch (IOException e) {
      skip(line, "$INCLUDE " + target + ": cannot read " + real + ": " + e.getMessage());
    }
  }

  private void skip(int line, String why) {
    listener.skipped(file + ":" + line, why);
  }
}
