package org.xiaochong.bench.impcb;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.xiaochong.bloom.CountingBloomFilter;
import org.xiaochong.bloom.FilterShape;
import org.xiaochong.bloom.PrefilterFormatException;
import org.xiaochong.bloom.PrefilterSnapshot;

/**
 * IMP-CBFilter (seed 000, section 2.3): a {@link CountingBloomFilter} in front of an exact {@link
 * FingerprintStore}, so that most lookups of new fingerprints never reach the (slow) store.
 *
 * <ul>
 *   <li>insert/lookup: if any of the key's k counters is 0 the key is certainly new and the store
 *       is not asked ("skipped"). Otherwise the store decides; a miss there is a filter false
 *       positive.
 *   <li>a new fingerprint increments its counters (saturating) and is stored with refCount 1, the
 *       kept id and its k positions; a known one only increments its refCount. So each distinct
 *       fingerprint counts once in the filter, however many records carry it.
 *   <li>delete: drops one reference; the last one removes the entry and decrements its counters. A
 *       saturated counter cannot be decremented blindly, so it is recounted from the store.
 * </ul>
 *
 * <p>Invariant, for every counter p: {@code counter(p) == min(occurrences of p among the stored
 * entries' positions, 2^n - 1)}. Hence no false negative after any sequence of inserts and deletes.
 *
 * <p>Not thread-safe: one instance per dedup run.
 */
final class ImpCbFilter {
  /*
   * Why the invariant holds: only a new fingerprint increments, and only the removal of its entry
   * decrements, so the exact count c(p) is the number of stored positions equal to p.
   * - increment: counter < max -> counter + 1 = min(c + 1, max); counter == max -> c >= max, stays.
   * - delete, non-saturated counter: counter = c < max, so counter - 1 = c - 1 exactly.
   * - delete, saturated counter: set to min(store recount, max) after the entry is gone (exact).
   * Delete runs in two phases (decrement the non-saturated ones, then recount the saturated ones)
   * because a key's k positions may repeat: a recounted counter must not be decremented again.
   */

  /** What {@link #insert} found. */
  public enum Verdict {
    /** Fingerprint not seen before: this record is kept. */
    NEW,
    /** Fingerprint already stored: this record duplicates {@code keptId}. */
    DUPLICATE
  }

  /** What {@link #delete} did. */
  public enum Deletion {
    /** The fingerprint was not stored; nothing changed. */
    ABSENT,
    /** One reference dropped; others remain, the entry and counters are unchanged. */
    DEREFERENCED,
    /** The last reference dropped: the entry is removed and its counters decremented. */
    REMOVED
  }

  /** Result of {@link #insert}: the verdict, the id of the kept record and the new refCount. */
  public record Insertion(Verdict verdict, long keptId, long refCount) {}

  /** Counters since construction (lookups: store asked; skipped: decided by the filter alone). */
  public record Stats(
      long lookups,
      long skipped,
      long falsePositives,
      long memoryBytes,
      long saturated,
      long underflows,
      long storeSize) {}

  private final CountingBloomFilter filter;
  private final FingerprintStore store;
  private final int[] positions; // scratch, k long: no allocation per call
  private final int[] saturatedPositions; // scratch for the second phase of delete

  private long lookups;
  private long skipped;
  private long falsePositives;

  /** An empty filter of {@code shape} in front of an empty {@code store}. */
  public ImpCbFilter(FilterShape shape, FingerprintStore store) {
    this(new CountingBloomFilter(shape), store);
    if (store.size() != 0) {
      throw new IllegalArgumentException(
          "store must be empty for a new filter (it holds " + store.size() + " entries)");
    }
  }

  /** Restores a pair that was saved together (see {@link PrefilterSnapshot}). */
  ImpCbFilter(CountingBloomFilter filter, FingerprintStore store) {
    this.filter = filter;
    this.store = store;
    this.positions = new int[filter.shape().hashes()];
    this.saturatedPositions = new int[filter.shape().hashes()];
  }

  /** Records one occurrence of {@code md5} carried by record {@code id}. */
  public Insertion insert(byte[] md5, long id) {
    return insert(CountingBloomFilter.high(md5), CountingBloomFilter.low(md5), id);
  }

  /** As {@link #insert(byte[], long)} with the MD5 halves in hand. */
  public Insertion insert(long h1, long h2, long id) {
    FingerprintEntry entry = findInStore(h1, h2);
    if (entry != null) {
      long refCount = store.increment(entry.fingerprint());
      return new Insertion(Verdict.DUPLICATE, entry.keptId(), refCount);
    }
    filter.put(h1, h2);
    filter.positions(h1, h2, positions);
    store.put(new FingerprintEntry(new Fingerprint(h1, h2), 1, id, positions));
    return new Insertion(Verdict.NEW, id, 1);
  }

  /** The id of the kept record with this fingerprint, or empty if none is stored. */
  public OptionalLong lookup(byte[] md5) {
    return lookup(CountingBloomFilter.high(md5), CountingBloomFilter.low(md5));
  }

  /** As {@link #lookup(byte[])} with the MD5 halves in hand. */
  public OptionalLong lookup(long h1, long h2) {
    FingerprintEntry entry = findInStore(h1, h2);
    return entry == null ? OptionalLong.empty() : OptionalLong.of(entry.keptId());
  }

  /** Drops one reference to {@code md5} (a record carrying it was deleted). */
  public Deletion delete(byte[] md5) {
    return delete(CountingBloomFilter.high(md5), CountingBloomFilter.low(md5));
  }

  /** As {@link #delete(byte[])} with the MD5 halves in hand. */
  public Deletion delete(long h1, long h2) {
    FingerprintEntry entry = findInStore(h1, h2);
    if (entry == null) {
      return Deletion.ABSENT;
    }
    Fingerprint fingerprint = entry.fingerprint();
    if (store.decrement(fingerprint) > 0) {
      return Deletion.DEREFERENCED;
    }
    store.remove(fingerprint);
    int max = filter.shape().maxCounterValue();
    filter.positions(h1, h2, positions);
    int saturatedCount = 0;
    for (int p : positions) {
      if (filter.counter(p) == max) {
        saturatedPositions[saturatedCount++] = p;
      } else {
        filter.decrement(p);
      }
    }
    for (int i = 0; i < saturatedCount; i++) {
      int p = saturatedPositions[i];
      filter.setCounter(p, store.countEntriesAtPosition(p, max));
    }
    filter.countRemoval();
    return Deletion.REMOVED;
  }

  public Stats stats() {
    return new Stats(
        lookups,
        skipped,
        falsePositives,
        filter.memoryBytes(),
        filter.saturatedCounters(),
        filter.underflows(),
        store.size());
  }

  public FilterShape shape() {
    return filter.shape();
  }

  CountingBloomFilter filter() {
    return filter;
  }

  FingerprintStore store() {
    return store;
  }

  /**
   * Saves the filter and, when it is an {@link InMemoryFingerprintStore}, its store, as one {@link
   * PrefilterSnapshot} file.
   */
  void save(Path file) throws IOException {
    List<PrefilterSnapshot.StoredKey> keys = null;
    if (store instanceof InMemoryFingerprintStore inMemory) {
      List<PrefilterSnapshot.StoredKey> entries = new ArrayList<>(Math.toIntExact(inMemory.size()));
      inMemory.forEach(
          entry ->
              entries.add(
                  new PrefilterSnapshot.StoredKey(
                      entry.fingerprint().high(),
                      entry.fingerprint().low(),
                      entry.refCount(),
                      entry.keptId())));
      keys = entries;
    }
    PrefilterSnapshot.write(file, filter, keys);
  }

  /**
   * The filter and store saved by {@link #save}, the store in memory.
   *
   * @param expected the shape the file must have, or null to accept any
   * @throws PrefilterFormatException also when the file holds no store, or a key twice
   */
  static ImpCbFilter load(Path file, FilterShape expected) throws IOException {
    PrefilterSnapshot snapshot = PrefilterSnapshot.read(file, expected);
    List<PrefilterSnapshot.StoredKey> keys =
        snapshot
            .storedKeys()
            .orElseThrow(
                () ->
                    new PrefilterFormatException(
                        file,
                        "the snapshot holds no fingerprint store",
                        snapshot.describeHeader(),
                        null));
    CountingBloomFilter filter = snapshot.filter();
    InMemoryFingerprintStore store = new InMemoryFingerprintStore();
    for (int e = 0; e < keys.size(); e++) {
      PrefilterSnapshot.StoredKey key = keys.get(e);
      int[] positions = new int[filter.shape().hashes()];
      filter.positions(key.high(), key.low(), positions);
      try {
        store.put(
            new FingerprintEntry(
                new Fingerprint(key.high(), key.low()), key.refCount(), key.keptId(), positions));
      } catch (IllegalArgumentException | IllegalStateException bad) {
        throw new PrefilterFormatException(
            file, "bad store entry " + e + ": " + bad.getMessage(), snapshot.describeHeader(), bad);
      }
    }
    return new ImpCbFilter(filter, store);
  }

  /**
   * The filter first; the store only if every counter is non-zero. Null if absent. A certainly-new
   * key allocates nothing here.
   */
  private FingerprintEntry findInStore(long h1, long h2) {
    if (!filter.mightContain(h1, h2)) {
      skipped++;
      return null;
    }
    lookups++;
    FingerprintEntry entry = store.get(new Fingerprint(h1, h2));
    if (entry == null) {
      falsePositives++;
    }
    return entry;
  }
}
