package org.xiaochong.archive;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A sorted set of id pairs a person decided are not duplicates ({@code dedup_apart}, {@link
 * ApartTable}): no pass, check or apply removes one row of a pair in favour of the other. Each pair
 * is held as (smaller id, larger id), the pairs sorted, so a lookup is a binary search and the
 * whole set is two {@code long} arrays (16 bytes a pair) that a distributed run can ship and load
 * as they are.
 *
 * <p>{@link #keepsApart} also records the pair as honoured, for the run's report: the passes ask it
 * exactly where they would otherwise have decided a removal one for the other. The set itself is
 * immutable; the honoured record is thread-safe, so one instance serves a whole run.
 */
public final class ApartPairs {
  /**
   * The snapshot of the marks that {@code run}, {@code restore} and {@code dedup apart} keep in the
   * index folder ({@link #save}), for {@code check}, which does not open the database.
   */
  public static final String FILE = "dedup-apart.pairs";

  private static final int MAGIC = 0x58434150; // "XCAP"
  private static final int VERSION = 1;

  /** No marks: every lookup answers false. */
  public static final ApartPairs NONE = new ApartPairs(new long[0], new long[0]);

  private final long[] smaller;
  private final long[] larger;

  /** One bit per pair, set once a pass honoured it. */
  private final AtomicLongArray honoured;

  private ApartPairs(long[] smaller, long[] larger) {
    this.smaller = smaller;
    this.larger = larger;
    this.honoured = new AtomicLongArray(Math.max(1, (smaller.length + 63) >>> 6));
  }

  /**
   * The set of these pairs, each given as {@code ids[2i], ids[2i + 1]} in either order; repeats are
   * kept once.
   *
   * @throws IllegalArgumentException for an odd count or a pair of one id with itself
   */
  public static ApartPairs of(long... ids) {
    if (ids.length % 2 != 0) {
      throw new IllegalArgumentException(
          "apart pairs need an even count of ids, not " + ids.length);
    }
    int n = ids.length / 2;
    long[][] pairs = new long[n][];
    for (int i = 0; i < n; i++) {
      long a = ids[2 * i];
      long b = ids[2 * i + 1];
      if (a == b) {
        throw new IllegalArgumentException("record " + a + " cannot be kept apart from itself");
      }
      pairs[i] = new long[] {Math.min(a, b), Math.max(a, b)};
    }
    Arrays.sort(
        pairs, (x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
    long[] smaller = new long[n];
    long[] larger = new long[n];
    int distinct = 0;
    for (long[] pair : pairs) {
      if (distinct > 0 && smaller[distinct - 1] == pair[0] && larger[distinct - 1] == pair[1]) {
        continue;
      }
      smaller[distinct] = pair[0];
      larger[distinct++] = pair[1];
    }
    return new ApartPairs(Arrays.copyOf(smaller, distinct), Arrays.copyOf(larger, distinct));
  }

  /** Pairs in the set. */
  public int size() {
    return smaller.length;
  }

  public boolean isEmpty() {
    return smaller.length == 0;
  }

  /** Whether the two records are marked apart (in either order). */
  public boolean contains(long idA, long idB) {
    return indexOf(idA, idB) >= 0;
  }

  /**
   * Whether the two records are marked apart; if so, records the pair as honoured ({@link
   * #honoured()}). Ask it only where a decision of one record for the other is about to be made.
   */
  public boolean keepsApart(long idA, long idB) {
    if (smaller.length == 0) {
      return false;
    }
    int at = indexOf(idA, idB);
    if (at < 0) {
      return false;
    }
    long bit = 1L << (at & 63);
    int word = at >>> 6;
    long old;
    while (((old = honoured.get(word)) & bit) == 0
        && !honoured.compareAndSet(word, old, old | bit)) {
      // another thread set a bit of the same word: read it again
    }
    return true;
  }

  /** Distinct pairs {@link #keepsApart} answered true for. */
  public int honoured() {
    int n = 0;
    for (int i = 0; i < honoured.length(); i++) {
      n += Long.bitCount(honoured.get(i));
    }
    return n;
  }

  /**
   * Whether {@link #keepsApart} answered true for pair {@code i} (a distributed run gathers them).
   */
  public boolean honoured(int i) {
    return (honoured.get(i >>> 6) & 1L << (i & 63)) != 0;
  }

  /**
   * The pairs {@link #keepsApart} answered true for, each {@code {smaller, larger}}, in ascending
   * order: what a distributed run's tasks send back so that the driver's marks count them.
   */
  public java.util.List<long[]> honouredPairs() {
    java.util.List<long[]> pairs = new java.util.ArrayList<>();
    for (int i = 0; i < smaller.length; i++) {
      if (honoured(i)) {
        pairs.add(new long[] {smaller[i], larger[i]});
      }
    }
    return pairs;
  }

  /** The smaller id of pair {@code i}, pairs in ascending order. */
  public long smaller(int i) {
    return smaller[i];
  }

  /** The larger id of pair {@code i}. */
  public long larger(int i) {
    return larger[i];
  }

  /**
   * Writes the pairs to {@code file} (a new file moved over the old one, so a reader sees the old
   * or the new set): a header (magic, version, count) and the pairs in order, two longs each.
   */
  public void save(Path file) {
    Path temp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      try (DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(temp)))) {
        out.writeInt(MAGIC);
        out.writeInt(VERSION);
        out.writeInt(smaller.length);
        for (int i = 0; i < smaller.length; i++) {
          out.writeLong(smaller[i]);
          out.writeLong(larger[i]);
        }
      }
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot save the marks in " + file, e);
    }
  }

  /** The pairs {@link #save} wrote to {@code file}; {@link #NONE} when there is no such file. */
  public static ApartPairs load(Path file) {
    if (!Files.exists(file)) {
      return NONE;
    }
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
      int magic = in.readInt();
      int version = in.readInt();
      int count = in.readInt();
      if (magic != MAGIC
          || version != VERSION
          || count < 0
          || 12L + 16L * count != Files.size(file)) {
        throw new IOException(
            "not a marks file of version "
                + VERSION
                + ": magic "
                + Integer.toHexString(magic)
                + ", version "
                + version
                + ", "
                + count
                + " pairs in "
                + Files.size(file)
                + " bytes");
      }
      long[] ids = new long[2 * count];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = in.readLong();
      }
      return of(ids);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read the marks in " + file + " (the next `dedup run` writes it again)", e);
    }
  }

  private int indexOf(long idA, long idB) {
    long a = Math.min(idA, idB);
    long b = Math.max(idA, idB);
    int lo = 0;
    int hi = smaller.length - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = smaller[mid] != a ? Long.compare(smaller[mid], a) : Long.compare(larger[mid], b);
      if (c < 0) {
        lo = mid + 1;
      } else if (c > 0) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -1;
  }
}
