package org.xiaochong.prefilter;

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
import java.util.Optional;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * Saves and loads a {@link CountingBloomFilter}, and with it an {@link InMemoryFingerprintStore},
 * as one file. A file that is corrupt, truncated, of another version or of an unexpected shape
 * throws {@link PrefilterFormatException}, whose one-line message names the header fields read.
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
 * <p>Over 300 lines because it is one file format: the writer and the reader of each field, with the
 * checks that name a bad header, sit together so the two cannot drift apart.
 */
public final class PrefilterSnapshot {

  static final int MAGIC = 0x58435046; // "XCPF"
  static final int FORMAT_VERSION = 1;
  private static final int BUFFER_BYTES = 1 << 16;
  private static final long NO_STORE = -1;
  private static final int HEADER_BYTES = 48;
  private static final int ENTRY_BYTES = 32;

  private final CountingBloomFilter filter;
  private final InMemoryFingerprintStore store;

  private PrefilterSnapshot(CountingBloomFilter filter, InMemoryFingerprintStore store) {
    this.filter = filter;
    this.store = store;
  }

  /** The loaded filter. */
  public CountingBloomFilter filter() {
    return filter;
  }

  /** The loaded store, if the file holds one. */
  Optional<InMemoryFingerprintStore> store() {
    return Optional.ofNullable(store);
  }

  /**
   * The loaded filter and store as an {@link ImpCbFilter}.
   *
   * @throws IllegalStateException if the file was written without a store
   */
  ImpCbFilter toImpCbFilter() {
    if (store == null) {
      throw new IllegalStateException("the snapshot holds no fingerprint store");
    }
    return new ImpCbFilter(filter, store);
  }

  /**
   * The loaded filter in front of a store kept elsewhere (e.g. a database). The caller vouches that
   * the store matches the filter; a mismatch can cause false negatives.
   */
  ImpCbFilter toImpCbFilter(FingerprintStore externalStore) {
    return new ImpCbFilter(filter, externalStore);
  }

  /** Writes the filter alone. */
  public static void write(Path file, CountingBloomFilter filter) throws IOException {
    write(file, filter, null);
  }

  /** Writes the filter, and its store if it is an {@link InMemoryFingerprintStore}. */
  static void write(Path file, ImpCbFilter impCbFilter) throws IOException {
    InMemoryFingerprintStore store =
        impCbFilter.store() instanceof InMemoryFingerprintStore inMemory ? inMemory : null;
    write(file, impCbFilter.filter(), store);
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
      InMemoryFingerprintStore store = null;
      if (header.storeEntries != NO_STORE) {
        store = new InMemoryFingerprintStore();
        int[] positions = new int[shape.hashes()];
        for (long e = 0; e < header.storeEntries; e++) {
          long high = in.readLong();
          long low = in.readLong();
          long refCount = in.readLong();
          long keptId = in.readLong();
          filter.positions(high, low, positions);
          try {
            store.put(
                new FingerprintEntry(new Fingerprint(high, low), refCount, keptId, positions));
          } catch (IllegalArgumentException | IllegalStateException bad) {
            throw new PrefilterFormatException(
                file, "bad store entry " + e + ": " + bad.getMessage(), header.describe(), bad);
          }
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
      return new PrefilterSnapshot(filter, store);
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

  private static void write(Path file, CountingBloomFilter filter, InMemoryFingerprintStore store)
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
          IOException[] failure = new IOException[1];
          store.forEach(
              entry -> {
                if (failure[0] != null) {
                  return;
                }
                try {
                  out.writeLong(entry.fingerprint().high());
                  out.writeLong(entry.fingerprint().low());
                  out.writeLong(entry.refCount());
                  out.writeLong(entry.keptId());
                } catch (IOException e) {
                  failure[0] = e;
                }
              });
          if (failure[0] != null) {
            throw failure[0];
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
