package org.xiaochong.method.near.fingerprint;

import static org.xiaochong.method.near.fingerprint.NearTermKeys.SHORT_FIELD_WORDS;
import static org.xiaochong.method.near.fingerprint.NearTermKeys.gramKeys;
import static org.xiaochong.method.near.fingerprint.NearTermKeys.hasHan;
import static org.xiaochong.method.near.fingerprint.NearTermKeys.isIdNumber;
import static org.xiaochong.method.near.fingerprint.NearTermKeys.words;

import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.xiaochong.normalize.Mojibake;
import org.xiaochong.normalize.TextNormalizer;

/**
 * A post's fields read for {@link TopTermsMd5} (its pipeline's steps 1, 2, 4a, 8 and the q-grams of
 * step 10): the phone fields' tel: terms, each text field normalized, an id-number field's one
 * number term, the q-grams of the fields without Han text, and the other normalized fields joined
 * by '\n' and cut to maxChars, with where each field (piece) starts. Not thread-safe: one per post.
 */
final class PostFields {
  private static final char FIELD_SEPARATOR = '\n';
  private static final int[] NO_FIELDS = new int[0];

  /** Term -> {term frequency, mask of the fields it occurs in (step 11)}. */
  final Map<String, int[]> counts = new HashMap<>();

  /** The normalized text fields that are no id number, joined; cut to maxChars. */
  final StringBuilder joined = new StringBuilder();

  /** Where each joined field starts in {@link #joined}, and its field bit; {@link #pieces} used. */
  final int[] pieceStart;

  final int[] pieceBit;
  int pieces;

  /** The q-gram keys and the field bit of each. */
  long[] grams = TopTermsMd5.NO_KEYS;

  int[] gramFields = NO_FIELDS;

  /** The bits of the q-gram fields of at most {@link NearTermKeys#SHORT_FIELD_WORDS} words. */
  int shortFields;

  /** Whether {@link #joined} was cut (step 2). */
  boolean truncated;

  private PostFields(int textFields) {
    pieceStart = new int[textFields];
    pieceBit = new int[textFields];
  }

  /**
   * Reads a post's {@code texts} and {@code phones} (nulls are empty fields), adding the time of
   * its q-grams to {@code nanos[1]}.
   */
  static PostFields read(
      Collection<String> texts, Collection<String> phones, NearConfig config, long[] nanos) {
    PostFields post = new PostFields(texts.size());
    Map<String, int[]> counts = post.counts;
    StringBuilder joined = post.joined;
    int phoneField = texts.size(); // field bits: the text fields in order, then the phone fields
    for (String phone : phones) {
      String digits = TextNormalizer.normalizePhone(phone);
      if (digits.length() >= 7) {
        count(counts, NumericTerms.PHONE_PREFIX + digits, 1, Fingerprints.fieldBit(phoneField));
      }
      phoneField++;
    }
    int maxChars = config.maxChars();
    int field = -1;
    for (String text : texts) {
      field++;
      if (text == null) {
        continue;
      }
      String raw = text.length() > 2 * maxChars ? text.substring(0, 2 * maxChars) : text;
      String normalized = TextNormalizer.normalizeText(Mojibake.clean(raw));
      if (normalized.isEmpty()) {
        continue;
      }
      int bit = Fingerprints.fieldBit(field);
      if (config.grams() && joined.length() < maxChars && !hasHan(normalized)) {
        long gramStart = System.nanoTime();
        if (words(normalized) <= SHORT_FIELD_WORDS) {
          post.shortFields |= bit;
        }
        long[] fieldGrams =
            gramKeys(
                normalized.length() > maxChars ? normalized.substring(0, maxChars) : normalized);
        post.addGrams(fieldGrams, bit);
        nanos[1] += System.nanoTime() - gramStart;
      }
      if (isIdNumber(normalized)) {
        count(counts, normalized, 1, bit); // step 4a: a number, not a tel: term
        continue;
      }
      if (joined.length() > 0) {
        joined.append(FIELD_SEPARATOR);
      }
      post.pieceStart[post.pieces] = joined.length();
      post.pieceBit[post.pieces++] = bit;
      joined.append(normalized);
      if (joined.length() > maxChars) {
        break;
      }
    }
    post.truncated = joined.length() > maxChars;
    if (post.truncated) {
      int cut = maxChars;
      if (Character.isHighSurrogate(joined.charAt(cut - 1))) {
        cut--;
      }
      joined.setLength(cut);
    }
    return post;
  }

  /** Adds {@code n} occurrences of {@code term} in the fields of {@code mask} to {@code counts}. */
  static void count(Map<String, int[]> counts, String term, int n, int mask) {
    int[] countAndFields = counts.computeIfAbsent(term, t -> new int[2]);
    countAndFields[0] += n;
    countAndFields[1] |= mask;
  }

  /** Appends the q-grams of one field, each with the field's {@code bit}. */
  private void addGrams(long[] fieldGrams, int bit) {
    int from = grams.length;
    grams = Arrays.copyOf(grams, from + fieldGrams.length);
    System.arraycopy(fieldGrams, 0, grams, from, fieldGrams.length);
    gramFields = Arrays.copyOf(gramFields, grams.length);
    Arrays.fill(gramFields, from, grams.length, bit);
  }
}
