package org.xiaochong.bloom;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * Saves and loads a {@link CountingBloomFilter}, and with it, where the caller keeps one, the keys
 * it holds with their reference counts and kept ids ({@link StoredKey}: the fingerprint store of
 * the bench module's IMP-CBFilter; the product's filters are saved alone), as one file. A file that
 * is corrupt, truncated, of another version or of an unexpected shape throws {@link
 * PrefilterFormatException}, whose one-line message names the header fields read.
 *
 * <p>Format version 1, all big-endian:
 *
 * <pre>
 * int   magic 0x58435046 ("XCPF")
 * int   format version (1)
 * long  m, counters
 * int   k, hashes
 * int   n, bits per counter
 * long  count: net insertions (puts - removes)
 * long  underflows
 * long  store entries, or -1 when the file holds no store
 * long  words[ceil(m*n/64)]                 the packed counters, as in memory
 * entries x (long high, long low, long refCount, long keptId)   positions are recomputed
 * int   CRC32C of every byte before it
 * </pre>
 *
 * Writes go to a temporary file in the same folder that is then moved over the target, so a crash
 * leaves the old file or the new one, never half of one. Stateless; thread-safe.
 *
 * <p>Over 300 lines because it is one file format: the writer and the reader of each field, with
 * the checks that name a bad header, sit together so the two cannot drift apart.
 */
public final class PrefilterSnapshot {

  static final int MAGIC = 0x58435046; // "XCPF"
  static final int FORMAT_VERSION = 1;
  private static final int BUFFER_BYTES = 1 << 16;
  private static final long NO_STORE = -1;
  private static final int HEADER_BYTES = 48;
  private static final int ENTRY_BYTES = 32;

  /** A key stored beside the filter: its two halves, its reference count (>= 1) and kept id. */
  public record StoredKey(long high, long low, long refCount, long keptId) {}

  private final CountingBloomFilter filter;
  private final List<StoredKey> storedKeys;
  private final Header header;

  private PrefilterSnapshot(CountingBloomFilter filter, List<StoredKey> storedKeys, Header header) {
    this.filter = filter;
    this.storedKeys = storedKeys;
    this.header = header;
  }

  /** The loaded filter. */
  public CountingBloomFilter filter() {
    return filter;
  }

  /** The stored keys, in file order, if the file holds a store. */
  public Optional<List<StoredKey>> storedKeys() {
    return Optional.ofNullable(storedKeys);
  }

  /** The header fields read, for the message of a caller that refuses what the file holds. */
  public String describeHeader() {
    return header.describe();
  }

  /** Writes the filter alone. */
  public static void write(Path file, CountingBloomFilter filter) throws IOException {
    write(file, filter, null);
  }

  /** Reads a file written by {@code write}. */
  public static PrefilterSnapshot read(Path file) throws IOException {
    return read(file, null);
  }

  /**
   * Reads a file and checks that its shape is {@code expected}; a file of another shape is stale.
   *
   * @param expected the shape the caller's configuration asks for, or null to accept any
   */
  public static PrefilterSnapshot read(Path file, FilterShape expected) throws IOException {
    Header header = null;
    int bytesRead = 0;
    CRC32C crc = new CRC32C();
    try (InputStream raw = Files.newInputStream(file);
        DataInputStream in =
            new DataInputStream(
                new CheckedInputStream(new BufferedInputStream(raw, BUFFER_BYTES), crc))) {
      int magic = in.readInt();
      bytesRead = 4;
      if (magic != MAGIC) {
        throw new PrefilterFormatException(
            file,
            String.format("not a prefilter file (magic 0x%08x, expected 0x%08x)", magic, MAGIC),
            "",
            null);
      }
      int version = in.readInt();
      bytesRead = 8;
      if (version != FORMAT_VERSION) {
        throw new PrefilterFormatException(
            file,
            "unsupported format version " + version + " (this build reads " + FORMAT_VERSION + ")",
            "",
            null);
      }
      header =
          new Header(
              version,
              in.readLong(),
              in.readInt(),
              in.readInt(),
              in.readLong(),
              in.readLong(),
              in.readLong());
      FilterShape shape;
      try {
        shape = new FilterShape(header.m, header.k, header.n);
      } catch (IllegalArgumentException e) {
        throw new PrefilterFormatException(
            file, "invalid shape: " + e.getMessage(), header.describe(), e);
      }
      if (expected != null && !expected.equals(shape)) {
        throw new PrefilterFormatException(
            file,
            "stale: expected m="
                + expected.counters()
                + ", k="
                + expected.hashes()
                + ", n="
                + expected.counterBits(),
            header.describe(),
            null);
      }
      if (header.storeEntries < NO_STORE) {
        throw new PrefilterFormatException(file, "negative store size", header.describe(), null);
      }
      long fileBytes = Files.size(file);
      long impliedBytes =
          HEADER_BYTES
              + shape.words() * Long.BYTES
              + Math.max(0, header.storeEntries) * ENTRY_BYTES
              + Integer.BYTES;
      if (fileBytes != impliedBytes) {
        String problem = fileBytes < impliedBytes ? "truncated" : "trailing bytes";
        throw new PrefilterFormatException(
            file,
            problem + ": file has " + fileBytes + " bytes, header implies " + impliedBytes,
            header.describe(),
            null);
      }
      long[] words = new long[Math.toIntExact(shape.words())];
      for (int i = 0; i < words.length; i++) {
        words[i] = in.readLong();
      }
      CountingBloomFilter filter = new CountingBloomFilter(shape, words);
      filter.restoreCounts(header.count, header.underflows);
      List<StoredKey> storedKeys = null;
      if (header.storeEntries != NO_STORE) {
        storedKeys = new ArrayList<>(Math.toIntExact(header.storeEntries));
        for (long e = 0; e < header.storeEntries; e++) {
          StoredKey key = new StoredKey(in.readLong(), in.readLong(), in.readLong(), in.readLong());
          if (key.refCount() < 1) {
            throw new PrefilterFormatException(
                file,
                "bad store entry " + e + ": refCount (" + key.refCount() + ") must be >= 1",
                header.describe(),
                null);
          }
          storedKeys.add(key);
        }
      }
      long computed = crc.getValue();
      int stored = in.readInt(); // read after taking the value: the checksum excludes itself
      if ((int) computed != stored) {
        throw new PrefilterFormatException(
            file,
            String.format(
                "checksum mismatch (stored 0x%08x, computed 0x%08x)", stored, (int) computed),
            header.describe(),
            null);
      }
      if (in.read() != -1) {
        throw new PrefilterFormatException(
            file, "trailing bytes after the checksum", header.describe(), null);
      }
      return new PrefilterSnapshot(filter, storedKeys, header);
    } catch (EOFException e) {
      String where =
          header == null ? "truncated header after " + bytesRead + " bytes" : "truncated";
      throw new PrefilterFormatException(file, where, header == null ? "" : header.describe(), e);
    } catch (OutOfMemoryError e) {
      throw new PrefilterFormatException(
          file,
          "header asks for more memory than available",
          header == null ? "" : header.describe(),
          null);
    }
  }

  /** Writes the filter and, unless {@code store} is null, the keys stored beside it. */
  public static void write(Path file, CountingBloomFilter filter, Collection<StoredKey> store)
      throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
    try {
      CRC32C crc = new CRC32C();
      try (OutputStream raw = Files.newOutputStream(tmp);
          BufferedOutputStream buffered = new BufferedOutputStream(raw, BUFFER_BYTES);
          DataOutputStream out = new DataOutputStream(new CheckedOutputStream(buffered, crc))) {
        FilterShape shape = filter.shape();
        out.writeInt(MAGIC);
        out.writeInt(FORMAT_VERSION);
        out.writeLong(shape.counters());
        out.writeInt(shape.hashes());
        out.writeInt(shape.counterBits());
        out.writeLong(filter.netInsertions());
        out.writeLong(filter.underflows());
        out.writeLong(store == null ? NO_STORE : store.size());
        for (long word : filter.words()) {
          out.writeLong(word);
        }
        if (store != null) {
          for (StoredKey key : store) {
            out.writeLong(key.high());
            out.writeLong(key.low());
            out.writeLong(key.refCount());
            out.writeLong(key.keptId());
          }
        }
        out.flush();
        int checksum = (int) crc.getValue();
        buffered.write(
            new byte[] {
              (byte) (checksum >>> 24),
              (byte) (checksum >>> 16),
              (byte) (checksum >>> 8),
              (byte) checksum
            });
      }
      try {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** The fixed header fields, for messages. */
  private record Header(
      int version, long m, int k, int n, long count, long underflows, long storeEntries) {
    String describe() {
      return "header version="
          + version
          + ", m="
          + m
          + ", k="
          + k
          + ", n="
          + n
          + ", count="
          + count
          + ", store entries="
          + (storeEntries == NO_STORE ? "none" : Long.toString(storeEntries));
    }
  }
}
