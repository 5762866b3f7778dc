package org.xiaochong.bench.impcb;

import java.util.function.Consumer;

/**
 * The MD5 fingerprint store ("MD5指纹库") behind {@link ImpCbFilter}: exact, possibly slow (a database
 * table or an index in production). Each entry keeps its reference count, the kept record's id and
 * its k counter positions. Implementations state their own thread-safety.
 */
interface FingerprintStore {

  /** The entry for {@code fingerprint}, or null if absent. */
  FingerprintEntry get(Fingerprint fingerprint);

  /** Inserts a new entry; fails if the fingerprint is already present. */
  void put(FingerprintEntry entry);

  /** Adds one reference; returns the new reference count. Fails if absent. */
  long increment(Fingerprint fingerprint);

  /** Removes one reference; returns the new count (0 means the caller must {@link #remove}). */
  long decrement(Fingerprint fingerprint);

  /** Removes the entry; returns whether it was present. */
  boolean remove(Fingerprint fingerprint);

  /**
   * Occurrences of counter {@code position} among the positions of all live entries (an entry that
   * lists a position twice counts twice, as it incremented that counter twice), stopping early once
   * {@code limit} is reached. This is the recount of a saturated counter (seed 000, section 2.3).
   */
  long countEntriesAtPosition(int position, long limit);

  /** Number of entries (distinct fingerprints). */
  long size();

  /** Visits every entry, in no particular order. */
  void forEach(Consumer<FingerprintEntry> action);
}
