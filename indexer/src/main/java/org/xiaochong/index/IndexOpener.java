package org.xiaochong.index;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.IndexFormatTooOldException;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.Lock;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.util.Version;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xiaochong.fingerprint.FingerprintVersion;
import org.xiaochong.source.BadInputException;

/**
 * Opens the index folder of a {@link FingerprintIndex}: creates it, checks that an existing index
 * was built by this fingerprint version for these fields (else says to rebuild), sets up the writer
 * and reads the commit user data. An index of an older Lucene is dropped with one line and built
 * again from the table by the sync that follows. Stateless.
 */
final class IndexOpener {
  private static final Logger LOG = LoggerFactory.getLogger(IndexOpener.class);

  private IndexOpener() {}

  /** See {@link FingerprintIndex#open}. */
  static FingerprintIndex open(Path path, String fieldsDigest, boolean rebuild) {
    try {
      Files.createDirectories(path);
    } catch (IOException e) {
      throw new BadInputException("index.dir " + path + " cannot be created: " + e, e);
    }
    if (!Files.isWritable(path)) {
      throw new BadInputException("index.dir " + path + " is not writable");
    }
    Directory directory = null;
    try {
      directory = FSDirectory.open(path);
      boolean exists = DirectoryReader.indexExists(directory);
      if (exists && olderLucene(directory)) {
        LOG.warn(
            "index {} was written by an older Lucene (xiaochong before its move to Lucene {}):"
                + " rebuilding it from the table, once",
            path,
            Version.LATEST.major);
        dropLuceneFiles(directory);
        exists = false;
      }
      if (exists && !rebuild) {
        checkCompatible(path, directory, fieldsDigest);
      }
      IndexWriter writer = new IndexWriter(directory, writerConfig(rebuild));
      Map<String, String> userData = Map.of();
      if (exists && !rebuild) {
        userData = SegmentInfos.readLatestCommit(directory).getUserData();
      }
      FingerprintIndex index =
          new FingerprintIndex(path, directory, writer, fieldsDigest, userData);
      if (exists && rebuild) {
        // Readers keep the existing commit until the rebuilt one lands: nothing published early.
        index.markRebuilding();
      } else if (!exists || !userData.containsKey(IndexSchema.USER_DATA_INDEX_ID)) {
        // Record version, fields and the index's id from the start (an index made by an earlier
        // version gets its id now, so that a run's watermark names an id the index keeps).
        index.commit();
      }
      return index;
    } catch (LockObtainFailedException e) {
      closeQuietly(directory);
      throw new BadInputException("index.dir " + path + " is in use by another dedup process", e);
    } catch (IOException e) {
      closeQuietly(directory);
      throw new UncheckedIOException("cannot open the index in " + path, e);
    }
  }

  /**
   * Whether the index was written by a Lucene of an earlier major version, whose codecs this one
   * does not carry (Lucene reads the previous major's indexes only with its backward-codecs, which
   * a derived index does not need: it is rebuilt from the table instead).
   */
  private static boolean olderLucene(Directory directory) throws IOException {
    try {
      return SegmentInfos.readLatestCommit(directory).getIndexCreatedVersionMajor()
          < Version.LATEST.major;
    } catch (IndexFormatTooOldException e) {
      return true;
    } catch (IllegalArgumentException e) {
      // A segment names a codec this Lucene does not have: the previous major's.
      return e.getMessage() != null && e.getMessage().contains("Codec");
    }
  }

  /**
   * Deletes the files of the Lucene index in {@code directory} (segments and their parts), under
   * its write lock, leaving the folder's other files and the methods' own index folders.
   *
   * @throws LockObtainFailedException when another process has the index open
   */
  private static void dropLuceneFiles(Directory directory) throws IOException {
    try (Lock lock = directory.obtainLock(IndexWriter.WRITE_LOCK_NAME)) {
      for (String file : directory.listAll()) {
        if (file.startsWith(IndexFileNames.SEGMENTS) || file.startsWith("_")) {
          directory.deleteFile(file);
        }
      }
    }
  }

  /** See {@link FingerprintIndex#openReadOnly}. */
  static FingerprintIndex openReadOnly(Path path, String fieldsDigest) {
    if (!exists(path)) {
      return open(path, fieldsDigest, false);
    }
    Directory directory = null;
    try {
      directory = FSDirectory.open(path);
      if (olderLucene(directory)) {
        throw new BadInputException(
            "index "
                + path
                + " was written by an older Lucene (xiaochong before its move to Lucene "
                + Version.LATEST.major
                + "): run `dedup index` once to rebuild it");
      }
      checkCompatible(path, directory, fieldsDigest);
      return new FingerprintIndex(
          path,
          directory,
          null,
          fieldsDigest,
          SegmentInfos.readLatestCommit(directory).getUserData());
    } catch (IOException e) {
      closeQuietly(directory);
      throw new UncheckedIOException("cannot open the index in " + path, e);
    } catch (RuntimeException e) {
      closeQuietly(directory);
      throw e;
    }
  }

  /** See {@link FingerprintIndex#exists}. */
  static boolean exists(Path path) {
    if (!Files.isDirectory(path)) {
      return false;
    }
    try (Directory directory = FSDirectory.open(path)) {
      return DirectoryReader.indexExists(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the index in " + path, e);
    }
  }

  private static IndexWriterConfig writerConfig(boolean rebuild) {
    IndexWriterConfig config = new IndexWriterConfig(new KeywordAnalyzer());
    config.setOpenMode(
        rebuild ? IndexWriterConfig.OpenMode.CREATE : IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
    // For documents added one by one (the near index, `check --add`): 128 MB holds a million
    // documents, so a build makes one segment per indexing thread and the passes look each key up
    // in few segments; 256 MB is no faster (bench/RESULTS.md). The exact index's syncs write whole
    // segments of up to 2^20 rows per thread (RecordSegmentIndexer) and do not use this buffer.
    config.setRAMBufferSizeMB(128);
    config.setCommitOnClose(false);
    // An applied run deletes its duplicates from the index (a quarter of the documents in the 1M
    // benchmark) and commits; with Lucene's default (20 % deleted documents allowed) that commit
    // starts merges that rewrite whole segments to reclaim them. A run ends right after, and
    // close() rolls back, aborting them: they cost a core for the last second of the run and were
    // thrown away. Allowing up to 50 % (the most Lucene accepts) leaves deleted documents to the
    // merges the index makes as it grows; they cost a live-docs check in the passes and disk space
    // until then. On 1M rows the apply stage is ~0.15 s faster for it (bench/RESULTS.md).
    TieredMergePolicy mergePolicy = new TieredMergePolicy();
    mergePolicy.setDeletesPctAllowed(50);
    config.setMergePolicy(mergePolicy);
    return config;
  }

  private static void checkCompatible(Path path, Directory directory, String fieldsDigest)
      throws IOException {
    try (DirectoryReader reader = DirectoryReader.open(directory)) {
      Map<String, String> userData = reader.getIndexCommit().getUserData();
      String version = userData.get(IndexSchema.USER_DATA_VERSION);
      if (!FingerprintVersion.CURRENT.name().equals(version)) {
        throw new BadInputException(
            "index.dir "
                + path
                + " holds fingerprints of version "
                + version
                + ", this build makes "
                + FingerprintVersion.CURRENT
                + ": rebuild it with `dedup index --rebuild`");
      }
      String fields = userData.get(IndexSchema.USER_DATA_FIELDS);
      if (!fieldsDigest.equals(fields)) {
        throw new BadInputException(
            "index.dir "
                + path
                + " was built for another table, field list or keep policy (fields.*, source.*,"
                + " keep.policy) or by an earlier dedup with another index layout: "
                + "rebuild it with `dedup index --rebuild` (`dedup run --rebuild-index` rebuilds the methods' own"
                + " indexes too) or point index.dir elsewhere");
      }
    }
  }

  static void closeQuietly(Directory directory) {
    if (directory != null) {
      try {
        directory.close();
      } catch (IOException ignored) {
        // best effort
      }
    }
  }
}
