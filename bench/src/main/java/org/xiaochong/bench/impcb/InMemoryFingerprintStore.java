package org.xiaochong.bench.impcb;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.xiaochong.bloom.CountingBloomFilter;

/**
 * {@link FingerprintStore} in a {@link HashMap}. {@link #countEntriesAtPosition} scans all entries
 * (O(size)); it only runs when a saturated counter is deleted from, which is rare at the seeds'
 * shapes (see {@link CountingBloomFilter}). Not thread-safe.
 */
final class InMemoryFingerprintStore implements FingerprintStore {

  private final Map<Fingerprint, FingerprintEntry> entries = new HashMap<>();

  @Override
  public FingerprintEntry get(Fingerprint fingerprint) {
    return entries.get(fingerprint);
  }

  @Override
  public void put(FingerprintEntry entry) {
    FingerprintEntry old = entries.putIfAbsent(entry.fingerprint(), entry);
    if (old != null) {
      throw new IllegalStateException("fingerprint " + entry.fingerprint() + " is already stored");
    }
  }

  @Override
  public long increment(Fingerprint fingerprint) {
    FingerprintEntry entry = require(fingerprint);
    entries.put(fingerprint, entry.withRefCount(entry.refCount() + 1));
    return entry.refCount() + 1;
  }

  @Override
  public long decrement(Fingerprint fingerprint) {
    FingerprintEntry entry = require(fingerprint);
    long refCount = entry.refCount() - 1;
    if (refCount > 0) {
      entries.put(fingerprint, entry.withRefCount(refCount));
    }
    return refCount;
  }

  @Override
  public boolean remove(Fingerprint fingerprint) {
    return entries.remove(fingerprint) != null;
  }

  @Override
  public long countEntriesAtPosition(int position, long limit) {
    long count = 0;
    for (FingerprintEntry entry : entries.values()) {
      count += entry.occurrencesOf(position);
      if (count >= limit) {
        return limit;
      }
    }
    return count;
  }

  @Override
  public long size() {
    return entries.size();
  }

  @Override
  public void forEach(Consumer<FingerprintEntry> action) {
    entries.values().forEach(action);
  }

  private FingerprintEntry require(Fingerprint fingerprint) {
    FingerprintEntry entry = entries.get(fingerprint);
    if (entry == null) {
      throw new IllegalStateException("fingerprint " + fingerprint + " is not stored");
    }
    return entry;
  }
}
