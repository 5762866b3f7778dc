package org.xiaochong.prefilter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Consumer;
import org.apache.lucene.index.DirectoryReader;
import org.xiaochong.bloom.CountingBloomFilter;
import org.xiaochong.bloom.FilterShape;
import org.xiaochong.bloom.PrefilterSnapshot;

/**
 * Where a key filter is saved and when a saved one may be trusted. A filter is saved beside the
 * index as {@code prefilter/<kind>-<generation>.cbf} (bytes: {@link PrefilterSnapshot}, a versioned
 * header and a CRC32C), tagged with the commit generation of the index it matches, so that a run
 * loads the file of the current generation instead of reading every key out of the index. A file
 * that is missing, of another generation, of another shape, fuller than the counters per key allow
 * or corrupt is refused with one line saying why, and the caller rebuilds the filter from the
 * index. Saving deletes the kind's older files: only the generation in use is worth keeping.
 */
public final class FilterFile {
  /** The folder of the snapshots, under the (exact) index folder. */
  public static final String DIR = "prefilter";

  private static final String SUFFIX = ".cbf";

  private FilterFile() {}

  /** The snapshot file of {@code kind} ("exact", "near") for an index generation. */
  static Path file(Path dir, String kind, long generation) {
    return dir.resolve(kind + "-" + generation + SUFFIX);
  }

  /**
   * The filter saved for {@code generation} when it fits {@code reader}, else null after telling
   * {@code notes} why it is rebuilt (nothing is said for an empty index: it has no keys to
   * rebuild).
   *
   * @param keyPerRecord whether the filter holds one key per live record, so that its count can be
   *     checked against the index; otherwise the generation tag and the checksum vouch for the
   *     count
   */
  static CountingBloomFilter load(
      String kind,
      Path dir,
      long generation,
      DirectoryReader reader,
      int countersPerKey,
      int hashes,
      boolean keyPerRecord,
      Consumer<String> notes) {
    Path file = file(dir, kind, generation);
    String reason;
    if (Files.exists(file)) {
      try {
        CountingBloomFilter loaded = PrefilterSnapshot.read(file).filter();
        FilterShape shape = loaded.shape();
        long expected = keyPerRecord ? reader.numDocs() : loaded.netInsertions();
        if (shape.hashes() == hashes
            && shape.counters() >= (long) countersPerKey * expected
            && loaded.netInsertions() == expected
            && loaded.underflows() == 0) {
          return loaded;
        }
        reason =
            "its shape or count does not fit the index ("
                + shape
                + ", "
                + loaded.netInsertions()
                + " keys for "
                + reader.numDocs()
                + " records)";
      } catch (NoSuchFileException e) {
        reason = "no snapshot for this index version";
      } catch (IOException e) {
        reason = e.getMessage();
      }
    } else {
      reason = "no snapshot for this index version";
    }
    if (reader.numDocs() > 0) {
      notes.accept(
          "prefilter: "
              + kind.toLowerCase(Locale.ROOT)
              + " keys rebuilt from the index ("
              + reason
              + ")");
    }
    return null;
  }

  /**
   * Saves {@code filter} for {@code generation} and deletes the snapshots of older generations of
   * its kind.
   */
  static void save(Path dir, String kind, long generation, CountingBloomFilter filter) {
    try {
      Files.createDirectories(dir);
      try (DirectoryStream<Path> old = Files.newDirectoryStream(dir, kind + "-*" + SUFFIX)) {
        for (Path p : old) {
          Files.deleteIfExists(p);
        }
      }
      PrefilterSnapshot.write(file(dir, kind, generation), filter);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot save the prefilter in " + dir, e);
    }
  }
}
