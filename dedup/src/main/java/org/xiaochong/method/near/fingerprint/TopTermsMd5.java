package org.xiaochong.method.near.fingerprint;

import static org.xiaochong.method.near.fingerprint.NearTermKeys.shingleKeys;

import java.io.Closeable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.lucene.util.BitUtil;
import org.xiaochong.fingerprint.DocumentFrequencies;
import org.xiaochong.fingerprint.TermText;
import org.xiaochong.normalize.ChineseFolding;
import org.xiaochong.normalize.Mojibake;
import org.xiaochong.normalize.TextNormalizer;

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
 * <p>The pipeline comment below is the contract of the near index's format (eleven steps, each a
 * reason a key is or is not made); {@link #fingerprint} runs them in one pass over a post: {@link
 * PostFields} reads the fields (steps 1, 2, 4a, 8, q-grams), {@link WordSegmenter} segments and
 * counts the words (steps 3-7), {@link TermRanking} ranks them (step 9); the analyzer-free term
 * steps are in {@link NearTermKeys}.
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
   *     0.12-0.3 ms after (one-off timings on the shared machine, see bench/RESULTS.md), with
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
  static final char SENTENCE_BREAK = '\n';

  static final long[] NO_KEYS = new long[0];

  private static final ThreadLocal<MessageDigest> MD5 = ThreadLocal.withInitial(TermText::newMd5);

  private final NearConfig config;
  private final DocumentFrequencies documentFrequencies; // null: rank by tf
  private final ChineseFolding folding;
  private final WordSegmenter segmenter;
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
    this.segmenter = new WordSegmenter(folding, config.stopwordsLocation(), times);
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
    PostFields post = PostFields.read(texts, phones, config, nanos);
    Map<String, int[]> counts = post.counts;
    boolean truncated = post.truncated;
    int analyzedChars = post.joined.length();
    if (analyzedChars == 0 && counts.isEmpty()) {
      return Fingerprints.empty(NearOutcome.EMPTY_AFTER_NORMALIZE, false, 0);
    }
    long wordsFrom = System.nanoTime();
    List<String> sequence = config.shingles() ? new ArrayList<>() : null;
    int stopped = segmenter.countWords(post, sequence);
    if (counts.isEmpty()) {
      nanos[0] += System.nanoTime() - wordsFrom;
      NearOutcome why =
          stopped > 0 ? NearOutcome.ONLY_STOPWORDS : NearOutcome.EMPTY_AFTER_SEGMENTATION;
      return Fingerprints.empty(why, truncated, analyzedChars);
    }
    List<String> ranked = TermRanking.rank(counts, documentFrequencies);
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
        post.grams,
        shingles,
        termFields,
        post.gramFields,
        post.shortFields);
  }

  /**
   * The key of a must-match field value ({@code fields.must-match}): the value normalized and
   * folded as the text of a post is (so 西红柿 and 番茄, 蘋果 and 苹果 match), then the first 8 bytes of its
   * MD5; 0 for a null or empty value (no evidence either way).
   */
  public long matchKey(String value) {
    String folded = foldedValue(value);
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
    segmenter.close();
  }
}
