package org.xiaochong.index;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.store.Directory;
import org.xiaochong.fingerprint.FingerprintVersion;

/**
 * The Lucene index of fingerprints on disk, with its writer. The commit user data records the
 * fingerprint version and the digest of the fingerprinted fields; opening an index built with other
 * ones fails with a message that says to rebuild. Thread-safe for adds and deletes (IndexWriter
 * is); one writing instance per index folder (Lucene's write lock enforces it), and any number of
 * read-only ones ({@link #openReadOnly}) beside it: they read the last commit and take no lock, so
 * a {@code check} never keeps a {@code run} from writing.
 *
 * <p>It is the one owner of an index folder's lifecycle, so that the writer is not handed around:
 * opening with the digest check ({@link IndexOpener}), the commit user data (versions, digest, sync
 * numbers), adds, deletes by id, commits, and the id listings the sync and the filters read ({@link
 * LiveIds}).
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

  /**
   * Whether this writer replaces an existing index ({@link #open} with {@code rebuild}) and has not
   * committed yet: until its first commit, readers of the folder read the index it replaces.
   */
  private volatile boolean rebuilding;

  /** The number of the last sync that indexed records; committed with the next commit. */
  private volatile long syncSeq;

  /**
   * The updated-column watermark of the last sync (null: none recorded); committed with the next
   * commit.
   */
  private volatile String syncStarted;

  FingerprintIndex(
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
    return IndexOpener.open(path, fieldsDigest, rebuild);
  }

  /**
   * Opens the committed index at {@code path} for reading only: no write lock is taken, so a writer
   * (a run) may work beside it; {@link #openReader} sees the last commit. Adds, deletes and commits
   * throw. Where no index was ever committed, this opens one for writing instead (creating it), as
   * {@link #open} does.
   */
  public static FingerprintIndex openReadOnly(Path path, String fieldsDigest) {
    return IndexOpener.openReadOnly(path, fieldsDigest);
  }

  /** Whether this instance may add, delete and commit ({@link #openReadOnly} may not). */
  boolean writable() {
    return writer != null;
  }

  /** Whether an index was ever committed at {@code path} (creates nothing). */
  public static boolean exists(Path path) {
    return IndexOpener.exists(path);
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

  void markRebuilding() {
    rebuilding = true;
  }

  /**
   * Whether this index was opened to rebuild an existing one and has not committed since: readers
   * (a serving {@code check}) still read the index it replaces, so that a rebuild never shows an
   * empty or half-built index; its first {@link #commit} publishes the rebuilt one. Closing it
   * before leaves the index it replaces as it was.
   */
  public boolean rebuilding() {
    return rebuilding;
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
    rebuilding = false;
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
    return LiveIds.indexedAfter(reader, syncSeq);
  }

  /** The ids of all live documents, sorted. O(live docs) memory: 8 bytes per record. */
  public static long[] liveIdsSorted(DirectoryReader reader) {
    return LiveIds.sorted(reader);
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
    IndexOpener.closeQuietly(directory);
  }
}
