package org.xiaochong.fingerprint;

import static org.xiaochong.fingerprint.NearTermKeys.SHORT_FIELD_WORDS;
import static org.xiaochong.fingerprint.NearTermKeys.breakSentences;
import static org.xiaochong.fingerprint.NearTermKeys.gramKeys;
import static org.xiaochong.fingerprint.NearTermKeys.hasHan;
import static org.xiaochong.fingerprint.NearTermKeys.isIdNumber;
import static org.xiaochong.fingerprint.NearTermKeys.key;
import static org.xiaochong.fingerprint.NearTermKeys.shingleKeys;
import static org.xiaochong.fingerprint.NearTermKeys.words;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.util.BitUtil;
import org.xiaochong.normalize.ChineseFolding;
import org.xiaochong.normalize.Mojibake;
import org.xiaochong.normalize.TextNormalizer;
import org.xiaochong.normalize.WordLists;

/**
 * Multi-MD5 fingerprints of a post for near-duplicate detection (the seed's 第二步 多重MD5指纹消重): the
 * post's terms ranked by weight, one MD5 per term. Two posts are near duplicates when they share
 * enough fingerprints ({@link NearSimilarity}); the top {@link NearConfig#pre()} fingerprints are
 * the candidate keys to look up.
 *
 * <p>Ranking: weight desc, then term asc ({@link String#compareTo}, UTF-16 order, so digits and
 * Latin come before Han characters). The weight is the term frequency tf, or tf * idf when the
 * config says {@code useIdf} and {@link DocumentFrequencies} are supplied, with the BM25 idf ln(1 +
 * (N - df + 0.5) / (df + 0.5)). Fingerprint i = MD5(UTF-8 bytes of term i), format {@value
 * #FORMAT}.
 *
 * <p>Never throws for any text: empty results carry a {@link NearOutcome}.
 *
 * <p>Thread-safe: share one instance. The analyzer keeps one token stream per thread (Lucene's
 * {@code Analyzer} reuse strategy), and each thread has its own {@link MessageDigest}. Close it at
 * the end of the run to release the per-thread analysis state.
 *
 * <p>Over 300 lines because the pipeline comment below is the contract of the near index's format
 * (eleven steps, each a reason a key is or is not made) and {@link #fingerprint} runs them in one
 * pass over a post; the analyzer-free term steps are in {@link NearTermKeys}.
 */
public final class TopTermsMd5 implements Closeable {

  /** Version of the term → fingerprint format; change it when terms or hashing change. */
  public static final String FORMAT =
      "near-md5/7"; // 3: q-gram and shingle key families; 4: id-number fields; 5: Mojibake; 6: runs

  // segmented apart; 7: more count units (桶, 罐, 立方, …)

  /** Length q of the character q-grams of the q-gram key family. */
  public static final int GRAM_SIZE = 3;

  /** Hashed before a q-gram ("q:^sm"), so no q-gram key equals a word key. */
  static final String GRAM_PREFIX = "q:";

  /**
   * Words per shingle: 3. With pairs, a swap of two one-word entities in a 20-word sentence changes
   * 4 of 19 shingles and PAWS-X's non-paraphrases still merged at 16 %; with three words it changes
   * 6.
   */
  public static final int SHINGLE_SIZE = 3;

  /** Hashed before a shingle ("s:" + words joined by ' '), so no shingle key equals a word key. */
  static final String SHINGLE_PREFIX = "s:";

  /*
   * Pipeline for the values of one post (all fields in the given order, joined by '\n'):
   *  1. TextNormalizer.normalizeText per field (NFKC, punctuation, lower case, spaces). Each raw field
   *     is first cut to 2 * maxChars so a 1 MB field costs no more than a 40 K one, and text broken by
   *     a wrong encoding is repaired or its broken characters dropped (Mojibake).
   *  2. Cap: the joined text is cut to maxChars (never inside a surrogate pair); truncated() says so.
   *  3. ChineseFolding: traditional -> simplified, then synonyms by longest match (before smartcn,
   *     so variants smartcn would split still fold, see config/synonyms-zh.txt).
   *  4. NumericTerms: phone numbers -> "tel:<digits>", numbers (+ unit) -> one term each; smartcn would
   *     split "2.5" and "138-0013-8000".
   *  4a. A field that is one run of 7+ digits without a phone's shape (a date, an id) is one number
   *     term (isIdNumber), taken before step 1's join: NumericTerms would read it as a tel: term.
   *  5. Sentence breaks: every run of punctuation or white space becomes one '\n'. smartcn splits its
   *     input into sentences with a sentence BreakIterator, which does not break at the ASCII
   *     punctuation that step 1 produces (nor at commas), and its word graph grows faster than the
   *     sentence: on TopTermsMd5Test.APPLE_POST smartcn took about 1.5-4 ms before this step and
   *     0.12-0.3 ms after (one-off timings on the shared machine, see NEAR-FINGERPRINTS.md), with
   *     the same words. '\n' rather than '。': with a trailing '。' smartcn's HMM splits some words at
   *     the sentence end (价格面议。 -> 价格/面/议, 联系人。 -> 联系/人); with '\n' it does not.
   *  6. SmartChineseAnalyzer (default stop set = punctuation; it lower-cases and Porter-stems Latin,
   *     full-width forms are already folded by step 1) on each run between two breaks on its own
   *     (countWords): the JDK's sentence BreakIterator does not end a sentence at '\n', so the whole
   *     post would be one smartcn sentence, which SentenceCachingAnalyzer's cache only knows when the
   *     whole post repeats; runs repeat across posts (a contact line, a title, the text between two
   *     numbers). A word no longer spans a break (联系人\n马先生 gave 人马).
   *  7. Drop tokens without a letter or digit (emoji, symbols) and stop words.
   *  8. Phone fields: normalizePhone; 7+ digits give a tel: term (counted with the text's own).
   *  9. Count, rank, hash.
   * 11. Fields: each term and q-gram carries the mask of the fields it occurs in (bit i = the i-th
   *     text field, then the phone fields; Fingerprints.sortedKeyFields), and the post the mask of
   *     the fields that gave a key: the near rule leaves a key out of a comparison when the other post
   *     has nothing in any of its fields (NearRule.similarity). Steps 3-5 run per field for this;
   *     the pieces are joined again before smartcn, so segmentation and ranking are unchanged.
   * 10. Other key families, beside the ranked words (not ranked, not in terms()):
   *     - q-grams (config.grams()): in each normalized field (step 1) without a Han character, every
   *       maximal run of ASCII letters and digits of 2+ chars is padded "^run$" and cut into its
   *       3-grams; key = MD5("q:" + gram). A typo, an abbreviation (blv / blvd), a dropped letter or a
   *       mistyped digit of a date or an id changes the word key but only the 3 or fewer q-grams
   *       around it. Fields with Han text are left to smartcn: its words are short, a changed
   *       character changes most of a word's q-grams anyway, and the q-grams of a Chinese post's
   *       prices, stock and phone made the 1M-post bench's near index 5 times slower and its pass
   *       6 times slower (bench/RESULTS.md). Digit q-grams many records share weigh little by their idf.
   *     - shingles (config.shingles()): each run of SHINGLE_SIZE neighbouring kept tokens of step 7,
   *       in text order; key = MD5("s:" + the tokens joined by ' '). Order-aware: "A 是 B 的支流" and "B 是 A 的支流" share
   *       every word but not every shingle.
   */
  private static final String FIELD = "near";
  private static final char FIELD_SEPARATOR = '\n';
  static final char SENTENCE_BREAK = '\n';

  static final long[] NO_KEYS = new long[0];
  private static final int[] NO_FIELDS = new int[0];

  private static final ThreadLocal<MessageDigest> MD5 = ThreadLocal.withInitial(TermText::newMd5);

  private final NearConfig config;
  private final DocumentFrequencies documentFrequencies; // null: rank by tf
  private final ChineseFolding folding;
  private final CharArraySet stopWords; // looked up on the token's chars: no String for a stop word
  private final Analyzer analyzer;
  private final NearKeyTimes times = new NearKeyTimes();

  /** Fingerprints ranked by term frequency. */
  public TopTermsMd5(NearConfig config) {
    this(config, null);
  }

  /**
   * Fingerprints ranked by tf * idf if {@code config.useIdf()} and {@code documentFrequencies} is
   * not null, else by tf.
   *
   * @throws IllegalArgumentException if a word list is missing or malformed
   * @throws UncheckedIOException if a word list cannot be read
   */
  public TopTermsMd5(NearConfig config, DocumentFrequencies documentFrequencies) {
    if (config == null) {
      throw new IllegalArgumentException("config (null) must be a NearConfig");
    }
    this.config = config;
    this.documentFrequencies = config.useIdf() ? documentFrequencies : null;
    this.folding = ChineseFolding.load(config.foldTraditional(), config.synonymsLocation());
    this.stopWords = loadStopWords(config.stopwordsLocation(), folding);
    // SmartChineseAnalyzer with its default stop set (punctuation only), remembering the words of
    // sentences it segmented (the same tokens, see SentenceCachingAnalyzer).
    this.analyzer = new SentenceCachingAnalyzer(times);
  }

  public NearConfig config() {
    return config;
  }

  /** Where this fingerprinter's time went so far, per key family (all threads). */
  public NearKeyTimes.Snapshot keyFamilyTimes() {
    return times.snapshot();
  }

  /** True when ranking uses idf (config says so and frequencies were given). */
  public boolean ranksByIdf() {
    return documentFrequencies != null;
  }

  /** The ranked terms of a post's text fields (for debugging and reports). */
  public List<String> rankedTerms(String... texts) {
    return fingerprint(Arrays.asList(texts), List.of()).terms();
  }

  /** The ranked terms of a post's text fields and phone fields. */
  public List<String> rankedTerms(Collection<String> texts, Collection<String> phones) {
    return fingerprint(texts, phones).terms();
  }

  /**
   * Fingerprints of a post's text fields (title, product, content, ...); nulls are empty fields.
   */
  public Fingerprints fingerprint(String... texts) {
    return fingerprint(Arrays.asList(texts), List.of());
  }

  /**
   * Fingerprints of a post: {@code texts} are free-text fields (title, product, content, contact),
   * {@code phones} phone fields, which only contribute a "tel:" term. Nulls are empty fields.
   */
  public Fingerprints fingerprint(Collection<String> texts, Collection<String> phones) {
    long start = System.nanoTime();
    long[] nanos = new long[3]; // words, q-grams, shingles
    Fingerprints fingerprints = fingerprint(texts, phones, nanos);
    times.addPost(System.nanoTime() - start, nanos[0], nanos[1], nanos[2]);
    return fingerprints;
  }

  /**
   * {@link #fingerprint(Collection, Collection)}, adding the time of each key family to {@code
   * nanos}.
   */
  private Fingerprints fingerprint(
      Collection<String> texts, Collection<String> phones, long[] nanos) {
    // term -> {term frequency, mask of the fields it occurs in (step 11)}
    Map<String, int[]> counts = new HashMap<>();
    int phoneField = texts.size(); // field bits: the text fields in order, then the phone fields
    for (String phone : phones) {
      String digits = TextNormalizer.normalizePhone(phone);
      if (digits.length() >= 7) {
        count(counts, NumericTerms.PHONE_PREFIX + digits, 1, Fingerprints.fieldBit(phoneField));
      }
      phoneField++;
    }
    int maxChars = config.maxChars();
    StringBuilder joined = new StringBuilder();
    long[] grams = NO_KEYS;
    int[] gramFields = NO_FIELDS;
    int shortFields = 0;
    int[] pieceStart = new int[texts.size()]; // where each joined field starts in joined
    int[] pieceBit = new int[texts.size()];
    int pieces = 0;
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
          shortFields |= bit;
        }
        long[] fieldGrams =
            gramKeys(
                normalized.length() > maxChars ? normalized.substring(0, maxChars) : normalized);
        grams = concat(grams, fieldGrams);
        int[] bits = new int[fieldGrams.length];
        Arrays.fill(bits, bit);
        gramFields = concat(gramFields, bits);
        nanos[1] += System.nanoTime() - gramStart;
      }
      if (isIdNumber(normalized)) {
        count(counts, normalized, 1, bit); // step 4a: a number, not a tel: term
        continue;
      }
      if (joined.length() > 0) {
        joined.append(FIELD_SEPARATOR);
      }
      pieceStart[pieces] = joined.length();
      pieceBit[pieces++] = bit;
      joined.append(normalized);
      if (joined.length() > maxChars) {
        break;
      }
    }
    boolean truncated = joined.length() > maxChars;
    if (truncated) {
      int cut = maxChars;
      if (Character.isHighSurrogate(joined.charAt(cut - 1))) {
        cut--;
      }
      joined.setLength(cut);
    }
    int analyzedChars = joined.length();
    if (analyzedChars == 0 && counts.isEmpty()) {
      return Fingerprints.empty(NearOutcome.EMPTY_AFTER_NORMALIZE, false, 0);
    }
    // Steps 3-5 per field, so that each number term and each word knows its field; the pieces are
    // joined as the fields were, so smartcn sees the same text as for the joined fields.
    long wordsFrom = System.nanoTime();
    StringBuilder words = new StringBuilder(analyzedChars + 8);
    int[] wordStart = new int[pieces];
    Map<String, Integer> fieldCounts = new HashMap<>();
    int used = 0;
    for (int p = 0; p < pieces && pieceStart[p] < analyzedChars; p++) {
      int end = p + 1 < pieces ? Math.min(analyzedChars, pieceStart[p + 1] - 1) : analyzedChars;
      fieldCounts.clear();
      String piece =
          breakSentences(
              NumericTerms.extract(
                  folding.fold(joined.substring(pieceStart[p], end)), fieldCounts));
      for (Map.Entry<String, Integer> number : fieldCounts.entrySet()) {
        count(counts, number.getKey(), number.getValue(), pieceBit[p]);
      }
      boolean breakBefore =
          words.length() == 0
              || words.charAt(words.length() - 1) == SENTENCE_BREAK
              || (!piece.isEmpty() && piece.charAt(0) == SENTENCE_BREAK);
      if (!breakBefore) {
        words.append(SENTENCE_BREAK);
      }
      wordStart[p] = words.length();
      words.append(piece);
      used = p + 1;
    }
    List<String> sequence = config.shingles() ? new ArrayList<>() : null;
    int stopped =
        countWords(words.toString(), counts, sequence, Arrays.copyOf(wordStart, used), pieceBit);
    if (counts.isEmpty()) {
      nanos[0] += System.nanoTime() - wordsFrom;
      NearOutcome why =
          stopped > 0 ? NearOutcome.ONLY_STOPWORDS : NearOutcome.EMPTY_AFTER_SEGMENTATION;
      return Fingerprints.empty(why, truncated, analyzedChars);
    }
    List<String> ranked = rank(counts);
    long[] high = new long[ranked.size()];
    long[] low = new long[ranked.size()];
    int[] termFields = new int[ranked.size()];
    MessageDigest md5 = MD5.get();
    for (int i = 0; i < ranked.size(); i++) {
      byte[] digest = md5.digest(ranked.get(i).getBytes(StandardCharsets.UTF_8));
      high[i] = (long) BitUtil.VH_BE_LONG.get(digest, 0);
      low[i] = (long) BitUtil.VH_BE_LONG.get(digest, 8);
      termFields[i] = counts.get(ranked.get(i))[1];
    }
    long shingleStart = System.nanoTime();
    nanos[0] += shingleStart - wordsFrom;
    long[] shingles = sequence == null ? NO_KEYS : shingleKeys(sequence);
    if (sequence != null) {
      nanos[2] += System.nanoTime() - shingleStart;
    }
    return new Fingerprints(
        NearOutcome.OK,
        ranked,
        high,
        low,
        truncated,
        analyzedChars,
        counts.get(ranked.get(0))[0],
        grams,
        shingles,
        termFields,
        gramFields,
        shortFields);
  }

  /** Adds {@code n} occurrences of {@code term} in the fields of {@code mask} to {@code counts}. */
  private static void count(Map<String, int[]> counts, String term, int n, int mask) {
    int[] countAndFields = counts.computeIfAbsent(term, t -> new int[2]);
    countAndFields[0] += n;
    countAndFields[1] |= mask;
  }

  /**
   * The key of a must-match field value ({@code fields.must-match}): the value normalized and
   * folded as the text of a post is (so 西红柿 and 番茄, 蘋果 and 苹果 match), then the first 8 bytes of its
   * MD5; 0 for a null or empty value (no evidence either way).
   */
  public long matchKey(String value) {
    if (value == null) {
      return 0;
    }
    int maxChars = config.maxChars();
    String raw = value.length() > maxChars ? value.substring(0, maxChars) : value;
    String folded = folding.fold(TextNormalizer.normalizeText(Mojibake.clean(raw)));
    if (folded.isEmpty()) {
      return 0;
    }
    long key = (long) BitUtil.VH_BE_LONG.get(md5(folded), 0);
    return key == 0 ? 1 : key; // 0 means "empty"
  }

  /**
   * A column's value as the rule compares it ({@code fields.place}, {@code fields.number}):
   * normalized and folded as the text of a post is (西红柿 and 番茄, 蘋果 and 苹果, full-width digits);
   * empty for null.
   */
  public String foldedValue(String value) {
    if (value == null) {
      return "";
    }
    int maxChars = config.maxChars();
    String raw = value.length() > maxChars ? value.substring(0, maxChars) : value;
    return folding.fold(TextNormalizer.normalizeText(Mojibake.clean(raw)));
  }

  /**
   * The key of one item of a column's {@link Evidence}: the first 8 bytes of MD5("e:" + column +
   * ":" + text), so the same text in two columns, or a column's value and a word of the post, are
   * other keys; 0 for empty text (no evidence either way).
   */
  public static long evidenceKey(String column, String text) {
    if (text == null || text.isEmpty()) {
      return 0;
    }
    long key = (long) BitUtil.VH_BE_LONG.get(md5("e:" + column + ":" + text), 0);
    return key == 0 ? 1 : key;
  }

  /** MD5 of one term as it is used for fingerprints (UTF-8 bytes), 16 bytes. */
  public static byte[] md5(String term) {
    return MD5.get().digest(term.getBytes(StandardCharsets.UTF_8));
  }

  /** Releases the analyzer's per-thread state. */
  @Override
  public void close() {
    analyzer.close();
  }

  /**
   * Segments {@code words} and counts kept tokens; returns the number of stop words dropped. Each
   * run between two {@link #SENTENCE_BREAK}s goes to smartcn on its own, so its sentence cache
   * meets the runs posts repeat (a contact line, a title, the text between two numbers).
   */
  private int countWords(
      String text,
      Map<String, int[]> counts,
      List<String> sequence,
      int[] wordStart,
      int[] pieceBit) {
    int stopped = 0;
    int[] piece = {-1};
    for (int from = 0; from < text.length(); ) {
      int to = text.indexOf(SENTENCE_BREAK, from);
      if (to < 0) {
        to = text.length();
      }
      if (to > from) {
        stopped +=
            countRun(text.substring(from, to), from, counts, sequence, wordStart, pieceBit, piece);
      }
      from = to + 1;
    }
    return stopped;
  }

  /**
   * {@link #countWords} for one run of {@code text} starting at {@code runStart}; piece[0] is the
   * piece so far.
   */
  private int countRun(
      String text,
      int runStart,
      Map<String, int[]> counts,
      List<String> sequence,
      int[] wordStart,
      int[] pieceBit,
      int[] pieceSoFar) {
    int stopped = 0;
    int piece = pieceSoFar[0];
    try (TokenStream stream = analyzer.tokenStream(FIELD, text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      OffsetAttribute offset = stream.addAttribute(OffsetAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        if (!TermText.hasLetterOrDigit(term)) {
          continue;
        }
        if (stopWords.contains(term.buffer(), 0, term.length())) {
          stopped++;
          continue;
        }
        String token = term.toString();
        int start = runStart + offset.startOffset();
        while (piece + 1 < wordStart.length && wordStart[piece + 1] <= start) {
          piece++; // tokens come in text order: the last piece starting at or before the token
        }
        int[] countAndFields = counts.get(token); // one hash lookup per token (a put for a new one)
        if (countAndFields == null) {
          countAndFields = new int[2];
          counts.put(token, countAndFields);
        }
        countAndFields[0]++;
        countAndFields[1] |= piece >= 0 ? pieceBit[piece] : Fingerprints.ANY_FIELD;
        if (sequence != null) {
          sequence.add(token);
        }
      }
      stream.end();
    } catch (IOException e) {
      // StringReader input: smartcn does no real I/O, so this is a bug, not bad data.
      throw new UncheckedIOException(
          "smartcn failed on a string of " + text.length() + " chars", e);
    }
    pieceSoFar[0] = piece;
    return stopped;
  }

  /** A term and its weight, for {@link #rank}. */
  private record Weighted(String term, double weight) {}

  private List<String> rank(Map<String, int[]> counts) {
    // Weight desc, then term asc: a total order (terms are distinct), so the ranking does not
    // depend
    // on the sort. Each term's weight is looked up once, not at every comparison.
    Weighted[] weighted = new Weighted[counts.size()];
    long docCount = documentFrequencies == null ? 0 : Math.max(0, documentFrequencies.docCount());
    int n = 0;
    for (Map.Entry<String, int[]> entry : counts.entrySet()) {
      double weight = entry.getValue()[0];
      if (documentFrequencies != null) {
        long docFreq = Math.min(docCount, Math.max(0, documentFrequencies.docFreq(entry.getKey())));
        double idf = Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5));
        weight = entry.getValue()[0] * idf;
      }
      weighted[n++] = new Weighted(entry.getKey(), weight);
    }
    Arrays.sort(
        weighted,
        (a, b) -> {
          int byWeight = Double.compare(b.weight(), a.weight());
          return byWeight != 0 ? byWeight : a.term().compareTo(b.term());
        });
    List<String> terms = new ArrayList<>(n);
    for (Weighted term : weighted) {
      terms.add(term.term());
    }
    return terms;
  }

  private static CharArraySet loadStopWords(String location, ChineseFolding folding) {
    Set<String> words = new HashSet<>();
    for (String line : WordLists.readLines(location)) {
      for (String word : line.split("\\s+")) {
        String folded = folding.fold(TextNormalizer.normalizeText(word));
        if (!folded.isEmpty()) {
          words.add(folded);
        }
      }
    }
    return CharArraySet.unmodifiableSet(new CharArraySet(words, false));
  }

  private static int[] concat(int[] a, int[] b) {
    if (a.length == 0) {
      return b;
    }
    int[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  private static long[] concat(long[] a, long[] b) {
    if (a.length == 0) {
      return b;
    }
    long[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
