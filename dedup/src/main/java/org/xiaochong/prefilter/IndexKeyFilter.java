package org.xiaochong.prefilter;

import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.apache.lucene.index.DirectoryReader;
import org.xiaochong.bloom.CountingBloomFilter;
import org.xiaochong.bloom.FilterShape;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IdSet;
import org.xiaochong.index.LongList;

/**
 * The IMP-CBFilter of seed 000 in front of a Lucene index: a counting Bloom filter of the index's
 * keys, with the index as its store. Two kinds are built in: {@link RecordKeyFilter} (every md5 key
 * once per record, a multiset) and {@link NearKeyFilter} (every near key held by a live record,
 * once, a set); a method with keys of its own adds a kind in its own package (a subclass and a
 * {@link Kind} naming its file, given to {@code OwnIndexRun}). What they share lives here: the
 * counters of lookups asked and skipped, following a change of the index instead of rebuilding,
 * saving ({@link FilterFile}) and reading keys out of the doc values.
 *
 * <p>A filter is rebuilt from the index when its saved file cannot be used, and followed through
 * each change of the index with {@link #follow}: the keys of the records that left are taken out,
 * those of the records that came in are put in. A saturated counter stays put (never a false
 * negative, only a possible extra lookup) and is reset by the next rebuild. Not thread-safe: one
 * instance per run.
 */
public abstract class IndexKeyFilter {
  /**
   * One kind of filter ({@link RecordKeyFilter#KIND}, {@link NearKeyFilter#KIND}): how its file is
   * named and checked, how it is built from an index, and the entry points that open or rebuild it.
   * Typed by the filter it makes, so that a caller gets the kind's own queries ({@code
   * mightHaveTwin} of the exact filter, {@code mightContain(long)} of the near one) while opening
   * both the same way.
   */
  public static final class Kind<F extends IndexKeyFilter> {
    /** Builds the counters of every live key of a reader, shaped by a function of their number. */
    public interface Builder {
      CountingBloomFilter build(DirectoryReader reader, LongFunction<FilterShape> shapeForKeys);
    }

    /** Wraps counters in a filter of the kind. */
    public interface Maker<T> {
      T make(CountingBloomFilter filter, int countersPerKey);
    }

    private final String name;
    private final boolean keyPerRecord;
    private final Builder builder;
    private final Maker<F> maker;

    /**
     * @param name the kind's name in file names and messages: "exact" or "near"
     * @param keyPerRecord whether the filter holds one key per live record ({@link
     *     FilterFile#load})
     */
    public Kind(String name, boolean keyPerRecord, Builder builder, Maker<F> maker) {
      this.name = name;
      this.keyPerRecord = keyPerRecord;
      this.builder = builder;
      this.maker = maker;
    }

    /**
     * Loads the filter saved for {@code generation} or rebuilds it from {@code reader}.
     *
     * @param notes receives one line when the filter had to be rebuilt, saying why
     */
    public F openOrRebuild(
        Path dir,
        long generation,
        DirectoryReader reader,
        int countersPerKey,
        int hashes,
        Consumer<String> notes) {
      CountingBloomFilter loaded =
          FilterFile.load(
              name, dir, generation, reader, countersPerKey, hashes, keyPerRecord, notes);
      return loaded != null
          ? maker.make(loaded, countersPerKey)
          : rebuild(reader, countersPerKey, hashes);
    }

    /** A new filter of every live key of the index, with room for 25 % more. */
    public F rebuild(DirectoryReader reader, int countersPerKey, int hashes) {
      return maker.make(
          builder.build(reader, keys -> shape(keys, countersPerKey, hashes)), countersPerKey);
    }
  }

  private final Kind<?> kind;
  protected final int countersPerKey;
  protected CountingBloomFilter filter;
  private long lookups;
  private long skipped;

  protected IndexKeyFilter(Kind<?> kind, CountingBloomFilter filter, int countersPerKey) {
    this.kind = kind;
    this.filter = filter;
    this.countersPerKey = countersPerKey;
  }

  /**
   * Takes out the keys of the records of {@code leftIds} (live in {@code before}) and puts in those
   * of the records of {@code cameIds} (live in {@code after}); both sorted, either may be empty.
   */
  protected abstract void followChange(
      DirectoryReader before, DirectoryReader after, long[] leftIds, long[] cameIds);

  /**
   * A filter of this kind and shape rebuilt from {@code reader}: what this one must equal when in
   * step.
   */
  public IndexKeyFilter rebuiltFrom(DirectoryReader reader) {
    FilterShape same = filter.shape();
    return kind.maker.make(kind.builder.build(reader, keys -> same), countersPerKey);
  }

  /** The shape a rebuild gives {@code keys} keys: room for 25 % more. */
  protected static FilterShape shape(long keys, int countersPerKey, int hashes) {
    return FilterShape.fromExpectedInsertions(
        Math.max(1024, keys + keys / 4), countersPerKey, hashes);
  }

  /**
   * Counts a lookup asked of the filter, and as skipped when the filter rules it out; returns
   * {@code maybe}.
   */
  protected final boolean counted(boolean maybe) {
    lookups++;
    if (!maybe) {
      skipped++;
    }
    return maybe;
  }

  /**
   * Keeps the filter in step with a change of its index from {@code before} to {@code after} (two
   * readers of one index, e.g. around a sync, the deletes of an applied run or a restore): the keys
   * of the records that left are taken out, those of the records that came in are put in, so the
   * filter equals one rebuilt from {@code after} (up to saturated counters). Records are told apart
   * by id. The first build (an empty {@code before}) and a filter grown past its counters per key
   * are rebuilt.
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
   * As {@link #follow(DirectoryReader, DirectoryReader)} when the change is known (an index sync
   * knows what it did): the records of {@code leftSorted} left {@code before}, those of {@code
   * cameSorted} came into {@code after} (both ascending; an id may be in both, a record whose
   * document a sync replaced, e.g. an edited row: its old key goes, its new one comes). Saves
   * comparing the ids of the two readers (two scans and sorts of every id).
   */
  public void follow(
      DirectoryReader before, DirectoryReader after, long[] leftSorted, long[] cameSorted) {
    if (before.getVersion() == after.getVersion()) {
      return;
    }
    if (before.numDocs() == 0) {
      if (after.numDocs() > 0) {
        filter = rebuildFor(after); // a first build
      }
      return;
    }
    if (leftSorted.length + cameSorted.length == 0) {
      return;
    }
    followChange(before, after, leftSorted, cameSorted);
    if (filter.netInsertions() * countersPerKey > filter.shape().counters()) {
      // Grown past its counters per key: false positives would climb; rebuild with room to grow.
      filter = rebuildFor(after);
    }
  }

  private CountingBloomFilter rebuildFor(DirectoryReader reader) {
    int hashes = filter.shape().hashes();
    return kind.builder.build(reader, keys -> shape(keys, countersPerKey, hashes));
  }

  /**
   * As {@link #follow} for a change that only deleted the records with these ids (the deletes of an
   * applied run): the records that left are known, so the ids of the two readers need not be
   * compared.
   */
  public void followDeletes(DirectoryReader before, DirectoryReader after, long[] idsSorted) {
    followChange(before, after, idsSorted, new long[0]);
  }

  /** Receives a key as the two hashes of double hashing. */
  interface KeyConsumer {
    void accept(long h1, long h2);
  }

  /**
   * Receives the doc value of one record: {@code length} bytes of {@code bytes} from {@code
   * offset}.
   */
  protected interface ValueConsumer {
    void accept(byte[] bytes, int offset, int length);
  }

  /**
   * The doc values of {@code field} of every live record of {@code reader} (a rebuild: no id is
   * read).
   */
  protected static void forEachValue(DirectoryReader reader, String field, ValueConsumer consumer) {
    LiveDocValues.read(reader, field, null, consumer);
  }

  /**
   * The doc values of {@code field} of the live records of {@code reader} whose id is in {@code
   * idsSorted}.
   */
  protected static void forEachValue(
      DirectoryReader reader, String field, long[] idsSorted, ValueConsumer consumer) {
    if (idsSorted.length > 0) {
      LiveDocValues.read(reader, field, IdSet.of(idsSorted), consumer);
    }
  }

  /**
   * Saves the filter for {@code generation} and deletes snapshots of older generations of its kind.
   */
  public void save(Path dir, long generation) {
    FilterFile.save(dir, kind.name, generation, filter);
  }

  /** True when both filters have the same shape and every counter is equal. */
  public boolean sameCounters(IndexKeyFilter other) {
    return filter.sameCounters(other.filter);
  }

  FilterShape shape() {
    return filter.shape();
  }

  /** Keys put minus keys removed: records (exact) or distinct keys (near). */
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
