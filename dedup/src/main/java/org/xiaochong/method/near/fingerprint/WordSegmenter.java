package org.xiaochong.method.near.fingerprint;

import static org.xiaochong.method.near.fingerprint.NearTermKeys.breakSentences;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
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
import org.xiaochong.fingerprint.TermText;
import org.xiaochong.normalize.ChineseFolding;
import org.xiaochong.normalize.TextNormalizer;
import org.xiaochong.normalize.WordLists;

/**
 * Steps 3 to 7 of {@link TopTermsMd5}'s pipeline over a post's joined fields: folding, number
 * terms, sentence breaks, smartcn segmentation of each run between two breaks, and the words kept
 * (not a stop word, with a letter or digit), each counted with the mask of its field.
 *
 * <p>Thread-safe: the analyzer keeps one token stream per thread (Lucene's {@code Analyzer} reuse
 * strategy). Close it to release the per-thread analysis state.
 */
final class WordSegmenter implements Closeable {
  private static final String FIELD = "near";

  private final ChineseFolding folding;
  private final CharArraySet stopWords; // looked up on the token's chars: no String for a stop word
  private final Analyzer analyzer;

  /**
   * @throws IllegalArgumentException if the stop word list is missing or malformed
   * @throws UncheckedIOException if the stop word list cannot be read
   */
  WordSegmenter(ChineseFolding folding, String stopwordsLocation, NearKeyTimes times) {
    this.folding = folding;
    this.stopWords = loadStopWords(stopwordsLocation, folding);
    // SmartChineseAnalyzer with its default stop set (punctuation only), remembering the words of
    // sentences it segmented (the same tokens, see SentenceCachingAnalyzer).
    this.analyzer = new SentenceCachingAnalyzer(times);
  }

  /**
   * Counts the number terms and the kept words of {@code post}'s joined fields into its counts, and
   * adds the kept words in text order to {@code sequence} (null: none); returns the number of stop
   * words dropped.
   *
   * <p>Steps 3-5 run per field, so that each number term and each word knows its field; the pieces
   * are joined as the fields were, so smartcn sees the same text as for the joined fields.
   */
  int countWords(PostFields post, List<String> sequence) {
    StringBuilder joined = post.joined;
    int analyzedChars = joined.length();
    int[] pieceStart = post.pieceStart;
    int[] pieceBit = post.pieceBit;
    int pieces = post.pieces;
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
        PostFields.count(post.counts, number.getKey(), number.getValue(), pieceBit[p]);
      }
      boolean breakBefore =
          words.length() == 0
              || words.charAt(words.length() - 1) == TopTermsMd5.SENTENCE_BREAK
              || (!piece.isEmpty() && piece.charAt(0) == TopTermsMd5.SENTENCE_BREAK);
      if (!breakBefore) {
        words.append(TopTermsMd5.SENTENCE_BREAK);
      }
      wordStart[p] = words.length();
      words.append(piece);
      used = p + 1;
    }
    return countWords(
        words.toString(), post.counts, sequence, Arrays.copyOf(wordStart, used), pieceBit);
  }

  /**
   * Segments {@code words} and counts kept tokens; returns the number of stop words dropped. Each
   * run between two {@link TopTermsMd5#SENTENCE_BREAK}s goes to smartcn on its own, so its sentence
   * cache meets the runs posts repeat (a contact line, a title, the text between two numbers).
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
      int to = text.indexOf(TopTermsMd5.SENTENCE_BREAK, from);
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

  /** Releases the analyzer's per-thread state. */
  @Override
  public void close() {
    analyzer.close();
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
}
