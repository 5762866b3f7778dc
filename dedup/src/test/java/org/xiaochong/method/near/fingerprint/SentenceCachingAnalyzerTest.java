package org.xiaochong.method.near.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.cn.smart.SmartChineseAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;
import org.apache.lucene.analysis.tokenattributes.TypeAttribute;
import org.junit.jupiter.api.Test;

class SentenceCachingAnalyzerTest {
  private static final String[] PIECES = {
    "供应山东烟台一级红富士苹果",
    "本人有红富士苹果约",
    "吨",
    "产地山东烟台",
    "个大皮薄",
    "价格",
    "元/斤",
    "联系人",
    "王先生",
    "电话",
    "支持货到付款",
    "Fresh apples for sale",
    "iPhone 15 Pro",
    "价格面议",
    "联系人。",
    "蘋果價格",
    "ｆｕｌｌ ｗｉｄｔｈ",
    "2.5元",
    "138-0013-8000",
    "长期大量求购特级生姜，需求约",
    "😀",
    "  ",
    "。。",
    "a",
    "中",
    "qq号码123456789"
  };

  /** The tokens, offsets, types and position increments of a text, one line per token. */
  private static List<String> tokens(Analyzer analyzer, String text) throws IOException {
    List<String> out = new ArrayList<>();
    try (TokenStream stream = analyzer.tokenStream("near", text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      OffsetAttribute offset = stream.addAttribute(OffsetAttribute.class);
      TypeAttribute type = stream.addAttribute(TypeAttribute.class);
      PositionIncrementAttribute increment = stream.addAttribute(PositionIncrementAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        out.add(
            term
                + " "
                + offset.startOffset()
                + "-"
                + offset.endOffset()
                + " "
                + type.type()
                + " +"
                + increment.getPositionIncrement());
      }
      stream.end();
      out.add("end " + offset.endOffset());
    }
    return out;
  }

  @Test
  void givesSmartcnsTokensForRepeatedAndNewSentences() throws IOException {
    NearKeyTimes times = new NearKeyTimes();
    try (Analyzer smartcn = new SmartChineseAnalyzer();
        Analyzer cached = new SentenceCachingAnalyzer(times)) {
      SplittableRandom random = new SplittableRandom(42);
      for (int i = 0; i < 2000; i++) {
        StringBuilder text = new StringBuilder();
        int pieces =
            1
                + random.nextInt(
                    i % 50 == 0 ? 200 : 12); // some texts past smartcn's 1024-char buffer
        for (int p = 0; p < pieces; p++) {
          text.append(PIECES[random.nextInt(PIECES.length)]);
          int cut =
              random.nextInt(8); // mostly sentence ends ('\n' is none for smartcn's BreakIterator)
          text.append(cut == 0 ? "" : cut == 1 ? "，" : cut == 2 ? "\n" : "。");
        }
        String input = text.toString();
        assertThat(tokens(cached, input)).as(input).isEqualTo(tokens(smartcn, input));
      }
      String longSentence = "长期大量求购特级生姜".repeat(10); // longer than MAX_SENTENCE_CHARS: never cached
      assertThat(tokens(cached, longSentence)).isEqualTo(tokens(smartcn, longSentence));
      assertThat(tokens(cached, "")).isEqualTo(tokens(smartcn, ""));
    }
    NearKeyTimes.Snapshot counts = times.snapshot();
    assertThat(counts.sentenceHits()).isGreaterThan(counts.sentenceMisses()); // the pieces repeat
  }

  @Test
  void forgetsTheLeastRecentlyUsedSentencesBeyondItsBound() throws IOException {
    NearKeyTimes times = new NearKeyTimes();
    int sentences = 100;
    try (Analyzer smartcn = new SmartChineseAnalyzer();
        Analyzer cached = new SentenceCachingAnalyzer(times, 5 * sentences)) {
      for (int round = 0; round < 2; round++) {
        for (int i = 0; i < sentences + 1; i++) { // 6 chars each: one more than fits
          String text =
              "求购" + Integer.toString(1000 + i, 36).replace('0', '甲').replace('1', '乙') + "号";
          assertThat(tokens(cached, text)).isEqualTo(tokens(smartcn, text));
        }
      }
      // Each round met every sentence once, in the same order: the LRU map had always just dropped
      // it.
      assertThat(times.snapshot().sentenceHits()).isZero();
      String text =
          "求购" + Integer.toString(1000 + sentences, 36).replace('0', '甲').replace('1', '乙') + "号";
      assertThat(tokens(cached, text)).isEqualTo(tokens(smartcn, text));
      assertThat(times.snapshot().sentenceHits()).isEqualTo(1); // the last one is still known
    }
  }
}
