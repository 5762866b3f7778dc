package org.xiaochong.method.near.fingerprint;

import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.cn.smart.HMMChineseTokenizer;
import org.apache.lucene.analysis.cn.smart.SmartChineseAnalyzer;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.analysis.tokenattributes.TypeAttribute;

/**
 * {@link SmartChineseAnalyzer} with its default stop set (the same chain: smartcn's HMM tokenizer,
 * Porter stemming, the punctuation stop set) whose tokenizer remembers the words of the sentences
 * it segmented last, so a sentence seen again is not segmented again. Gives the tokens, offsets and
 * types smartcn gives, for any text.
 *
 * <p>Why it is exact: {@link HMMChineseTokenizer} cuts its input into sentences with a sentence
 * {@link java.text.BreakIterator} and segments each sentence on its own ({@code
 * WordSegmenter.segmentSentence}: the HHMM word graph over the sentence's chars with the static
 * dictionaries), so a sentence's words and their offsets within it depend on the sentence's chars
 * only. The cut into sentences is left to smartcn's base class; only the segmentation of a sentence
 * is looked up. Offsets are kept relative to the sentence and shifted on replay, which equals what
 * smartcn reports because this analyzer has no char filter ({@code correctOffset} is the identity).
 *
 * <p>Why it pays: posts repeat sentences (a seller's contact line, the boilerplate of a site, the
 * same product title, the pieces between the numbers that step 4 of {@link TopTermsMd5} takes out),
 * and the segmentation is most of the cost of a near index build (bench/RESULTS.md).
 *
 * <p>Memory is bounded: each tokenizer (one per thread, Lucene's reuse strategy) keeps sentences of
 * {@link #MAX_CACHED_CHARS} chars in all at most, dropping the least recently used. Hit and miss
 * counts go to {@code times} when given.
 */
final class SentenceCachingAnalyzer extends Analyzer {
  /**
   * Chars of sentence text each tokenizer remembers (their words take at most as many chars and
   * three ints per word more): under 20 MB per thread in the worst case, a few MB for posts.
   */
  static final int MAX_CACHED_CHARS = 1 << 20;

  private final NearKeyTimes times; // null: not counted
  private final int maxCachedChars;

  SentenceCachingAnalyzer(NearKeyTimes times) {
    this(times, MAX_CACHED_CHARS);
  }

  SentenceCachingAnalyzer(NearKeyTimes times, int maxCachedChars) {
    this.times = times;
    this.maxCachedChars = maxCachedChars;
  }

  @Override
  protected TokenStreamComponents createComponents(String fieldName) {
    // As SmartChineseAnalyzer.createComponents with its default stop set.
    Tokenizer tokenizer = new CachingTokenizer(times, maxCachedChars);
    TokenStream result = new PorterStemFilter(tokenizer);
    result = new StopFilter(result, SmartChineseAnalyzer.getDefaultStopSet());
    return new TokenStreamComponents(tokenizer, result);
  }

  /**
   * The words of one sentence: word i is {@code chars[ends[i - 1], ends[i])} (from 0 for i = 0), at
   * offsets {@code offsets[2i]} to {@code offsets[2i + 1]} relative to the sentence's start.
   */
  private record Words(char[] chars, int[] ends, int[] offsets) {
    int size() {
      return ends.length;
    }
  }

  private static final Words NONE = new Words(new char[0], new int[0], new int[0]);

  /**
   * smartcn's tokenizer, with a per-instance LRU map from sentence text to its words. Not
   * thread-safe.
   */
  private static final class CachingTokenizer extends HMMChineseTokenizer {
    private final CharTermAttribute term = addAttribute(CharTermAttribute.class);
    private final OffsetAttribute offsetAttribute = addAttribute(OffsetAttribute.class);
    private final TypeAttribute type = addAttribute(TypeAttribute.class);
    private final LinkedHashMap<String, Words> cache =
        new LinkedHashMap<>(1024, 0.75f, true); // access order: LRU
    private final NearKeyTimes times;
    private final int maxCachedChars;
    private long cachedChars;
    private Words words = NONE;
    private int next;
    private int base;
    private long hits;
    private long misses;

    CachingTokenizer(NearKeyTimes times, int maxCachedChars) {
      this.times = times;
      this.maxCachedChars = maxCachedChars;
    }

    @Override
    protected void setNextSentence(int sentenceStart, int sentenceEnd) {
      base = offset + sentenceStart;
      next = 0;
      String sentence = new String(buffer, sentenceStart, sentenceEnd - sentenceStart);
      Words known = cache.get(sentence);
      if (known != null) {
        hits++;
        words = known;
        return;
      }
      misses++;
      words = segment(sentenceStart, sentenceEnd);
      cache.put(sentence, words);
      cachedChars += sentence.length();
      for (var eldest = cache.entrySet().iterator();
          cachedChars > maxCachedChars && eldest.hasNext(); ) {
        cachedChars -= eldest.next().getKey().length();
        eldest.remove();
      }
    }

    /** smartcn's words of the sentence, read off its own tokenizer. */
    private Words segment(int sentenceStart, int sentenceEnd) {
      super.setNextSentence(sentenceStart, sentenceEnd);
      char[] chars =
          new char[sentenceEnd - sentenceStart]; // words do not overlap: mostly long enough
      int length = 0;
      int[] ends = new int[16];
      int[] offsets = new int[32];
      int n = 0;
      while (super.incrementWord()) {
        if (n == ends.length) {
          ends = Arrays.copyOf(ends, 2 * n);
          offsets = Arrays.copyOf(offsets, 4 * n);
        }
        if (length + term.length() > chars.length) {
          chars = Arrays.copyOf(chars, Math.max(2 * chars.length, length + term.length()));
        }
        System.arraycopy(term.buffer(), 0, chars, length, term.length());
        length += term.length();
        ends[n] = length;
        offsets[2 * n] = offsetAttribute.startOffset() - base;
        offsets[2 * n + 1] = offsetAttribute.endOffset() - base;
        n++;
      }
      return n == 0
          ? NONE
          : new Words(
              Arrays.copyOf(chars, length), Arrays.copyOf(ends, n), Arrays.copyOf(offsets, 2 * n));
    }

    @Override
    protected boolean incrementWord() {
      if (next >= words.size()) {
        return false;
      }
      clearAttributes();
      int from = next == 0 ? 0 : words.ends()[next - 1];
      term.copyBuffer(words.chars(), from, words.ends()[next] - from);
      offsetAttribute.setOffset(
          base + words.offsets()[2 * next], base + words.offsets()[2 * next + 1]);
      type.setType("word"); // as HMMChineseTokenizer
      next++;
      return true;
    }

    @Override
    public void reset() throws IOException {
      super.reset();
      words = NONE;
      next = 0;
    }

    @Override
    public void close() throws IOException {
      if (times != null && (hits | misses) != 0) {
        times.addSentences(hits, misses); // once per text: cheap
      }
      hits = 0;
      misses = 0;
      super.close();
    }
  }
}
