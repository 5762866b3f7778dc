package org.xiaochong.index;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.util.Bits;
import org.xiaochong.fingerprint.FingerprintVersion;
import org.xiaochong.source.BadInputException;

/**
 * The Lucene index of fingerprints on disk, with its writer. The commit user data records the
 * fingerprint version and the digest of the fingerprinted fields; opening an index built with other
 * ones fails with a message that says to rebuild. Thread-safe for adds and deletes (IndexWriter
 * is); one writing instance per index folder (Lucene's write lock enforces it), and any number of
 * read-only ones ({@link #openReadOnly}) beside it: they read the last commit and take no lock, so
 * a {@code check} never keeps a {@code run} from writing.
 *
 * <p>Over 300 lines because it is the one owner of an index folder's lifecycle: opening with the
 * digest check, the commit user data (versions, digest, sync numbers), adds, deletes by id,
 * commits, and the id listings the sync and the filters read; splitting them would hand the writer
 * around.
 */
public final class FingerprintIndex implements Closeable {
  private final Path path;
  private final Directory directory;
  private final IndexWriter writer;
  private final String fieldsDigest;

  /**
   * See {@link IndexSchema#USER_DATA_INDEX_ID}: made when the index is created (or first opened by
   * this version).
   */
  private final String indexId;

  /** The number of the last sync that indexed records; committed with the next commit. */
  private volatile long syncSeq;

  /**
   * The updated-column watermark of the last sync (null: none recorded); committed with the next
   * commit.
   */
  private volatile String syncStarted;

  private FingerprintIndex(
      Path path,
      Directory directory,
      IndexWriter writer,
      String fieldsDigest,
      Map<String, String> userData) {
    this.path = path;
    this.directory = directory;
    this.writer = writer;
    this.fieldsDigest = fieldsDigest;
    String id = userData.get(IndexSchema.USER_DATA_INDEX_ID);
    this.indexId = id != null ? id : java.util.UUID.randomUUID().toString();
    String seq = userData.get(IndexSchema.USER_DATA_SYNC_SEQ);
    this.syncSeq = seq == null ? 0 : Long.parseLong(seq);
    this.syncStarted = userData.get(IndexSchema.USER_DATA_SYNC_STARTED);
  }

  /**
   * Opens (creating it if needed) the index at {@code path}.
   *
   * @param fieldsDigest a digest of what is fingerprinted (table, fields); a change needs a rebuild
   * @param rebuild start from an empty index whatever is there
   */
  public static FingerprintIndex open(Path path, String fieldsDigest, boolean rebuild) {
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
      if (exists && !rebuild) {
        checkCompatible(path, directory, fieldsDigest);
      }
      IndexWriterConfig config = new IndexWriterConfig(new KeywordAnalyzer());
      config.setOpenMode(
          rebuild
              ? IndexWriterConfig.OpenMode.CREATE
              : IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
      // For documents added one by one (the near index, `check --add`): 128 MB holds a million
      // documents, so a build makes one segment per indexing thread and the passes look each key up
      // in
      // few segments; 256 MB is no faster (bench/RESULTS.md). The exact index's syncs write whole
      // segments of up to 2^20 rows per thread (ExactSegmentIndexer) and do not use this buffer.
      config.setRAMBufferSizeMB(128);
      config.setCommitOnClose(false);
      // An applied run deletes its duplicates from the index (a quarter of the documents in the 1M
      // benchmark) and commits; with Lucene's default (20 % deleted documents allowed) that commit
      // starts
      // merges that rewrite whole segments to reclaim them. A run ends right after, and close()
      // rolls
      // back, aborting them: they cost a core for the last second of the run and were thrown away.
      // Allowing up to 50 % (the most Lucene accepts) leaves deleted documents to the merges the
      // index
      // makes as it grows; they cost a live-docs check in the passes and disk space until then.
      // On 1M rows the apply stage is ~0.15 s faster for it (bench/RESULTS.md).
      TieredMergePolicy mergePolicy = new TieredMergePolicy();
      mergePolicy.setDeletesPctAllowed(50);
      config.setMergePolicy(mergePolicy);
      IndexWriter writer = new IndexWriter(directory, config);
      Map<String, String> userData = Map.of();
      if (exists && !rebuild) {
        userData = org.apache.lucene.index.SegmentInfos.readLatestCommit(directory).getUserData();
      }
      FingerprintIndex index =
          new FingerprintIndex(path, directory, writer, fieldsDigest, userData);
      if (!exists || rebuild || !userData.containsKey(IndexSchema.USER_DATA_INDEX_ID)) {
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
   * Opens the committed index at {@code path} for reading only: no write lock is taken, so a writer
   * (a run) may work beside it; {@link #openReader} sees the last commit. Adds, deletes and commits
   * throw. Where no index was ever committed, this opens one for writing instead (creating it), as
   * {@link #open} does.
   */
  public static FingerprintIndex openReadOnly(Path path, String fieldsDigest) {
    if (!exists(path)) {
      return open(path, fieldsDigest, false);
    }
    Directory directory = null;
    try {
      directory = FSDirectory.open(path);
      checkCompatible(path, directory, fieldsDigest);
      return new FingerprintIndex(
          path,
          directory,
          null,
          fieldsDigest,
          org.apache.lucene.index.SegmentInfos.readLatestCommit(directory).getUserData());
    } catch (IOException e) {
      closeQuietly(directory);
      throw new UncheckedIOException("cannot open the index in " + path, e);
    } catch (RuntimeException e) {
      closeQuietly(directory);
      throw e;
    }
  }

  /** Whether this instance may add, delete and commit ({@link #openReadOnly} may not). */
  boolean writable() {
    return writer != null;
  }

  /** Whether an index was ever committed at {@code path} (creates nothing). */
  public static boolean exists(Path path) {
    if (!Files.isDirectory(path)) {
      return false;
    }
    try (Directory directory = FSDirectory.open(path)) {
      return DirectoryReader.indexExists(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the index in " + path, e);
    }
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
                + " was built for another table, field list or keep policy (fields.*, source.*, keep.policy): "
                + "rebuild it with `dedup index --rebuild` (`dedup run --rebuild-index` rebuilds the methods' own"
                + " indexes too) or point index.dir elsewhere");
      }
    }
  }

  public Path path() {
    return path;
  }

  public IndexWriter writer() {
    return requireWriter();
  }

  private IndexWriter requireWriter() {
    if (writer == null) {
      throw new IllegalStateException("index " + path + " was opened read-only");
    }
    return writer;
  }

  /**
   * Adds one record without a row checksum ({@code check --add}): the next sync finds its checksum
   * unknown and re-reads the row from the table (or drops it when the table has no such row).
   */
  public void add(long id, long regTime, byte[] md5) {
    add(id, regTime, null, md5);
  }

  /**
   * As {@link #add(long, long, byte[])} with the record's keep rank ({@link
   * IndexSchema#storedRank}; null under latest).
   */
  public void add(long id, long regTime, long[] rank, byte[] md5) {
    addDocument(
        IndexSchema.document(
            id, regTime, rank, md5, org.xiaochong.source.SourceRecord.UNKNOWN_CRC, syncSeq));
  }

  /** The index's id (a UUID kept in the commit user data; a rebuilt index gets a new one). */
  public String indexId() {
    return indexId;
  }

  /** The number of the last sync that indexed records (0 when none has). */
  public long syncSeq() {
    return syncSeq;
  }

  /**
   * Starts a sync that indexes records: returns its number, the next one (committed with the next
   * commit).
   */
  long nextSyncSeq() {
    return ++syncSeq;
  }

  /** The updated-column watermark recorded when the last committed sync started, or null. */
  String syncStarted() {
    return syncStarted;
  }

  /**
   * Records the updated-column watermark at the start of this sync (committed with the next
   * commit).
   */
  void setSyncStarted(String watermark) {
    this.syncStarted = watermark;
  }

  public void addDocument(Document doc) {
    try {
      requireWriter().addDocument(doc);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Adds the documents of {@code segment} as a new segment (uncommitted), written by the codec as a
   * merge would write them; several threads may call it at once.
   */
  void addSegment(org.apache.lucene.index.LeafReader segment) {
    try {
      requireWriter().addIndexes(org.apache.lucene.index.SlowCodecReaderWrapper.wrap(segment));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Record ids per delete query: each is one scan of the id doc values, with a hash set of its ids
   * (~16 MB).
   */
  private static final int DELETE_BATCH = 1 << 20;

  /** Deletes the documents of the record ids {@code ids[from, to)} (not yet committed). */
  public void deleteIds(long[] ids, int from, int to) {
    try {
      for (int start = from; start < to; start += DELETE_BATCH) {
        requireWriter()
            .deleteDocuments(IndexSchema.idsQuery(ids, start, Math.min(to, start + DELETE_BATCH)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Writes the largest in-memory segment to disk on the calling thread (several threads may call it
   * at once, each flushing another); returns whether there was one. {@link #commit} flushes the
   * rest.
   */
  boolean flushNextBuffer() {
    try {
      return requireWriter().flushNextBuffer();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Commits pending changes, with the version and fields digest in the user data. */
  public void commit() {
    IndexWriter writer = requireWriter();
    Map<String, String> userData = new java.util.HashMap<>();
    userData.put(IndexSchema.USER_DATA_VERSION, FingerprintVersion.CURRENT.name());
    userData.put(IndexSchema.USER_DATA_FIELDS, fieldsDigest);
    userData.put(IndexSchema.USER_DATA_INDEX_ID, indexId);
    userData.put(IndexSchema.USER_DATA_SYNC_SEQ, Long.toString(syncSeq));
    if (syncStarted != null) {
      userData.put(IndexSchema.USER_DATA_SYNC_STARTED, syncStarted);
    }
    writer.setLiveCommitData(userData.entrySet());
    try {
      writer.commit();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The generation of the last commit: it names the prefilter snapshot that matches the index. */
  public long commitGeneration() {
    try {
      return org.apache.lucene.index.SegmentInfos.readLatestCommit(directory).getGeneration();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A near-real-time reader that sees uncommitted changes too (read-only: the last commit). The
   * caller closes it.
   */
  public DirectoryReader openReader() {
    try {
      return writer == null ? DirectoryReader.open(directory) : DirectoryReader.open(writer);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The ids of the live documents whose sync number ({@link IndexSchema#SYNC_SEQ}) is above {@code
   * syncSeq}, sorted: the records indexed (added or changed) after that sync. Documents of an index
   * built before sync numbers have none and count as older than any.
   */
  public static long[] liveIdsIndexedAfter(DirectoryReader reader, long syncSeq) {
    LongList ids = new LongList();
    try {
      for (LeafReaderContext leaf : reader.leaves()) {
        NumericDocValues seqs = leaf.reader().getNumericDocValues(IndexSchema.SYNC_SEQ);
        NumericDocValues idValues = leaf.reader().getNumericDocValues(IndexSchema.ID);
        Bits live = leaf.reader().getLiveDocs();
        if (seqs == null || idValues == null) {
          continue;
        }
        for (int doc = seqs.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = seqs.nextDoc()) {
          if (seqs.longValue() > syncSeq
              && (live == null || live.get(doc))
              && idValues.advanceExact(doc)) {
            ids.add(idValues.longValue());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long[] sorted = ids.toArray();
    Arrays.sort(sorted);
    return sorted;
  }

  /** The ids of all live documents, sorted. O(live docs) memory: 8 bytes per record. */
  public static long[] liveIdsSorted(DirectoryReader reader) {
    long[] ids = new long[reader.numDocs()];
    int n = 0;
    try {
      for (LeafReaderContext leaf : reader.leaves()) {
        NumericDocValues values = leaf.reader().getNumericDocValues(IndexSchema.ID);
        if (values == null) {
          continue;
        }
        Bits live = leaf.reader().getLiveDocs();
        for (int doc = values.nextDoc();
            doc != DocIdSetIterator.NO_MORE_DOCS;
            doc = values.nextDoc()) {
          if (live == null || live.get(doc)) {
            ids[n++] = values.longValue();
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long[] result = n == ids.length ? ids : Arrays.copyOf(ids, n);
    Arrays.sort(result);
    return result;
  }

  /** Closes without committing: uncommitted changes are dropped. */
  @Override
  public void close() {
    try {
      if (writer != null) {
        writer.rollback();
      }
    } catch (IOException | RuntimeException e) {
      // rollback also closes; nothing more to do
    }
    closeQuietly(directory);
  }

  private static void closeQuietly(Directory directory) {
    if (directory != null) {
      try {
        directory.close();
      } catch (IOException ignored) {
        // best effort
      }
    }
  }
}
