package org.xiaochong.method.near.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.cn.smart.SmartChineseAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xiaochong.fingerprint.DocumentFrequencies;

class TopTermsMd5Test {

  /** A typical crawled supply post, about 200 chars. */
  static final String APPLE_POST =
      "【供应】山东烟台栖霞红富士苹果大量上市\n"
          + "本基地常年供应优质红富士苹果，果面光洁，口感脆甜，个大，果径80mm以上，"
          + "现有库存50万斤，价格2.5元/斤，量大从优，可代办冷库储存和物流托运，"
          + "支持视频看货，欢迎各地客商来电咨询洽谈！联系人：张先生，电话：138-0013-8000，"
          + "地址：山东省烟台市栖霞市桃村镇，诚信经营，保证质量，货到付款。";

  static TopTermsMd5 near;

  @BeforeAll
  static void setUp() {
    near = new TopTermsMd5(NearConfig.defaults());
  }

  @AfterAll
  static void tearDown() {
    near.close();
  }

  @Test
  void smartcn_rawAnalyzerOnSentence_segmentsAsLuceneGolden() throws Exception {
    // Golden from Lucene's TestSmartChineseAnalyzer#testChineseStopWordsOff (stop words off keeps
    // "，").
    List<String> tokens = new ArrayList<>();
    try (SmartChineseAnalyzer raw = new SmartChineseAnalyzer(false);
        TokenStream stream = raw.tokenStream("f", "我购买了道具和服装。")) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        tokens.add(term.toString());
      }
      stream.end();
    }
    assertThat(tokens).startsWith("我", "购买", "了", "道具", "和", "服装");
  }

  @Test
  void rankedTerms_sentenceWithStopWords_keepsContentWords() {
    assertThat(near.rankedTerms("我购买了道具和服装。")).containsExactly("服装", "道具");
  }

  @Test
  void fingerprint_shortPost_matchesGoldenMd5s() {
    // Locks format near-md5/5 (word MD5s unchanged from /1; /3 adds the q-gram and shingle
    // families; /4 reads a field that is one id-like digit run as a number; /5 repairs or drops
    // text broken by a wrong encoding; /6 segments each run between breaks on its own): MD5 of the
    // UTF-8 term; values computed independently with Python
    // hashlib.md5(term.encode()).hexdigest(). Rank: tf desc (the phone field adds a second tel:
    // count),
    // then term asc (digits < 't' < Han).
    Fingerprints prints =
        near.fingerprint(
            List.of("供应优质红富士苹果，价格2.5元/斤，联系电话13800138000，欢迎来电咨询！"), List.of("138 0013 8000"));
    assertThat(TopTermsMd5.FORMAT).isEqualTo("near-md5/7");
    assertThat(prints.outcome()).isEqualTo(NearOutcome.OK);
    assertThat(prints.terms()).containsExactly("tel:13800138000", "2.5元", "红富士", "苹果");
    assertThat(prints.hexList())
        .containsExactly(
            "512482eceded81808e0d5ac372a3b9db",
            "25c8f35aef84eda3bdff2ffe45e441f3",
            "ee7af60c028e87c258228fcdc30355ff",
            "e6803e21b9c61f9ab3d04088638cecd2");
    assertThat(prints.high(0)).isEqualTo(0x512482eceded8180L);
    assertThat(prints.low(0)).isEqualTo(0x8e0d5ac372a3b9dbL);
  }

  @Test
  void fingerprint_typicalPost_matchesGoldenTerms() {
    // tf desc, then term asc. smartcn does not know 栖霞 (栖 / 霞); 果 comes from 果面 and 果径.
    assertThat(near.rankedTerms(APPLE_POST))
        .containsExactly(
            "果",
            "栖",
            "红富士",
            "苹果",
            "货",
            "霞",
            "2.5元",
            "50万斤",
            "80mm",
            "tel:13800138000",
            "上市",
            "付款",
            "储存",
            "光洁",
            "冷库",
            "口感",
            "客商",
            "山东",
            "山东省",
            "市",
            "库存",
            "张",
            "径",
            "支持",
            "村镇",
            "桃",
            "烟台",
            "烟台市",
            "现有",
            "甜",
            "看",
            "脆",
            "视频",
            "面");
  }

  @Test
  void fingerprint_traditionalTwin_sameFingerprints() {
    Fingerprints simplified = near.fingerprint("供应优质红富士苹果，价格2.5元/斤，联系电话13800138000，欢迎来电咨询！山东烟台");
    Fingerprints traditional = near.fingerprint("供應優質紅富士蘋果，價格2.5元/斤，聯繫電話13800138000，歡迎來電諮詢！山東煙臺");
    assertThat(traditional.hexList()).isEqualTo(simplified.hexList());
  }

  @Test
  void fingerprint_tomatoSynonyms_fold() {
    Fingerprints xihongshi = near.fingerprint("大量出售西红柿，洋柿子也有");
    Fingerprints fanqie = near.fingerprint("大量供应番茄，番茄也有");
    assertThat(xihongshi.terms()).containsExactly("番茄");
    assertThat(fanqie.hexList()).isEqualTo(xihongshi.hexList());
    assertThat(near.rankedTerms("西红柿酱")).containsExactly("番茄酱");
  }

  @Test
  void fingerprint_reformattedPhone_samePhoneTerm() {
    for (String phone :
        List.of(
            "13800138000",
            "138-0013-8000",
            "138 0013 8000",
            "+86 138 0013 8000",
            "(0086)13800138000",
            "１３８－００１３－８０００")) {
      assertThat(near.rankedTerms("电话：" + phone + " 张先生"))
          .as(phone)
          .containsExactly("tel:13800138000", "张");
    }
    assertThat(near.rankedTerms(List.of("张先生"), List.of("+86-138-0013-8000")))
        .containsExactly("tel:13800138000", "张");
  }

  @Test
  void fingerprint_changedPrice_sharesMostAndBeatsSameSellerOtherProduct() {
    Fingerprints original = near.fingerprint(APPLE_POST);
    Fingerprints repriced =
        near.fingerprint(APPLE_POST.replace("2.5元", "2.8元").replace("50万斤", "45万斤"));
    Fingerprints otherProduct =
        near.fingerprint(
            "【供应】山东烟台栖霞大白菜大量上市\n本合作社常年供应新鲜大白菜，包心紧实，单棵5斤左右，价格0.3元/斤，"
                + "量大从优，欢迎各地客商来电咨询！联系人：张先生，电话：138-0013-8000，地址：山东省烟台市栖霞市桃村镇。");

    double repricedSimilarity = NearSimilarity.jaccard(original, repriced);
    double otherSimilarity = NearSimilarity.jaccard(original, otherProduct);
    System.out.printf(
        "near: repriced jaccard %.3f (shared %d of %d), same seller other product %.3f (shared %d)%n",
        repricedSimilarity,
        NearSimilarity.sharedCount(original, repriced),
        original.size(),
        otherSimilarity,
        NearSimilarity.sharedCount(original, otherProduct));
    assertThat(repricedSimilarity).isGreaterThan(0.85);
    assertThat(otherSimilarity).isLessThan(0.4);
    NearConfig config = near.config();
    assertThat(repricedSimilarity).isGreaterThanOrEqualTo(config.minSimilarity());
    assertThat(otherSimilarity).isLessThan(config.minSimilarity());
    // Candidate keys: the repost is found through its unchanged top terms.
    assertThat(
            NearSimilarity.sharedCount(
                original.top(config.pre()).sortedPrefixes(), repriced.sortedPrefixes()))
        .isEqualTo(3);
  }

  @Test
  void fingerprint_onlyPunctuation_emptyAfterSegmentation() {
    Fingerprints prints = near.fingerprint("！！！。。。，，…… ---***");
    assertThat(prints.outcome()).isEqualTo(NearOutcome.EMPTY_AFTER_SEGMENTATION);
    assertThat(prints.isEmpty()).isTrue();
    assertThat(prints.top(3).isEmpty()).isTrue();
  }

  @Test
  void fingerprint_onlyEmoji_emptyAfterSegmentation() {
    assertThat(near.fingerprint("😀😀🍎🍎👍", "🌽").outcome())
        .isEqualTo(NearOutcome.EMPTY_AFTER_SEGMENTATION);
  }

  @Test
  void fingerprint_onlyStopWords_onlyStopwords() {
    assertThat(near.fingerprint("欢迎来电咨询，价格面议！").outcome()).isEqualTo(NearOutcome.ONLY_STOPWORDS);
  }

  @Test
  void fingerprint_nullAndBlankFields_emptyAfterNormalize() {
    Fingerprints prints = near.fingerprint(null, "", " \t\u3000\n", "\u200B");
    assertThat(prints.outcome()).isEqualTo(NearOutcome.EMPTY_AFTER_NORMALIZE);
    assertThat(prints.size()).isZero();
  }

  @Test
  void fingerprint_fewerTermsThanPre_givesFewerKeys() {
    Fingerprints prints = near.fingerprint("苹果");
    assertThat(prints.top(3).size()).isEqualTo(1);
    assertThat(prints.top(3).terms()).containsExactly("苹果");
  }

  @Test
  void fingerprint_oneMegabytePost_cappedAtMaxChars() {
    StringBuilder post = new StringBuilder(1 << 20);
    while (post.length() < (1 << 20)) {
      post.append(APPLE_POST);
    }
    long start = System.nanoTime();
    Fingerprints prints = near.fingerprint(post.toString());
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.out.println(
        "near: 1 MB post fingerprinted in " + millis + " ms, " + prints.size() + " terms");
    assertThat(prints.truncated()).isTrue();
    assertThat(prints.analyzedChars()).isEqualTo(NearConfig.DEFAULT_MAX_CHARS);
    assertThat(prints.top(6).terms()).contains("红富士", "苹果");
    assertThat(near.fingerprint(APPLE_POST).truncated()).isFalse();
  }

  @Test
  void fingerprint_capInsideSurrogatePair_doesNotSplitIt() {
    try (TopTermsMd5 small = new TopTermsMd5(NearConfig.defaults().withMaxChars(16))) {
      Fingerprints prints = small.fingerprint("苹果苹果苹果苹果苹果苹果苹果苹😀😀😀");
      assertThat(prints.truncated()).isTrue();
      assertThat(prints.analyzedChars()).isEqualTo(15);
    }
  }

  @Test
  void fingerprint_mixedScripts_keepsEachScript() {
    assertThat(near.rankedTerms("ＦＵＪＩ Apples 红富士 iPhone15 りんご 사과 2.50元 5kg"))
        .containsExactly(
            "15", "2.5元", "5kg", "appl", "fuji", "iphon", "ご", "り", "ん", "红富士", "과", "사");
  }

  @Test
  void fingerprint_sameInputTwice_sameResult() {
    assertThat(near.fingerprint(APPLE_POST).hexList())
        .isEqualTo(near.fingerprint(APPLE_POST).hexList());
  }

  @Test
  void fingerprint_manyThreadsSharingOneInstance_agreeWithOneThread() throws Exception {
    List<String> posts = List.of(APPLE_POST, "大量收购玉米，价格面议，联系人李女士 13912345678", "供應優質紅富士蘋果 2.5元/斤");
    List<List<String>> expected = new ArrayList<>();
    for (String post : posts) {
      expected.add(near.fingerprint(post).hexList());
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        results.add(
            pool.submit(
                () -> {
                  for (int round = 0; round < 50; round++) {
                    for (int i = 0; i < posts.size(); i++) {
                      if (!near.fingerprint(posts.get(i)).hexList().equals(expected.get(i))) {
                        return false;
                      }
                    }
                  }
                  return true;
                }));
      }
      for (Future<Boolean> result : results) {
        assertThat(result.get()).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void fingerprint_withIdf_ranksRareTermsFirst() {
    Map<String, Long> docFreq = Map.of("苹果", 9_000L, "红富士", 5_000L, "烟台", 10L);
    DocumentFrequencies frequencies =
        new DocumentFrequencies() {
          @Override
          public long docCount() {
            return 10_000;
          }

          @Override
          public long docFreq(String term) {
            return docFreq.getOrDefault(term, 1_000L);
          }
        };
    try (TopTermsMd5 byIdf = new TopTermsMd5(NearConfig.defaults().withUseIdf(true), frequencies);
        TopTermsMd5 byTfDespiteFrequencies = new TopTermsMd5(NearConfig.defaults(), frequencies)) {
      assertThat(byIdf.ranksByIdf()).isTrue();
      assertThat(byTfDespiteFrequencies.ranksByIdf()).isFalse();
      assertThat(byIdf.rankedTerms("苹果苹果红富士烟台")).containsExactly("烟台", "红富士", "苹果");
      assertThat(byTfDespiteFrequencies.rankedTerms("苹果苹果红富士烟台"))
          .containsExactly("苹果", "烟台", "红富士");
      // Same set either way: only the order (and so the top-pre keys) depends on idf.
      assertThat(byIdf.fingerprint(APPLE_POST).sortedPrefixes())
          .isEqualTo(byTfDespiteFrequencies.fingerprint(APPLE_POST).sortedPrefixes());
    }
  }

  @Test
  void fingerprint_typicalPost_printsThroughputOnOneThread() {
    // A measurement, not an assertion: fingerprints per second for APPLE_POST on this thread, after
    // a
    // time-based warm-up (smartcn needs a few seconds of JIT). The machine is shared: read it as a
    // rough
    // lower bound. JMH belongs in bench/ (TopTermsMd5Benchmark, not written yet).
    long warmUpEnd = System.nanoTime() + 1_500_000_000L;
    while (System.nanoTime() < warmUpEnd) {
      near.fingerprint(APPLE_POST);
    }
    int posts = 0;
    long start = System.nanoTime();
    long elapsed;
    do {
      for (int i = 0; i < 100; i++) {
        near.fingerprint(APPLE_POST);
      }
      posts += 100;
      elapsed = System.nanoTime() - start;
    } while (elapsed < 2_000_000_000L);
    System.out.printf(
        "near: %d-char post: %.0f fingerprints/s on one thread (%d posts in %.2f s)%n",
        APPLE_POST.length(), posts / (elapsed / 1e9), posts, elapsed / 1e9);
    // For comparison: smartcn alone on the raw post (no normalization, no sentence breaks).
    int analyzed = 0;
    try (SmartChineseAnalyzer analyzer = new SmartChineseAnalyzer()) {
      long analyzerStart = System.nanoTime();
      long analyzerElapsed;
      do {
        for (int i = 0; i < 100; i++) {
          try (TokenStream stream = analyzer.tokenStream("f", APPLE_POST)) {
            stream.reset();
            while (stream.incrementToken()) {
              // count only
            }
            stream.end();
          }
        }
        analyzed += 100;
        analyzerElapsed = System.nanoTime() - analyzerStart;
      } while (analyzerElapsed < 1_000_000_000L);
      System.out.printf(
          "near: smartcn alone on the raw post: %.0f analyses/s%n",
          analyzed / (analyzerElapsed / 1e9));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(posts).isPositive();
  }
}
