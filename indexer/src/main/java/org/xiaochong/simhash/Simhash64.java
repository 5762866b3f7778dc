package org.xiaochong.simhash;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.cn.smart.SmartChineseAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.util.BitUtil;
import org.xiaochong.fingerprint.DocumentFrequencies;
import org.xiaochong.fingerprint.TermText;
import org.xiaochong.normalize.TextNormalizer;

/**
 * 64-bit simhash of a text (Charikar 2002): similar texts get fingerprints at a small Hamming
 * distance; {@link #likeness} = (64 - distance) / 64 as in seed 004's content-seen module.
 *
 * <p>Features ({@link Features}): smartcn words, overlapping character 4-grams (overlap 3), or
 * fixed chunks of 5 characters. Weights: the feature's count in the text (tf), or tf * idf when
 * {@link DocumentFrequencies} are given, with the BM25 idf ln(1 + (N - df + 0.5) / (df + 0.5)) that
 * {@code TopTermsMd5} uses (always > 0, so no feature gets a negative weight). An empty text, or
 * one without features, has fingerprint 0.
 *
 * <p>Thread-safe: share one instance (the analyzer keeps per-thread state; close it at the end).
 */
public final class Simhash64 implements Closeable {

  /** Fingerprint width f. */
  public static final int BITS = 64;

  /** How a text is cut into features. */
  public enum Features {
    /**
     * SmartChineseAnalyzer words of the raw text (it folds full-width forms, lower-cases and
     * Porter-stems Latin, drops punctuation); tokens without a letter or digit are dropped.
     */
    WORDS,
    /**
     * Overlapping character n-grams, n = 4, overlap 3 (step 1), of the normalized text ({@link
     * TextNormalizer#normalizeText}), in code points. Seed 004 stops one n-gram early ({@code
     * position < length - 4}); we take every n-gram, and a text shorter than 4 is one feature.
     */
    SHINGLES_4_3,
    /**
     * Fixed chunks of 5 code points of the normalized text; the last one may be shorter (seed 004).
     */
    CHUNKS_5
  }

  /*
   * Charikar's simhash: for each feature t with weight w(t) and hash h(t), add w(t) to component i
   * of a 64-vector when bit i of h(t) is 1 and subtract it when it is 0; bit i of the fingerprint is
   * 1 iff component i > 0. Two texts sharing most weighted features agree on most bits; for unrelated
   * texts each bit agrees with probability 1/2, so the expected distance is 32.
   *
   * h(t) = the first 8 bytes (big-endian) of MD5(UTF-8 bytes of t). MD5 because both seeds (003, 004)
   * and the rest of the pipeline use it, so a fingerprint can be recomputed by anyone with an MD5;
   * a non-cryptographic hash (Murmur3) would be faster, but per feature the MD5 of a few bytes is not
   * what dominates a page (tokenizing is). Bit i is (h >>> i) & 1, i = 0 the least significant.
   */
  private static final ThreadLocal<MessageDigest> MD5 = ThreadLocal.withInitial(TermText::newMd5);
  private static final int SHINGLE = 4;
  private static final int SHINGLE_OVERLAP = 3;
  private static final int CHUNK = 5;

  private final Features features;
  private final DocumentFrequencies documentFrequencies; // null: tf weights
  private final Analyzer analyzer; // WORDS only

  private Simhash64(Features features, DocumentFrequencies documentFrequencies) {
    if (features == null) {
      throw new IllegalArgumentException(
          "features (null) must be one of " + List.of(Features.values()));
    }
    this.features = features;
    this.documentFrequencies = documentFrequencies;
    this.analyzer = features == Features.WORDS ? new SmartChineseAnalyzer() : null;
  }

  /** Simhash with tf weights. */
  public static Simhash64 withTf(Features features) {
    return new Simhash64(features, null);
  }

  /** Simhash with tf * idf weights from {@code documentFrequencies} (same features as counted). */
  static Simhash64 withTfIdf(Features features, DocumentFrequencies documentFrequencies) {
    if (documentFrequencies == null) {
      throw new IllegalArgumentException(
          "documentFrequencies (null) are needed for tf-idf weights");
    }
    return new Simhash64(features, documentFrequencies);
  }

  public Features features() {
    return features;
  }

  /** The 64-bit simhash of {@code text}; 0 for null, empty or featureless text. */
  public long fingerprint(String text) {
    return fromWeights(weights(text));
  }

  /** Features of {@code text} with their weights, in first-seen order. */
  Map<String, Double> weights(String text) {
    Map<String, Double> weights = new LinkedHashMap<>();
    for (String feature : features(text)) {
      weights.merge(feature, 1.0, Double::sum);
    }
    if (documentFrequencies != null) {
      long docCount = Math.max(0, documentFrequencies.docCount());
      weights.replaceAll((feature, tf) -> tf * idf(docCount, documentFrequencies.docFreq(feature)));
    }
    return weights;
  }

  /** The features of {@code text}, in text order, repeated as often as they occur. */
  public List<String> features(String text) {
    if (text == null || text.isEmpty()) {
      return List.of();
    }
    switch (features) {
      case WORDS:
        return words(text);
      case SHINGLES_4_3:
        return grams(TextNormalizer.normalizeText(text), SHINGLE, SHINGLE - SHINGLE_OVERLAP);
      case CHUNKS_5:
        return grams(TextNormalizer.normalizeText(text), CHUNK, CHUNK);
      default:
        throw new AssertionError(features);
    }
  }

  /** BM25 idf ln(1 + (N - df + 0.5) / (df + 0.5)), df clamped to [0, N]. */
  public static double idf(long docCount, long docFreq) {
    long df = Math.min(docCount, Math.max(0, docFreq));
    return Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
  }

  /** Charikar's simhash of weighted features (see the comment above); 0 for no features. */
  static long fromWeights(Map<String, Double> weights) {
    double[] sums = new double[BITS];
    for (Map.Entry<String, Double> entry : weights.entrySet()) {
      add(sums, hash(entry.getKey()), entry.getValue());
    }
    return toBits(sums);
  }

  /**
   * Adds {@code weight} to the components where {@code hash} has a 1 bit, subtracts it elsewhere.
   */
  public static void add(double[] sums, long hash, double weight) {
    for (int i = 0; i < BITS; i++) {
      sums[i] += ((hash >>> i) & 1) != 0 ? weight : -weight;
    }
  }

  /** Bit i = 1 iff sums[i] > 0. */
  public static long toBits(double[] sums) {
    long bits = 0;
    for (int i = 0; i < BITS; i++) {
      if (sums[i] > 0) {
        bits |= 1L << i;
      }
    }
    return bits;
  }

  /** h(t): the first 8 bytes (big-endian) of MD5 of the UTF-8 bytes of {@code feature}. */
  public static long hash(String feature) {
    return hash(feature.getBytes(StandardCharsets.UTF_8));
  }

  /** The first 8 bytes (big-endian) of MD5 of {@code bytes}. */
  public static long hash(byte[] bytes) {
    return (long) BitUtil.VH_BE_LONG.get(MD5.get().digest(bytes), 0);
  }

  /** Hamming distance: the number of differing bits, 0..64. */
  public static int distance(long a, long b) {
    return Long.bitCount(a ^ b);
  }

  /** Seed 004's likeness: (64 - distance) / 64, 1 for equal fingerprints, 0 for complements. */
  public static double likeness(long a, long b) {
    return (BITS - distance(a, b)) / (double) BITS;
  }

  /** Releases the analyzer's per-thread state. */
  @Override
  public void close() {
    if (analyzer != null) {
      analyzer.close();
    }
  }

  private List<String> words(String text) {
    List<String> words = new ArrayList<>();
    try (TokenStream stream = analyzer.tokenStream("simhash", text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        if (TermText.hasLetterOrDigit(term)) {
          words.add(term.toString());
        }
      }
      stream.end();
    } catch (IOException e) {
      // StringReader input: smartcn does no real I/O, so this is a bug, not bad data.
      throw new UncheckedIOException(
          "smartcn failed on a string of " + text.length() + " chars", e);
    }
    return words;
  }

  /**
   * Grams of {@code size} code points every {@code step} code points; a shorter text is one gram.
   */
  static List<String> grams(String text, int size, int step) {
    int[] codePoints = text.codePoints().toArray();
    List<String> grams = new ArrayList<>();
    if (codePoints.length == 0) {
      return grams;
    }
    if (codePoints.length <= size) {
      grams.add(text);
      return grams;
    }
    for (int start = 0; start < codePoints.length; start += step) {
      int end = Math.min(codePoints.length, start + size);
      if (step < size && end - start < size) {
        break; // overlapping grams: only full ones
      }
      grams.add(new String(codePoints, start, end - start));
    }
    return grams;
  }
}
