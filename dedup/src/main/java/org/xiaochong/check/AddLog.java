package org.xiaochong.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The write-ahead log of the records a {@link Deduplicator} adds, the way a search engine keeps a
 * translog: an add is durable once its record is in this log and the log is fsynced ({@link #sync},
 * one fsync for every add made since the last: group commit), not once the indexes commit. The
 * indexes commit in the background ({@link Deduplicator#commitIndex}): the log is then sealed into
 * a file of its own first ({@link #seal}), and the sealed files are deleted once the commit
 * covering them is made. At the next open for writing, the files left (a crash, or adds taken while
 * a run held the indexes) are replayed ({@link #read}): each record is added again, and since a
 * record never matches itself and is not indexed twice, the ones the indexes committed already are
 * skipped.
 *
 * <p>Files {@code adds-<n>.log} in the index folder (Lucene leaves files not named as its own
 * alone), one JSON object per line: {@code {"id", "time", "fields"}}. A line cut short by a crash
 * (the last, never answered) ends the reading of its file. Thread-safe: appends come one at a time
 * (under the Deduplicator's lock), {@link #sync} from any thread beside them.
 */
final class AddLog implements AutoCloseable {
  private static final String PREFIX = "adds-";
  private static final String SUFFIX = ".log";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path dir;
  private FileChannel channel;
  private Path file;
  private long number;
  private boolean empty = true;

  private AddLog(Path dir, long number) {
    this.dir = dir;
    this.number = number;
  }

  /** A log writing into {@code dir} after the files there (which it leaves to {@link #pending}). */
  static AddLog open(Path dir) {
    List<Path> files = pending(dir);
    long last = files.isEmpty() ? 0 : number(files.get(files.size() - 1));
    return new AddLog(dir, last);
  }

  /** The log files in {@code dir}, oldest first. */
  static List<Path> pending(Path dir) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(
              f -> {
                String name = f.getFileName().toString();
                return name.startsWith(PREFIX) && name.endsWith(SUFFIX) && number(f) > 0;
              })
          .sorted((a, b) -> Long.compare(number(a), number(b)))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the add log in " + dir, e);
    }
  }

  private static long number(Path file) {
    String name = file.getFileName().toString();
    try {
      return Long.parseLong(name.substring(PREFIX.length(), name.length() - SUFFIX.length()));
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      return -1;
    }
  }

  /** The records of a log file in order; a line cut short by a crash ends it. */
  static List<Deduplicator.Record> read(Path file) {
    List<Deduplicator.Record> records = new ArrayList<>();
    try (BufferedReader lines = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        JsonNode entry;
        try {
          entry = JSON.readTree(line);
        } catch (IOException torn) {
          break; // the tail of a write the crash cut: never answered
        }
        if (entry == null || !entry.has("id") || !entry.has("fields")) {
          break;
        }
        Map<String, String> fields = new java.util.HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = entry.get("fields").fields();
            it.hasNext(); ) {
          Map.Entry<String, JsonNode> field = it.next();
          fields.put(field.getKey(), field.getValue().isNull() ? null : field.getValue().asText());
        }
        records.add(
            new Deduplicator.Record(entry.get("id").asLong(), fields, entry.get("time").asLong()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the add log " + file, e);
    }
    return records;
  }

  /** Writes one record to the log (durable after the next {@link #sync}). */
  synchronized void append(Deduplicator.Record record) {
    ObjectNode entry = JSON.createObjectNode().put("id", record.id()).put("time", record.time());
    ObjectNode fields = entry.putObject("fields");
    record.fields().forEach(fields::put);
    try {
      byte[] line = (JSON.writeValueAsString(entry) + "\n").getBytes(StandardCharsets.UTF_8);
      if (channel == null) {
        number++;
        file = dir.resolve(PREFIX + number + SUFFIX);
        channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      }
      ByteBuffer buffer = ByteBuffer.wrap(line);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      empty = false;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the add log " + file, e);
    }
  }

  /** Makes every record appended so far durable (one fsync). */
  void sync() {
    FileChannel current;
    synchronized (this) {
      current = channel;
    }
    if (current == null) {
      return; // nothing appended since the last seal, which synced
    }
    try {
      current.force(false);
    } catch (ClosedChannelException sealed) {
      // seal() forced it before closing it
    } catch (IOException e) {
      throw new UncheckedIOException("cannot sync the add log " + file, e);
    }
  }

  /**
   * Syncs and closes the file being written, so that later records go to a new one; returns the
   * files written so far by this log and left by others ({@link #pending}), for deletion once a
   * commit of the indexes covers them.
   */
  synchronized List<Path> seal() {
    closeChannel();
    empty = true;
    return pending(dir);
  }

  /** Whether nothing was appended since the last {@link #seal}. */
  synchronized boolean isEmpty() {
    return empty;
  }

  /** Deletes log files a commit of the indexes covers. */
  static void delete(List<Path> files) {
    for (Path file : files) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot delete the add log " + file, e);
      }
    }
  }

  private void closeChannel() {
    if (channel == null) {
      return;
    }
    try {
      channel.force(false);
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot sync the add log " + file, e);
    } finally {
      channel = null;
    }
  }

  /** Syncs and closes the file being written; the files stay until a commit covers them. */
  @Override
  public synchronized void close() {
    closeChannel();
  }
}
