package org.xiaochong.prefilter;

import org.apache.lucene.util.BitUtil;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Consumer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.fingerprint.Fingerprints;
import org.xiaochong.index.ExactSegmentIndexer;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IdSet;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.index.LongList;
import org.xiaochong.index.NearSchema;
import org.xiaochong.index.TermHolders;

/**
 * The IMP-CBFilter of seed 000 in front of a Lucene index: a counting Bloom filter of the index's
 * keys, with the index as its store. Two kinds ({@link Kind}):
 *
 * <ul>
 *   <li>{@link Kind#EXACT}: every exact key (md5 term) once per record holding it, a multiset. A pass
 *       asks it before each term lookup; since the record asking is itself in the index, an estimated
 *       count below 2 proves the key has no twin (a counting filter never under-counts), and the
 *       lookup is skipped. {@code check} asks it for a record not in the index: a zero counter proves
 *       the key absent.
 *   <li>{@link Kind#NEAR}: every near key (near_key term) held by a live record, once (a set: seed
 *       000's "只记录一次", the reference counts are the index's postings). {@code check} asks it
 *       before each candidate key's term lookup: a zero counter proves no record holds the key. One
 *       entry per distinct key instead of one per (record, key) keeps it small (a post has 15-40
 *       keys, most of them shared) and its counters far from saturation.
 * </ul>
 *
 * <p>Persistence: the filter is saved beside the index as {@code prefilter/<kind>-<generation>.cbf}
 * ({@link PrefilterSnapshot}), tagged with the commit generation of the index it matches. A run loads
 * the file of the current generation; a missing, stale (other generation or shape) or corrupt file is
 * reported in one line and the filter is rebuilt from the index (EXACT: the md5 doc values of the live
 * records; NEAR: each segment's term dictionary, the keys then sorted and made unique).
 * Changes of the index are followed with {@link #follow} (keys of the records that left are taken
 * out, keys of those that came in put in); a saturated counter stays put (never a false negative, only
 * a possible extra lookup) and is reset by the next rebuild. Not thread-safe: one instance per run.
 */
public final class IndexKeyFilter implements GroupPrefilter {
  /** The folder of the snapshots, under the (exact) index folder. */
  public static final String DIR = "prefilter";
  private static final String SUFFIX = ".cbf";

  /** What a filter holds. */
  public enum Kind {
    /** Exact keys of the fingerprint index, once per record. */
    EXACT("exact-", IndexSchema.MD5, IndexSchema.MD5, CountingBloomFilter.KEY_BYTES, true),
    /** Near keys of the near index, once per distinct key held by a live record. */
    NEAR("near-", NearSchema.KEY, NearSchema.KEYS, Long.BYTES, false);

    private final String prefix;
    private final String termField;
    private final String valuesField;
    private final int keyBytes;
    private final boolean perRecord;

    Kind(String prefix, String termField, String valuesField, int keyBytes, boolean perRecord) {
      this.prefix = prefix;
      this.termField = termField;
      this.valuesField = valuesField;
      this.keyBytes = keyBytes;
      this.perRecord = perRecord;
    }

    /** The snapshot file for an index generation. */
    public Path file(Path dir, long generation) {
      return dir.resolve(prefix + generation + SUFFIX);
    }
  }

  private final Kind kind;
  private final int countersPerKey;
  private CountingBloomFilter filter;
  private long lookups;
  private long skipped;

  private IndexKeyFilter(Kind kind, CountingBloomFilter filter, int countersPerKey) {
    this.kind = kind;
    this.filter = filter;
    this.countersPerKey = countersPerKey;
  }

  /** {@link #openOrRebuild(Kind, Path, long, DirectoryReader, int, int, Consumer)} for {@link Kind#EXACT}. */
  public static IndexKeyFilter openOrRebuild(Path dir, long generation, DirectoryReader reader, int countersPerKey,
      int hashes, Consumer<String> notes) {
    return openOrRebuild(Kind.EXACT, dir, generation, reader, countersPerKey, hashes, notes);
  }

  /**
   * Loads the filter saved for {@code generation} or rebuilds it from {@code reader}.
   *
   * @param notes receives one line when the filter had to be rebuilt, saying why
   */
  public static IndexKeyFilter openOrRebuild(Kind kind, Path dir, long generation, DirectoryReader reader,
      int countersPerKey, int hashes, Consumer<String> notes) {
    Path file = kind.file(dir, generation);
    String reason;
    if (Files.exists(file)) {
      try {
        CountingBloomFilter loaded = PrefilterSnapshot.read(file).filter();
        FilterShape shape = loaded.shape();
        // EXACT: one key per live record. NEAR: the distinct live keys are only known by a walk of the
        // terms (a rebuild); the generation tag and the checksum vouch for the file, and it must not be
        // fuller than the counters per key allow.
        long expected = kind.perRecord ? reader.numDocs() : loaded.netInsertions();
        if (shape.hashes() == hashes && shape.counters() >= (long) countersPerKey * expected
            && loaded.netInsertions() == expected && loaded.underflows() == 0) {
          return new IndexKeyFilter(kind, loaded, countersPerKey);
        }
        reason = "its shape or count does not fit the index (" + shape + ", " + loaded.netInsertions()
            + " keys for " + reader.numDocs() + " records)";
      } catch (NoSuchFileException e) {
        reason = "no snapshot for this index version";
      } catch (IOException e) {
        reason = e.getMessage();
      }
    } else {
      reason = "no snapshot for this index version";
    }
    if (reader.numDocs() > 0) { // an empty index has no keys: nothing was rebuilt, nothing to say
      notes.accept("prefilter: " + kind.name().toLowerCase(java.util.Locale.ROOT) + " keys rebuilt from the index ("
          + reason + ")");
    }
    return rebuild(kind, reader, countersPerKey, hashes);
  }

  /** A new filter of every live key of the index, with room for 25 % more. */
  public static IndexKeyFilter rebuild(Kind kind, DirectoryReader reader, int countersPerKey, int hashes) {
    return rebuild(kind, reader, countersPerKey, keys -> shape(keys, countersPerKey, hashes));
  }

  /** A filter of this kind and shape rebuilt from {@code reader}: what this one must equal when in step. */
  public IndexKeyFilter rebuiltFrom(DirectoryReader reader) {
    FilterShape same = filter.shape();
    return rebuild(kind, reader, countersPerKey, keys -> same);
  }

  private static IndexKeyFilter rebuild(Kind kind, DirectoryReader reader, int countersPerKey,
      java.util.function.LongFunction<FilterShape> shapeForKeys) {
    CountingBloomFilter filter;
    if (kind.perRecord) {
      // One key per live record: the size is known, the keys go straight in, read from the doc
      // values (one sequential read per record, no walk of the term dictionary).
      filter = new CountingBloomFilter(shapeForKeys.apply(reader.numDocs()));
      forEachKey(kind, reader, null, filter::put);
    } else {
      long[] keys = distinctLiveKeys(reader);
      filter = new CountingBloomFilter(shapeForKeys.apply(keys.length));
      for (long key : keys) {
        filter.put(key, secondHash(key));
      }
    }
    return new IndexKeyFilter(kind, filter, countersPerKey);
  }

  /**
   * Collects the exact keys of the segments a first build adds ({@link ExactSegmentIndexer}), so
   * that the filter is made from them in memory instead of rebuilt from the new index's doc values
   * after the build (on the 1M bench, ~0.2 s of one core at the end of the index stage). Thread-safe:
   * each indexing thread adds its segments.
   */
  public static final class ExactKeyCollector implements ExactSegmentIndexer.SegmentKeys {
    private final LongList high = new LongList();
    private final LongList low = new LongList();

    @Override
    public synchronized void added(byte[] md5s, int count) {
      for (int i = 0; i < count; i++) {
        high.add((long) BitUtil.VH_BE_LONG.get(md5s, 16 * i));
        low.add((long) BitUtil.VH_BE_LONG.get(md5s, 16 * i + Long.BYTES));
      }
    }

    /**
     * The filter of the collected keys, shaped as {@link #rebuild} would shape it: equal to a rebuild
     * from an index holding exactly these records.
     */
    public synchronized IndexKeyFilter filter(int countersPerKey, int hashes) {
      CountingBloomFilter filter = new CountingBloomFilter(shape(high.size(), countersPerKey, hashes));
      long[] h1 = high.values();
      long[] h2 = low.values();
      for (int i = 0; i < high.size(); i++) {
        filter.put(h1[i], h2[i]);
      }
      return new IndexKeyFilter(Kind.EXACT, filter, countersPerKey);
    }
  }

  private static FilterShape shape(long keys, int countersPerKey, int hashes) {
    return FilterShape.fromExpectedInsertions(Math.max(1024, keys + keys / 4), countersPerKey, hashes);
  }

  /**
   * The distinct near keys held by a live record, sorted: each segment's term dictionary walked on its
   * own (a key is one term per segment), then sorted and made unique, which is cheaper than merging the
   * segments' terms while walking them.
   */
  private static long[] distinctLiveKeys(DirectoryReader reader) {
    LongList keys = new LongList();
    try {
      for (LeafReaderContext leaf : reader.leaves()) {
        Terms terms = leaf.reader().terms(Kind.NEAR.termField);
        if (terms == null) {
          continue;
        }
        Bits live = leaf.reader().getLiveDocs();
        TermsEnum termsEnum = terms.iterator();
        PostingsEnum postings = null;
        for (BytesRef term = termsEnum.next(); term != null; term = termsEnum.next()) {
          if (live != null) {
            postings = termsEnum.postings(postings, PostingsEnum.NONE);
            if (!anyLive(postings, live)) {
              continue;
            }
          }
          keys.add((long) BitUtil.VH_BE_LONG.get(term.bytes, term.offset));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Fingerprints.sortedDistinct(keys.toArray());
  }

  /** Whether a document of {@code postings} is live ({@code live} null: the segment has no deletions). */
  private static boolean anyLive(PostingsEnum postings, Bits live) throws IOException {
    for (int doc = postings.nextDoc(); doc != PostingsEnum.NO_MORE_DOCS; doc = postings.nextDoc()) {
      if (live == null || live.get(doc)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The second hash of a 64-bit near key for double hashing (an exact key has two MD5 halves; a near
   * key is one half): MurmurHash3's 64-bit finalizer of the key, so h2 is independent of h1's bits.
   */
  static long secondHash(long key) {
    long h = key;
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }

  @Override
  public boolean mightHaveTwin(byte[] md5) {
    lookups++;
    // Depends on the asking record being in the filter itself: its own key counts once.
    if (filter.estimateCount(md5) < 2) {
      skipped++;
      return false;
    }
    return true;
  }

  /**
   * For an exact key that is not (yet) in the index: false means certainly absent, so the index need
   * not be asked (seed 000's lookup: any counter at zero). Counted in lookups / skipped.
   */
  public boolean mightContain(byte[] md5) {
    lookups++;
    if (!filter.mightContain(md5)) {
      skipped++;
      return false;
    }
    return true;
  }

  /** As {@link #mightContain(byte[])} for a near key: false means no live record holds it. */
  public boolean mightContain(long nearKey) {
    lookups++;
    if (!filter.mightContain(nearKey, secondHash(nearKey))) {
      skipped++;
      return false;
    }
    return true;
  }

  /** A record with this exact key entered the index. */
  public void added(byte[] md5) {
    filter.put(md5);
  }

  /** A record with this exact key left the index. */
  public void removed(byte[] md5) {
    filter.remove(md5);
  }

  /**
   * A record with this near key entered the index, which {@code keyHolders} (the near keys of a reader
   * taken before) does not show; {@code heldElsewhere} says whether a record added since holds it
   * already. The key is put unless a live record held it: the filter is certain for most keys, the
   * index is asked for the rest.
   */
  public void addedNearKey(long nearKey, TermHolders keyHolders, boolean heldElsewhere) {
    long h2 = secondHash(nearKey);
    if (heldElsewhere || filter.mightContain(nearKey, h2) && anyLive(keyHolders, NearSchema.keyBytes(nearKey))) {
      return;
    }
    filter.put(nearKey, h2);
  }

  /**
   * Keeps the filter in step with a change of its index from {@code before} to {@code after} (two
   * readers of one index, e.g. around a sync, the deletes of an applied run or a restore): the keys of
   * the records that left are taken out, those of the records that came in are put in, so the filter
   * equals one rebuilt from {@code after} (up to saturated counters). Records are told apart by id. The
   * first build (an empty {@code before}) and a filter grown past its counters per key are rebuilt.
   */
  public void follow(DirectoryReader before, DirectoryReader after) {
    if (before.getVersion() == after.getVersion() || before.numDocs() == 0) {
      follow(before, after, new long[0], new long[0]); // nothing, or a first build
      return;
    }
    long[] was = FingerprintIndex.liveIdsSorted(before);
    long[] is = FingerprintIndex.liveIdsSorted(after);
    LongList left = new LongList();
    LongList came = new LongList();
    int i = 0;
    int j = 0;
    while (i < was.length || j < is.length) {
      if (j == is.length || i < was.length && was[i] < is[j]) {
        left.add(was[i++]);
      } else if (i == was.length || is[j] < was[i]) {
        came.add(is[j++]);
      } else {
        i++;
        j++;
      }
    }
    follow(before, after, left.toArray(), came.toArray());
  }

  /**
   * As {@link #follow(DirectoryReader, DirectoryReader)} when the change is known (an index sync knows
   * what it did): the records of {@code leftSorted} left {@code before}, those of {@code cameSorted}
   * came into {@code after} (both ascending; an id may be in both, a record whose document a sync
   * replaced, e.g. an edited row: its old key goes, its new one comes). Saves comparing the ids of the
   * two readers (two scans and sorts of every id).
   */
  public void follow(DirectoryReader before, DirectoryReader after, long[] leftSorted, long[] cameSorted) {
    if (before.getVersion() == after.getVersion()) {
      return;
    }
    if (before.numDocs() == 0) {
      if (after.numDocs() > 0) {
        filter = rebuild(kind, after, countersPerKey, filter.shape().hashes()).filter; // a first build
      }
      return;
    }
    if (leftSorted.length + cameSorted.length == 0) {
      return;
    }
    long[] leftIds = leftSorted;
    long[] cameIds = cameSorted;
    if (kind.perRecord) {
      forEachKey(before, leftIds, (h1, h2) -> filter.remove(h1, h2));
      forEachKey(after, cameIds, (h1, h2) -> filter.put(h1, h2));
    } else {
      followNearKeys(before, after, leftIds, cameIds);
    }
    if (filter.netInsertions() * countersPerKey > filter.shape().counters()) {
      // Grown past its counters per key: false positives would climb; rebuild with room to grow.
      filter = rebuild(kind, after, countersPerKey, filter.shape().hashes()).filter;
    }
  }

  /**
   * As {@link #follow} for a change that only deleted the records with these ids (the deletes of an
   * applied run): the records that left are known, so the ids of the two readers need not be compared.
   */
  public void followDeletes(DirectoryReader before, DirectoryReader after, long[] idsSorted) {
    if (kind.perRecord) {
      forEachKey(before, idsSorted, (h1, h2) -> filter.remove(h1, h2));
    } else {
      followNearKeys(before, after, idsSorted, new long[0]);
    }
  }

  private void followNearKeys(DirectoryReader before, DirectoryReader after, long[] leftIds, long[] cameIds) {
    // A set: a key changes only when its last holder left or its first holder came.
    LongList touched = new LongList();
    forEachKey(before, leftIds, (h1, h2) -> touched.add(h1));
    forEachKey(after, cameIds, (h1, h2) -> touched.add(h1));
    TermHolders beforeHolders = keyHolders(before);
    TermHolders afterHolders = keyHolders(after);
    for (long key : Fingerprints.sortedDistinct(touched.toArray())) {
      BytesRef term = NearSchema.keyBytes(key);
      boolean held = anyLive(beforeHolders, term);
      boolean holds = anyLive(afterHolders, term);
      if (held && !holds) {
        filter.remove(key, secondHash(key));
      } else if (!held && holds) {
        filter.put(key, secondHash(key));
      }
    }
  }

  private interface KeyConsumer {
    void accept(long h1, long h2);
  }

  /** The keys (doc values) of the live records of {@code reader} whose id is in {@code idsSorted}. */
  private void forEachKey(DirectoryReader reader, long[] idsSorted, KeyConsumer consumer) {
    if (idsSorted.length > 0) {
      forEachKey(kind, reader, IdSet.of(idsSorted), consumer);
    }
  }

  /**
   * The keys (doc values) of the live records of {@code reader} whose id {@code wanted} accepts; with
   * {@code wanted} null, of every live record, and the ids are not read (a rebuild).
   */
  private static void forEachKey(Kind kind, DirectoryReader reader, java.util.function.LongPredicate wanted,
      KeyConsumer consumer) {
    try {
      for (LeafReaderContext leaf : reader.leaves()) {
        LeafReader leafReader = leaf.reader();
        Bits live = leafReader.getLiveDocs();
        NumericDocValues ids = wanted == null ? null : leafReader.getNumericDocValues(IndexSchema.ID);
        BinaryDocValues values = leafReader.getBinaryDocValues(kind.valuesField);
        if (values == null || wanted != null && ids == null) {
          continue;
        }
        for (int doc = values.nextDoc(); doc != PostingsEnum.NO_MORE_DOCS; doc = values.nextDoc()) {
          if (live != null && !live.get(doc)
              || wanted != null && !(ids.advanceExact(doc) && wanted.test(ids.longValue()))) {
            continue;
          }
          BytesRef bytes = values.binaryValue();
          for (int at = bytes.offset; at + kind.keyBytes <= bytes.offset + bytes.length; at += kind.keyBytes) {
            long h1 = (long) BitUtil.VH_BE_LONG.get(bytes.bytes, at);
            consumer.accept(h1, kind.perRecord ? (long) BitUtil.VH_BE_LONG.get(bytes.bytes, at + Long.BYTES) : secondHash(h1));
            if (kind.perRecord) {
              break; // one exact key per record
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static TermHolders keyHolders(DirectoryReader reader) {
    try {
      return new TermHolders(reader.leaves(), NearSchema.KEY);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether a live record holds the near key {@code term}. */
  private static boolean anyLive(TermHolders keyHolders, BytesRef term) {
    try {
      return keyHolders.anyLive(term);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Saves the filter for {@code generation} and deletes snapshots of older generations of its kind. */
  public void save(Path dir, long generation) {
    try {
      Files.createDirectories(dir);
      try (DirectoryStream<Path> old = Files.newDirectoryStream(dir, kind.prefix + "*" + SUFFIX)) {
        for (Path p : old) {
          Files.deleteIfExists(p);
        }
      }
      PrefilterSnapshot.write(kind.file(dir, generation), filter);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot save the prefilter in " + dir, e);
    }
  }

  /** True when both filters have the same shape and every counter is equal. */
  public boolean sameCounters(IndexKeyFilter other) {
    return filter.shape().equals(other.filter.shape()) && Arrays.equals(filter.words(), other.filter.words());
  }

  public Kind kind() {
    return kind;
  }

  public FilterShape shape() {
    return filter.shape();
  }

  /** Keys put minus keys removed: records (EXACT) or distinct keys (NEAR). */
  public long keys() {
    return filter.netInsertions();
  }

  public long lookups() {
    return lookups;
  }

  public long skipped() {
    return skipped;
  }

  public long memoryBytes() {
    return filter.memoryBytes();
  }

  public long saturated() {
    return filter.saturatedCounters();
  }
}
