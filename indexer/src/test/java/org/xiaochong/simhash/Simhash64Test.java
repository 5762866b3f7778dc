package org.xiaochong.simhash;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.xiaochong.fingerprint.DocumentFrequencies;
import org.xiaochong.simhash.Simhash64.Features;

class Simhash64Test {

  static final String APPLE_POST =
      "【供应】山东烟台栖霞红富士苹果大量上市，本基地常年供应优质红富士苹果，果面光洁，口感脆甜，"
          + "价格2.5元/斤，量大从优，欢迎各地客商来电咨询洽谈！联系人：张先生，电话：138-0013-8000。";

  static final Simhash64 WORDS = Simhash64.withTf(Features.WORDS);
  static final Simhash64 SHINGLES = Simhash64.withTf(Features.SHINGLES_4_3);
  static final Simhash64 CHUNKS = Simhash64.withTf(Features.CHUNKS_5);

  @AfterAll
  static void close() {
    WORDS.close();
  }

  static Simhash64 of(Features features) {
    return switch (features) {
      case WORDS -> WORDS;
      case SHINGLES_4_3 -> SHINGLES;
      case CHUNKS_5 -> CHUNKS;
    };
  }

  /**
   * Independent reference: the MD5 as a hex string, its first 16 hex digits as a BigInteger, bit i
   * by testBit, sums in a plain array, the result assembled in a BigInteger.
   */
  static long reference(Map<String, Double> weights) throws Exception {
    double[] v = new double[64];
    for (Map.Entry<String, Double> e : weights.entrySet()) {
      byte[] digest =
          MessageDigest.getInstance("MD5").digest(e.getKey().getBytes(StandardCharsets.UTF_8));
      String hex = String.format("%032x", new BigInteger(1, digest));
      BigInteger h = new BigInteger(hex.substring(0, 16), 16);
      for (int i = 0; i < 64; i++) {
        v[i] += h.testBit(i) ? e.getValue() : -e.getValue();
      }
    }
    BigInteger result = BigInteger.ZERO;
    for (int i = 0; i < 64; i++) {
      if (v[i] > 0) {
        result = result.setBit(i);
      }
    }
    return result.longValue();
  }

  static Map<String, Double> counts(List<String> features) {
    Map<String, Double> counts = new LinkedHashMap<>(); // text order, as Simhash64 sums
    features.forEach(f -> counts.merge(f, 1.0, Double::sum));
    return counts;
  }

  // Golden values: computed once by Simhash64 and checked against reference() in the same test, so
  // a
  // change of features, hashing or bit order fails here.
  @Test
  void fingerprint_seedSentence_goldenValues() throws Exception {
    String text = "The cat sat on the mat.";
    // normalizeText lower-cases and keeps one space between words of a spaced script
    assertThat(SHINGLES.features(text))
        .startsWith("the ", "he c", "e ca")
        .endsWith("mat.")
        .hasSize(20);
    assertThat(CHUNKS.features(text)).containsExactly("the c", "at sa", "t on ", "the m", "at.");
    assertThat(WORDS.features(text)).containsExactly("the", "cat", "sat", "on", "the", "mat");
    long[] golden = {GOLDEN_WORDS, GOLDEN_SHINGLES, GOLDEN_CHUNKS};
    Simhash64[] hashes = {WORDS, SHINGLES, CHUNKS};
    for (int i = 0; i < hashes.length; i++) {
      long actual = hashes[i].fingerprint(text);
      assertThat(actual)
          .as(hashes[i].features().name())
          .isEqualTo(reference(counts(hashes[i].features(text))));
      assertThat(actual).as(hashes[i].features().name()).isEqualTo(golden[i]);
    }
  }

  static final long GOLDEN_WORDS = 0xcb642c411b98260bL;
  static final long GOLDEN_SHINGLES = 0x076a362bc5af8b04L;
  static final long GOLDEN_CHUNKS = 0xe333ed28cde739d7L;
  static final long GOLDEN_APPLE_SHINGLES = 0xe89ad04a6394fa20L;

  @Test
  void fingerprint_chinesePost_goldenValue() throws Exception {
    long actual = SHINGLES.fingerprint(APPLE_POST);
    assertThat(actual).isEqualTo(reference(counts(SHINGLES.features(APPLE_POST))));
    assertThat(actual).isEqualTo(GOLDEN_APPLE_SHINGLES);
  }

  @Test
  void hash_md5OfUtf8_firstEightBytesBigEndian() {
    // MD5("") = d41d8cd98f00b204 e9800998ecf8427e
    assertThat(Simhash64.hash("")).isEqualTo(0xd41d8cd98f00b204L);
    // MD5("a") = 0cc175b9c0f1b6a8 31c399e269772661
    assertThat(Simhash64.hash("a")).isEqualTo(0x0cc175b9c0f1b6a8L);
  }

  @Test
  void fingerprint_tfIdf_matchesReferenceWithIdfWeights() throws Exception {
    DocumentFrequencies df =
        new DocumentFrequencies() {
          @Override
          public long docCount() {
            return 1000;
          }

          @Override
          public long docFreq(String term) {
            return term.contains("苹果") ? 900 : 3;
          }
        };
    Simhash64 tfIdf = Simhash64.withTfIdf(Features.SHINGLES_4_3, df);
    Map<String, Double> weights = counts(tfIdf.features(APPLE_POST));
    weights.replaceAll(
        (t, tf) -> tf * Math.log(1 + (1000 - df.docFreq(t) + 0.5) / (df.docFreq(t) + 0.5)));
    assertThat(tfIdf.fingerprint(APPLE_POST))
        .isEqualTo(reference(weights))
        .isNotEqualTo(SHINGLES.fingerprint(APPLE_POST));
  }

  @Test
  void features_shortAndEmptyText_oneOrNoFeature() {
    assertThat(SHINGLES.features("ab")).containsExactly("ab");
    assertThat(SHINGLES.features("abcd")).containsExactly("abcd");
    assertThat(SHINGLES.features("abcde")).containsExactly("abcd", "bcde");
    assertThat(SHINGLES.fingerprint("")).isZero();
    assertThat(CHUNKS.fingerprint(null)).isZero();
    assertThat(SHINGLES.features("😀😀😀😀😀"))
        .containsExactly("😀😀😀😀", "😀😀😀😀"); // code points, not chars
  }

  @Test
  void likeness_seedDefinition() {
    assertThat(Simhash64.likeness(0L, 0L)).isEqualTo(1.0);
    assertThat(Simhash64.likeness(0L, -1L)).isEqualTo(0.0);
    assertThat(Simhash64.likeness(0L, 0b111L)).isEqualTo(61 / 64.0);
  }

  @ParameterizedTest
  @EnumSource(Features.class)
  void fingerprint_identicalText_distanceZero(Features features) {
    assertThat(
            Simhash64.distance(
                of(features).fingerprint(longText(1)), of(features).fingerprint(longText(1))))
        .isZero();
  }

  @ParameterizedTest
  @EnumSource(Features.class)
  void fingerprint_oneCharacterEditInLongText_smallDistance(Features features) {
    String text = longText(7);
    int middle = text.length() / 2;
    String edited = text.substring(0, middle) + "鑫" + text.substring(middle + 1);
    assertThat(Simhash64.distance(of(features).fingerprint(text), of(features).fingerprint(edited)))
        .isLessThanOrEqualTo(6);
  }

  @ParameterizedTest
  @EnumSource(Features.class)
  void fingerprint_unrelatedTexts_distanceAbout32(Features features) {
    int pairs = 40;
    long sum = 0;
    for (int i = 0; i < pairs; i++) {
      sum +=
          Simhash64.distance(
              of(features).fingerprint(randomText(100 + 2 * i)),
              of(features).fingerprint(randomText(101 + 2 * i)));
    }
    // Each bit agrees with probability 1/2: the mean of 40 pairs is 32 +- 4/sqrt(40) (one sd 0.63).
    assertThat(sum / (double) pairs).isBetween(29.0, 35.0);
  }

  /** 2,000 random CJK ideographs (U+4E00..U+9FA5): unrelated for different seeds. */
  static String randomText(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 2000; i++) {
      text.append((char) (0x4E00 + random.nextInt(0x9FA6 - 0x4E00)));
    }
    return text.toString();
  }

  /** About 2,000 characters of random Chinese words, deterministic per seed. */
  static String longText(long seed) {
    String[] words = {
      "苹果", "供应", "山东", "价格", "联系", "优质", "基地", "大量", "欢迎", "客商", "物流", "冷库", "脆甜", "面议", "批发",
      "零售", "农场", "新鲜", "产地", "直销", "包装", "运输", "电话", "先生", "今年", "收购"
    };
    SplittableRandom random = new SplittableRandom(seed);
    StringBuilder text = new StringBuilder();
    List<String> sentence = new ArrayList<>();
    while (text.length() < 2000) {
      sentence.clear();
      for (int i = 0; i < 8; i++) {
        sentence.add(words[random.nextInt(words.length)]);
      }
      text.append(String.join("", sentence)).append(random.nextInt(1000)).append("，");
    }
    return text.toString();
  }
}
