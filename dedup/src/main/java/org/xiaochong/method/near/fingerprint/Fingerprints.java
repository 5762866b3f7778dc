package org.xiaochong.method.near.fingerprint;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The multi-MD5 fingerprints of one post, in rank order: fingerprint i is MD5(UTF-8 bytes of term
 * i), and term 0 is the highest-ranked term (see {@link TopTermsMd5}). Immutable and thread-safe.
 *
 * <p>Each MD5 is kept as two longs, big-endian: {@link #high(int)} is bytes 0-7 and {@link
 * #low(int)} bytes 8-15, so {@code hex(i)} is the usual 32-digit MD5 text. {@link #high(int)}
 * doubles as the compact 64-bit key for Lucene terms and {@link NearSimilarity}: two different
 * terms of two posts share a 64-bit prefix with probability about n1 * n2 / 2^64, below 1e-13 for
 * posts of 1,000 terms.
 *
 * <p>The key families' set arithmetic (union, field masks, the typo-tolerant view) is {@link
 * KeySets}. Over 300 lines because it is one immutable value whose some twenty accessors each state
 * their contract (copy or shared, order, what unknown means).
 */
public final class Fingerprints {

  private static final long[] NO_LONGS = new long[0];

  private final NearOutcome outcome;
  private final List<String> terms;
  private final long[] high;
  private final long[] low;
  private final long[] sortedPrefixes;
  private final boolean truncated;
  private final int analyzedChars;
  private final int topCount;
  private final long[] sortedGrams;
  private final long[] sortedShingles;
  private final long[] sortedKeys;
  private final int[] sortedKeyFields; // null: fields unknown
  private final int presentFields;
  private final int shortFields;

  /**
   * Field mask of a key in no particular field (a shingle may span two): never left out of a
   * comparison.
   */
  public static final int ANY_FIELD = -1;

  Fingerprints(
      NearOutcome outcome,
      List<String> terms,
      long[] high,
      long[] low,
      boolean truncated,
      int analyzedChars) {
    this(
        outcome,
        terms,
        high,
        low,
        truncated,
        analyzedChars,
        Integer.MAX_VALUE,
        NO_LONGS,
        NO_LONGS,
        null,
        null,
        0);
  }

  /**
   * @param topCount term frequency of the rank-0 term ({@link Integer#MAX_VALUE}: unknown, taken as
   *     repeated)
   * @param grams keys of the character q-gram family (any order, repeats allowed)
   * @param shingles keys of the word-shingle family (any order, repeats allowed)
   * @param termFields per ranked term, the mask of the fields it occurs in (bit i: the i-th field,
   *     {@link #fieldBit}); null when unknown
   * @param gramFields per q-gram of {@code grams}, the mask of its field; null when unknown
   * @param shortFields the mask of the short fields ({@link #typoKeys})
   */
  Fingerprints(
      NearOutcome outcome,
      List<String> terms,
      long[] high,
      long[] low,
      boolean truncated,
      int analyzedChars,
      int topCount,
      long[] grams,
      long[] shingles,
      int[] termFields,
      int[] gramFields,
      int shortFields) {
    assert terms.size() == high.length && high.length == low.length
        : "terms=" + terms.size() + ", high=" + high.length + ", low=" + low.length;
    assert (outcome == NearOutcome.OK) == !terms.isEmpty()
        : "outcome=" + outcome + ", terms=" + terms.size();
    this.outcome = outcome;
    this.terms = List.copyOf(terms);
    this.high = high;
    this.low = low;
    this.truncated = truncated;
    this.analyzedChars = analyzedChars;
    this.sortedPrefixes = KeySets.sortedDistinct(high.clone());
    this.topCount = topCount;
    this.sortedGrams = KeySets.sortedDistinct(grams.clone());
    this.sortedShingles = KeySets.sortedDistinct(shingles.clone());
    this.sortedKeys = KeySets.union(sortedPrefixes, sortedGrams, sortedShingles);
    this.sortedKeyFields =
        termFields == null
            ? null
            : KeySets.fieldsOf(sortedKeys, high, termFields, grams, gramFields, sortedShingles);
    this.presentFields = termFields == null ? 0 : KeySets.anyOf(termFields);
    this.shortFields = sortedGrams.length == 0 ? 0 : shortFields;
  }

  /**
   * The mask of the short fields (at most three words, no Han text; {@link #typoKeys}); 0 when
   * none.
   */
  public int shortFields() {
    return shortFields;
  }

  /**
   * The keys of the typo-tolerant view: the q-grams of the short fields and the word keys of the
   * other fields (empty without q-grams or fields). In a short field (a name, a street, a code: a
   * typo is its usual variation) a typo changes the field's one word key wholesale but only the
   * q-grams around it; in a longer text the words are the units (another word is another claim),
   * and their q-grams would let two titles that share most letters but not a word pass. The near
   * rule calls it with the fields short in both posts of a pair ({@code NearRule.similarity}).
   */
  public static long[] typoKeys(
      long[] keys, int[] fields, long[] grams, long[] shingles, int shortFields) {
    return KeySets.typoKeys(keys, fields, grams, shingles, shortFields);
  }

  /** The mask bit of the field at {@code index} (fields past the 31st share the last bit). */
  public static int fieldBit(int index) {
    return 1 << Math.min(index, 30);
  }

  /**
   * The distinct values of {@code keys}, sorted. Sorts {@code keys} in place and returns it when
   * nothing repeats, else a shorter copy.
   */
  public static long[] sortedDistinct(long[] keys) {
    return KeySets.sortedDistinct(keys);
  }

  static Fingerprints empty(NearOutcome outcome, boolean truncated, int analyzedChars) {
    return new Fingerprints(outcome, List.of(), NO_LONGS, NO_LONGS, truncated, analyzedChars);
  }

  /**
   * {@link NearOutcome#OK} when there is at least one fingerprint, else the reason there is none.
   */
  public NearOutcome outcome() {
    return outcome;
  }

  /** Number of fingerprints (= distinct terms after stop words). */
  public int size() {
    return high.length;
  }

  public boolean isEmpty() {
    return high.length == 0;
  }

  /** True when the joined text was longer than {@link NearConfig#maxChars()} and was cut. */
  public boolean truncated() {
    return truncated;
  }

  /** Number of normalized chars that were analyzed (after the cap). */
  public int analyzedChars() {
    return analyzedChars;
  }

  /** The ranked terms the fingerprints were computed from, rank 0 first. */
  public List<String> terms() {
    return terms;
  }

  /** MD5 bytes 0-7 of the term at {@code rank}, big-endian: the compact 64-bit key. */
  public long high(int rank) {
    return high[rank];
  }

  /** MD5 bytes 8-15 of the term at {@code rank}, big-endian. */
  public long low(int rank) {
    return low[rank];
  }

  /** The 16 MD5 bytes of the term at {@code rank}. */
  public byte[] md5(int rank) {
    byte[] bytes = new byte[16];
    for (int i = 0; i < 8; i++) {
      bytes[i] = (byte) (high[rank] >>> (56 - 8 * i));
      bytes[8 + i] = (byte) (low[rank] >>> (56 - 8 * i));
    }
    return bytes;
  }

  /** The MD5 of the term at {@code rank} as 32 lower-case hex digits. */
  public String hex(int rank) {
    return String.format("%016x%016x", high[rank], low[rank]);
  }

  /** All MD5s as hex, rank order. */
  public List<String> hexList() {
    List<String> hex = new ArrayList<>(high.length);
    for (int i = 0; i < high.length; i++) {
      hex.add(hex(i));
    }
    return hex;
  }

  /** The 64-bit keys in rank order (a copy). */
  public long[] prefixes() {
    return high.clone();
  }

  /**
   * The 64-bit keys, distinct and ascending (a copy), for {@link NearSimilarity} and for storing
   * the set in the index.
   */
  public long[] sortedPrefixes() {
    return sortedPrefixes.clone();
  }

  long[] sortedPrefixesShared() {
    return sortedPrefixes;
  }

  /**
   * Term frequency of the rank-0 term; {@link Integer#MAX_VALUE} when unknown. The near rule takes
   * the rank-0 term as the post's subject only when the post repeats it (see {@code
   * NearSchema#topKeys}).
   */
  public int topCount() {
    return topCount;
  }

  /**
   * The keys of the character q-gram family ({@link TopTermsMd5}: 3-grams of the Latin words),
   * distinct and ascending (a copy). A typo changes a whole word key but only the q-grams around
   * it.
   */
  public long[] sortedGrams() {
    return sortedGrams.clone();
  }

  /**
   * The keys of the word-shingle family (runs of three neighbouring words; empty unless
   * near.shingles), ascending.
   */
  public long[] sortedShingles() {
    return sortedShingles.clone();
  }

  /**
   * All keys of every family (words, q-grams, shingles), distinct and ascending (a copy): what the
   * near index stores and the similarity compares.
   */
  public long[] sortedKeys() {
    return sortedKeys.clone();
  }

  /**
   * Per key of {@link #sortedKeys}, the mask of the fields it occurs in (bit i = the i-th near
   * field, text fields then phone fields, {@link #fieldBit}; {@link #ANY_FIELD} for a shingle), or
   * null when the fields are unknown. A copy.
   */
  public int[] sortedKeyFields() {
    return sortedKeyFields == null ? null : sortedKeyFields.clone();
  }

  /** The mask of the fields that gave at least one word key (0: unknown). */
  public int presentFields() {
    return presentFields;
  }

  /**
   * The first {@code pre} fingerprints: the candidate keys. Fewer when the post has fewer terms.
   *
   * @throws IllegalArgumentException if {@code pre < 1}
   */
  public Fingerprints top(int pre) {
    if (pre < 1) {
      throw new IllegalArgumentException("pre (" + pre + ") must be >= 1");
    }
    if (pre >= high.length) {
      return this;
    }
    return new Fingerprints(
        outcome,
        terms.subList(0, pre),
        Arrays.copyOf(high, pre),
        Arrays.copyOf(low, pre),
        truncated,
        analyzedChars,
        topCount,
        NO_LONGS,
        NO_LONGS,
        null,
        null,
        0);
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("Fingerprints[").append(outcome);
    for (int i = 0; i < Math.min(high.length, 8); i++) {
      text.append(i == 0 ? ": " : ", ").append(terms.get(i)).append('=').append(hex(i), 0, 8);
    }
    if (high.length > 8) {
      text.append(", ... (").append(high.length).append(" in all)");
    }
    return text.append(truncated ? ", truncated]" : "]").toString();
  }
}
