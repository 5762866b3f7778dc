package org.xiaochong.method.linkage;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ColumnKindTest {
  private static int level(ColumnKind kind, String a, String b) {
    return kind.level(Values.of(kind, a), Values.of(kind, b));
  }

  @Test
  void anEmptyValueIsNoEvidenceNotADisagreement() {
    for (ColumnKind kind : ColumnKind.values()) {
      assertThat(level(kind, "", "smith")).isEqualTo(ColumnKind.NO_EVIDENCE);
      assertThat(level(kind, null, "smith")).isEqualTo(ColumnKind.NO_EVIDENCE);
      assertThat(level(kind, "  ", "smith")).isEqualTo(ColumnKind.NO_EVIDENCE);
    }
  }

  @Test
  void namesCompareByJaroWinklerInAnyWordOrderAndByInitials() {
    ColumnKind name = ColumnKind.NAME;
    assertThat(level(name, "Müller", "muller")).isEqualTo(name.levels() - 1);
    assertThat(level(name, "mitchell", "mitchel")).isEqualTo(3);
    assertThat(level(name, "van der berg anna", "anna van der berg")).isEqualTo(3);
    assertThat(level(name, "j", "john")).isEqualTo(1);
    assertThat(level(name, "mitchell", "o'brien")).isZero();
  }

  @Test
  void codesCompareByDamerauEditsSoASwapIsOneEdit() {
    ColumnKind code = ColumnKind.CODE;
    assertThat(level(code, "1804974", "1804974")).isEqualTo(3);
    assertThat(level(code, "1804974", "1809474")).isEqualTo(2);
    assertThat(level(code, "1804974", "1809475")).isEqualTo(1);
    assertThat(level(code, "1804974", "2299113")).isZero();
    assertThat(level(code, "21 19", "2119")).isEqualTo(3);
  }

  @Test
  void datesInOtherFormatsAreTheSameDateAndASwapIsClose() {
    ColumnKind date = ColumnKind.DATE;
    assertThat(level(date, "2024-03-07", "20240307")).isEqualTo(3);
    assertThat(level(date, "2024年3月7日", "7/3/2024")).isEqualTo(3);
    assertThat(level(date, "2024-03-07", "2024-07-03")).isEqualTo(2);
    assertThat(level(date, "19560409", "19560419")).isEqualTo(2);
    assertThat(level(date, "2024-03-07", "2024-09-30")).isEqualTo(1);
    assertThat(level(date, "1956-04-09", "1990-12-25")).isZero();
  }

  @Test
  void numbersCompareByRelativeDifferenceAndUnits() {
    ColumnKind number = ColumnKind.NUMBER;
    assertThat(level(number, "3.50元", "3.5元")).isEqualTo(3);
    assertThat(level(number, "100", "100.5")).isEqualTo(2);
    assertThat(level(number, "100", "108")).isEqualTo(1);
    assertThat(level(number, "100", "150")).isZero();
    assertThat(level(number, "100 kg", "100 斤")).isZero();
    assertThat(level(number, "about a hundred", "100")).isZero();
  }

  @Test
  void placesWithinEachOtherAgreeCloselyAndPhonesByTheirDigits() {
    assertThat(level(ColumnKind.PLACE, "北京市朝阳区", "朝阳区")).isEqualTo(2);
    assertThat(level(ColumnKind.PLACE, "kings cross sydney", "kings cross")).isEqualTo(2);
    assertThat(level(ColumnKind.PLACE, "北京市", "上海市")).isZero();
    assertThat(level(ColumnKind.PHONE, "310/246-1501", "310-246-1501")).isEqualTo(3);
    assertThat(level(ColumnKind.PHONE, "+86 138 0013 8000", "13800138000")).isEqualTo(3);
    assertThat(level(ColumnKind.PHONE, "010 2461501", "2461501")).isEqualTo(2);
  }

  @Test
  void textComparesBySharedTokensIdeographPairsIncluded() {
    ColumnKind text = ColumnKind.TEXT;
    assertThat(level(text, "供应红富士苹果", "供应红富士苹果，量大")).isGreaterThanOrEqualTo(3);
    assertThat(level(text, "the cascade correlation learning architecture", "cascade correlation"))
        .isEqualTo(2);
    assertThat(level(text, "供应红富士苹果", "求购大白菜")).isZero();
  }

  @Test
  void oddUnicodeAndHugeValuesDoNotBreakAComparison() {
    String huge = "甲".repeat(LinkageIndex.MAX_VALUE_CHARS);
    for (ColumnKind kind : ColumnKind.values()) {
      assertThat(level(kind, "\uD83D\uDE00 e\u0301 \u200B", "\uD83D\uDE00 é"))
          .isBetween(ColumnKind.NO_EVIDENCE, kind.levels() - 1);
      assertThat(level(kind, huge, huge + "乙")).isBetween(0, kind.levels() - 1);
    }
  }

  /**
   * Text over few symbols (so that tokens repeat and pairs share some): words, ideographs, spaces.
   */
  private static String text(java.util.SplittableRandom random) {
    String[] symbols = {"a", "b", "ab", " ", " ", "红", "富", "士", "\uD840\uDC00", "1"};
    StringBuilder text = new StringBuilder();
    for (int i = random.nextInt(12); i > 0; i--) {
      text.append(symbols[random.nextInt(symbols.length)]);
    }
    return text.toString();
  }

  @Test
  void tokenShareOnHashesIsTheJaccardSimilarityOfTheTokenSets() {
    java.util.SplittableRandom random = new java.util.SplittableRandom(3);
    for (int i = 0; i < 20_000; i++) {
      String a = text(random);
      String b = text(random);
      java.util.Set<String> left = new java.util.HashSet<>(Values.tokens(a));
      java.util.Set<String> right = new java.util.HashSet<>(Values.tokens(b));
      java.util.Set<String> common = new java.util.HashSet<>(left);
      common.retainAll(right);
      double jaccard =
          left.isEmpty() || right.isEmpty()
              ? 0
              : common.size() / (double) (left.size() + right.size() - common.size());
      assertThat(Values.tokenHashes(a)).as(a).hasSize(left.size());
      assertThat(ColumnKind.tokenShare(a, b)).as(a + " | " + b).isEqualTo(jaccard);
    }
  }
}
