package org.xiaochong.check;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.SegmentInfos;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.config.ConfiguredIndex;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.FingerprintMethods;
import org.xiaochong.run.IndexHandOver;
import org.xiaochong.source.BadInputException;

/**
 * The record index and the methods' checks over it, as a {@link Deduplicator} opens them together.
 *
 * @param docs live records of the record index when opened
 * @param generations the commit generations and the marks file it opened ({@link #generations}), to
 *     tell when a run committed or the marks were saved since
 */
record OpenedChecker(FingerprintIndex index, OnlineChecker checker, long docs, String generations) {
  /**
   * Opens the record index of {@code config} (for writing, or reading its last commit) and the
   * checks of {@link Deduplicator.Options#methods} over it, with the marks saved beside it (no
   * database).
   *
   * @param first whether this is the Deduplicator's first open: only then are the notes of methods
   *     with nothing built given ({@link FingerprintMethod#notBuiltNote}), not at each reopen
   * @throws BadInputException a method named in the options has nothing built yet; {@link
   *     Deduplicator.IndexBusyException} when an index's write lock is held by another process
   *     (with {@link Deduplicator.Options#writable}, one that did not hand it over within {@link
   *     IndexHandOver#WAIT})
   */
  static OpenedChecker open(
      DedupConfig config, Deduplicator.Options options, boolean forWriting, boolean first) {
    String before = generations(config.indexDir());
    FingerprintIndex opened;
    try {
      opened =
          !forWriting
              ? ConfiguredIndex.openReadOnly(config)
              : options.writable()
                  // check --add: a service holding the lock for its adds hands it over, as to a run
                  ? ConfiguredIndex.openHandedOver(config, false, options.notes())
                  : ConfiguredIndex.open(config, false);
    } catch (BadInputException e) {
      throw busy(e);
    }
    List<FingerprintMethod> methods =
        options.methods() == null ? FingerprintMethods.known() : options.methods();
    OnlineChecker opening;
    try {
      // The marks as the last run, restore or `dedup apart` saved them beside the index: no
      // database.
      ApartPairs apart = ApartPairs.load(config.indexDir().resolve(ApartPairs.FILE));
      opening =
          OnlineChecker.open(
              methods, config.methodContext(opened, options.notes()).withApart(apart), forWriting);
    } catch (RuntimeException e) {
      opened.close();
      throw e instanceof BadInputException bad ? busy(bad) : e;
    }
    for (FingerprintMethod m : methods) {
      if (opening.methods().contains(m.name())) {
        continue;
      }
      if (options.methods() != null) {
        BadInputException notBuilt =
            new BadInputException(
                "check --method "
                    + m.name()
                    + ": nothing built for "
                    + m.name()
                    + " yet (`dedup run --method "
                    + m.name()
                    + "` builds it)");
        opening.closeAfter(notBuilt);
        opened.close();
        throw notBuilt;
      }
      if (first) {
        m.notBuiltNote(config.table()).ifPresent(note -> options.notes().accept("check: " + note));
      }
    }
    long docs;
    try (DirectoryReader reader = opened.openReader()) {
      docs = reader.numDocs();
    } catch (IOException e) {
      opening.close();
      opened.close();
      throw new UncheckedIOException(e);
    }
    return new OpenedChecker(opened, opening, docs, before);
  }

  /**
   * An index's write lock taken by another process, as {@link Deduplicator.IndexBusyException};
   * other failures as they are.
   */
  private static BadInputException busy(BadInputException e) {
    return e.getCause() instanceof org.apache.lucene.store.LockObtainFailedException
        ? new Deduplicator.IndexBusyException(
            e.getMessage() + " (a run holds it: try again when it is done)", e)
        : e;
  }

  /**
   * The last commit generation of the record index and of each method's own index folder, and which
   * marks file is beside them ({@link ApartPairs#FILE}: saved by a run, {@code dedup apart} or a
   * restore, each time as a new file moved in place), so that a change of either is seen.
   */
  static String generations(Path indexDir) {
    StringBuilder all = new StringBuilder().append(generation(indexDir));
    all.append(",marks:").append(fileStamp(indexDir.resolve(ApartPairs.FILE)));
    try (Stream<Path> folders = Files.list(indexDir)) {
      folders
          .filter(Files::isDirectory)
          .sorted()
          .forEach(dir -> all.append(',').append(generation(dir)));
    } catch (IOException e) {
      // no index folder yet: the record index's generation (-1) says so
    }
    return all.toString();
  }

  /** The file's identity, size and modification time; "none" when it is missing. */
  private static String fileStamp(Path file) {
    try {
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
      return attributes.fileKey() + "/" + attributes.size() + "/" + attributes.lastModifiedTime();
    } catch (IOException e) {
      return "none";
    }
  }

  private static long generation(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return SegmentInfos.getLastCommitGeneration(
          files.map(f -> f.getFileName().toString()).toArray(String[]::new));
    } catch (IOException e) {
      return -1;
    }
  }
}
