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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The rows a person decided are not duplicates ({@link ApartTable}): no pass, check or apply
 * removes one row in favour of another it is marked apart from. Two forms of mark, both answered by
 * {@link #keepsApart}:
 *
 * <ul>
 *   <li><b>pairs</b> ({@code dedup_apart}, {@code dedup apart add}): two rows apart. Held as
 *       (smaller id, larger id), sorted, so a lookup is a binary search.
 *   <li><b>groups</b> ({@code dedup_apart_member}, made by {@code restore}): every row of a group
 *       is apart from every other row of it. Held as (row, group) memberships sorted by row, so a
 *       lookup finds the groups of both rows by binary search and intersects them. A restored group
 *       of n rows costs n + 1 memberships where its pairs would cost n(n + 1)/2, so memory, load
 *       time and the passes ({@link ApartClusters}) grow with the restored rows, not with their
 *       pairs.
 * </ul>
 *
 * <p>{@link #keepsApart} also records the mark as honoured, for the run's report: the passes ask it
 * exactly where they would otherwise have decided a removal one for the other. {@link #honoured()}
 * counts the distinct pairs and the distinct group rows so honoured. The marks themselves are
 * immutable; the honoured record is thread-safe, so one instance serves a whole run.
 */
public final class ApartPairs {
  /**
   * The snapshot of the marks that {@code run}, {@code restore} and {@code dedup apart} keep in the
   * index folder ({@link #save}), for {@code check}, which does not open the database.
   */
  public static final String FILE = "dedup-apart.pairs";

  private static final int MAGIC = 0x58434150; // "XCAP"
  private static final int VERSION = 2;

  /** No marks: every lookup answers false. */
  public static final ApartPairs NONE = new ApartPairs(new long[0], new long[0], new long[0]);

  private final long[] smaller;
  private final long[] larger;

  /** The ids of {@link #smaller} and {@link #larger} together, sorted and distinct. */
  private final long[] paired;

  /** Group memberships, sorted by row then group: row {@code memberRows[i]} is in {@code i}'s. */
  private final long[] memberRows;

  private final long[] memberGroups;

  /** One bit per pair, set once a pass honoured it. */
  private final AtomicLongArray honouredPairs;

  /** One bit per membership, set at a row's first membership once a pass honoured a group of it. */
  private final AtomicLongArray honouredRows;

  private ApartPairs(long[] smaller, long[] larger, long[] rowGroups) {
    this.smaller = smaller;
    this.larger = larger;
    long[] ids = Arrays.copyOf(smaller, smaller.length + larger.length);
    System.arraycopy(larger, 0, ids, smaller.length, larger.length);
    this.paired = Arrays.stream(ids).sorted().distinct().toArray();
    int n = rowGroups.length / 2;
    long[][] members = new long[n][];
    for (int i = 0; i < n; i++) {
      members[i] = new long[] {rowGroups[2 * i], rowGroups[2 * i + 1]};
    }
    Arrays.sort(
        members, (x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
    long[] rows = new long[n];
    long[] groups = new long[n];
    int distinct = 0;
    for (long[] member : members) {
      if (distinct > 0 && rows[distinct - 1] == member[0] && groups[distinct - 1] == member[1]) {
        continue;
      }
      rows[distinct] = member[0];
      groups[distinct++] = member[1];
    }
    this.memberRows = Arrays.copyOf(rows, distinct);
    this.memberGroups = Arrays.copyOf(groups, distinct);
    this.honouredPairs = new AtomicLongArray(Math.max(1, (smaller.length + 63) >>> 6));
    this.honouredRows = new AtomicLongArray(Math.max(1, (distinct + 63) >>> 6));
  }

  /**
   * The set of these pairs, each given as {@code ids[2i], ids[2i + 1]} in either order; repeats are
   * kept once.
   *
   * @throws IllegalArgumentException for an odd count or a pair of one id with itself
   */
  public static ApartPairs of(long... ids) {
    return of(ids, new long[0]);
  }

  /**
   * The marks of these pairs (as {@link #of(long...)} takes them) and these group memberships, each
   * given as {@code rowGroups[2i]} (a row) in group {@code rowGroups[2i + 1]}; repeats are kept
   * once.
   *
   * @throws IllegalArgumentException for an odd count or a pair of one id with itself
   */
  public static ApartPairs of(long[] pairIds, long[] rowGroups) {
    if (pairIds.length % 2 != 0 || rowGroups.length % 2 != 0) {
      throw new IllegalArgumentException(
          "apart marks need an even count of ids, not "
              + pairIds.length
              + " and "
              + rowGroups.length);
    }
    int n = pairIds.length / 2;
    long[][] pairs = new long[n][];
    for (int i = 0; i < n; i++) {
      long a = pairIds[2 * i];
      long b = pairIds[2 * i + 1];
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
    if (distinct == 0 && rowGroups.length == 0) {
      return NONE;
    }
    return new ApartPairs(
        Arrays.copyOf(smaller, distinct), Arrays.copyOf(larger, distinct), rowGroups);
  }

  /**
   * The marks as one array, for a distributed run to ship ({@link #fromArray}): the count of pairs,
   * the pairs, then the (row, group) memberships.
   */
  public long[] toArray() {
    long[] all = new long[1 + 2 * smaller.length + 2 * memberRows.length];
    all[0] = smaller.length;
    for (int i = 0; i < smaller.length; i++) {
      all[1 + 2 * i] = smaller[i];
      all[2 + 2 * i] = larger[i];
    }
    int at = 1 + 2 * smaller.length;
    for (int i = 0; i < memberRows.length; i++) {
      all[at + 2 * i] = memberRows[i];
      all[at + 2 * i + 1] = memberGroups[i];
    }
    return all;
  }

  /** The marks {@link #toArray} wrote. */
  public static ApartPairs fromArray(long[] all) {
    int pairs = (int) all[0];
    int at = 1 + 2 * pairs;
    return of(Arrays.copyOfRange(all, 1, at), Arrays.copyOfRange(all, at, all.length));
  }

  /** Marks: pairs, plus the rows of groups (a row counted once per group). */
  public int size() {
    return smaller.length + memberRows.length;
  }

  /** Pairs in the set. */
  public int pairs() {
    return smaller.length;
  }

  /** Memberships of rows in groups. */
  public int groupRows() {
    return memberRows.length;
  }

  public boolean isEmpty() {
    return smaller.length == 0 && memberRows.length == 0;
  }

  /** Whether the record has any mark (a pair or a group). */
  public boolean isMarked(long id) {
    return hasPairs(id) || firstMembership(id) >= 0;
  }

  /** Whether the record is one of a marked pair. */
  public boolean hasPairs(long id) {
    return Arrays.binarySearch(paired, id) >= 0;
  }

  /** The groups the record is in, ascending; empty when none. */
  public long[] groupsOf(long id) {
    int first = firstMembership(id);
    if (first < 0) {
      return new long[0];
    }
    int end = first;
    while (end < memberRows.length && memberRows[end] == id) {
      end++;
    }
    return Arrays.copyOfRange(memberGroups, first, end);
  }

  /** Whether the two records are marked apart (in either order), by a pair or a shared group. */
  public boolean contains(long idA, long idB) {
    return idA != idB && (pairIndex(idA, idB) >= 0 || sharesGroup(idA, idB));
  }

  /** Whether the two records are a marked pair (in either order); groups are not asked. */
  public boolean containsPair(long idA, long idB) {
    return pairIndex(idA, idB) >= 0;
  }

  /**
   * Whether the two records are marked apart; if so, records the mark as honoured ({@link
   * #honoured()}). Ask it only where a decision of one record for the other is about to be made.
   */
  public boolean keepsApart(long idA, long idB) {
    if (isEmpty() || idA == idB) {
      return false;
    }
    int at = pairIndex(idA, idB);
    if (at >= 0) {
      setBit(honouredPairs, at);
      return true;
    }
    if (sharesGroup(idA, idB)) {
      recordHonoured(idA);
      recordHonoured(idB);
      return true;
    }
    return false;
  }

  /**
   * Records that a group mark of {@code row} kept it in place ({@link ApartClusters}, which decides
   * a group of twins without asking each pair); nothing when the row is in no group.
   */
  void recordHonoured(long row) {
    int first = firstMembership(row);
    if (first >= 0) {
      setBit(honouredRows, first);
    }
  }

  /** Distinct pairs and distinct group rows {@link #keepsApart} answered true for. */
  public int honoured() {
    int n = 0;
    for (int i = 0; i < honouredPairs.length(); i++) {
      n += Long.bitCount(honouredPairs.get(i));
    }
    for (int i = 0; i < honouredRows.length(); i++) {
      n += Long.bitCount(honouredRows.get(i));
    }
    return n;
  }

  /**
   * The marks {@link #keepsApart} answered true for, in ascending order: each honoured pair as
   * {@code {smaller, larger}}, each honoured group row as {@code {row, row}}. What a distributed
   * run's tasks send back so that the driver's marks count them ({@link #recordHonoured(long[])}).
   */
  public List<long[]> honouredPairs() {
    List<long[]> marks = new ArrayList<>();
    for (int i = 0; i < smaller.length; i++) {
      if (bit(honouredPairs, i)) {
        marks.add(new long[] {smaller[i], larger[i]});
      }
    }
    for (int i = 0; i < memberRows.length; i++) {
      if (bit(honouredRows, i)) {
        marks.add(new long[] {memberRows[i], memberRows[i]});
      }
    }
    return marks;
  }

  /** Records as honoured a mark another instance's {@link #honouredPairs} gave. */
  public void recordHonoured(long[] mark) {
    if (mark[0] == mark[1]) {
      recordHonoured(mark[0]);
    } else {
      keepsApart(mark[0], mark[1]);
    }
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
   * Writes the marks to {@code file} (a new file moved over the old one, so a reader sees the old
   * or the new set): a header (magic, version, pair count, membership count), the pairs in order,
   * two longs each, then the memberships, (row, group) each.
   */
  public void save(Path file) {
    Path temp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      try (DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(temp)))) {
        out.writeInt(MAGIC);
        out.writeInt(VERSION);
        out.writeInt(smaller.length);
        out.writeInt(memberRows.length);
        for (int i = 0; i < smaller.length; i++) {
          out.writeLong(smaller[i]);
          out.writeLong(larger[i]);
        }
        for (int i = 0; i < memberRows.length; i++) {
          out.writeLong(memberRows[i]);
          out.writeLong(memberGroups[i]);
        }
      }
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot save the marks in " + file, e);
    }
  }

  /**
   * The marks {@link #save} wrote to {@code file} (or a version 1 file of pairs only); {@link
   * #NONE} when there is no such file.
   */
  public static ApartPairs load(Path file) {
    if (!Files.exists(file)) {
      return NONE;
    }
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
      int magic = in.readInt();
      int version = in.readInt();
      int count = in.readInt();
      int members = version == VERSION ? in.readInt() : 0;
      long header = version == VERSION ? 16L : 12L;
      if (magic != MAGIC
          || version < 1
          || version > VERSION
          || count < 0
          || members < 0
          || header + 16L * count + 16L * members != Files.size(file)) {
        throw new IOException(
            "not a marks file of version "
                + VERSION
                + ": magic "
                + Integer.toHexString(magic)
                + ", version "
                + version
                + ", "
                + count
                + " pairs and "
                + members
                + " group rows in "
                + Files.size(file)
                + " bytes");
      }
      long[] ids = new long[2 * count];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = in.readLong();
      }
      long[] rowGroups = new long[2 * members];
      for (int i = 0; i < rowGroups.length; i++) {
        rowGroups[i] = in.readLong();
      }
      return of(ids, rowGroups);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read the marks in " + file + " (the next `dedup run` writes it again)", e);
    }
  }

  private boolean sharesGroup(long idA, long idB) {
    int a = firstMembership(idA);
    if (a < 0) {
      return false;
    }
    int b = firstMembership(idB);
    if (b < 0) {
      return false;
    }
    while (a < memberRows.length
        && memberRows[a] == idA
        && b < memberRows.length
        && memberRows[b] == idB) {
      int c = Long.compare(memberGroups[a], memberGroups[b]);
      if (c == 0) {
        return true;
      } else if (c < 0) {
        a++;
      } else {
        b++;
      }
    }
    return false;
  }

  /** The index of the row's first membership, or -1 when it is in no group. */
  private int firstMembership(long id) {
    int lo = 0;
    int hi = memberRows.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (memberRows[mid] < id) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < memberRows.length && memberRows[lo] == id ? lo : -1;
  }

  private int pairIndex(long idA, long idB) {
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

  private static void setBit(AtomicLongArray bits, int i) {
    long bit = 1L << (i & 63);
    int word = i >>> 6;
    long old;
    while (((old = bits.get(word)) & bit) == 0 && !bits.compareAndSet(word, old, old | bit)) {
      // another thread set a bit of the same word: read it again
    }
  }

  private static boolean bit(AtomicLongArray bits, int i) {
    return (bits.get(i >>> 6) & 1L << (i & 63)) != 0;
  }
}
