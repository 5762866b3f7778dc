package org.xiaochong.normalize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TextNormalizerTest {

  @Test
  void normalizeText_fullWidthLettersDigitsPunctuation_halfWidth() {
    assertThat(TextNormalizer.normalizeText("ＡＢＣ１２３！？，：；（）")).isEqualTo("abc123!?,:;()");
  }

  @Test
  void normalizeText_fullWidthInsideChinese_sameAsHalfWidth() {
    assertThat(TextNormalizer.normalizeText("价格２．５元／斤，电话１３８００１３８０００"))
        .isEqualTo(TextNormalizer.normalizeText("价格2.5元/斤,电话13800138000"));
  }

  @Test
  void normalizeText_chinesePunctuation_unifiedWithAscii() {
    assertThat(TextNormalizer.normalizeText("苹果。橘子、梨“好”‘甜’【特价】《目录》「说明」～—…"))
        .isEqualTo("苹果.橘子,梨\"好\"'甜'(特价)(目录)\"说明\"~-...");
  }

  @Test
  void normalizeText_ellipsis_sameAsThreeDots() {
    // NFKC folds … to "..." before punctuation unification sees it.
    assertThat(TextNormalizer.normalizeText("好货…")).isEqualTo(TextNormalizer.normalizeText("好货...")).isEqualTo("好货...");
  }

  @Test
  void normalizeText_chineseAndAsciiPunctuationVariants_equal() {
    assertThat(TextNormalizer.normalizeText("本人有苹果，产地山东。联系人：王先生"))
        .isEqualTo(TextNormalizer.normalizeText("本人有苹果,产地山东.联系人:王先生"));
  }

  @Test
  void normalizeText_spacesBetweenChineseChars_dropped() {
    assertThat(TextNormalizer.normalizeText("红 富\u3000士\t苹\n果")).isEqualTo("红富士苹果");
  }

  @Test
  void normalizeText_runOfSpacesBetweenLatinWords_oneKept() {
    assertThat(TextNormalizer.normalizeText("red  \t fuji\u00A0apple")).isEqualTo("red fuji apple");
  }

  @Test
  void normalizeText_spaceBetweenLatinAndChinese_dropped() {
    assertThat(TextNormalizer.normalizeText("iphone 手机 15 pro")).isEqualTo("iphone手机15 pro");
  }

  @Test
  void normalizeText_leadingTrailingAndInvisibleChars_dropped() {
    assertThat(TextNormalizer.normalizeText("  \uFEFF红\u200B富士\u00AD \n")).isEqualTo("红富士");
  }

  @Test
  void normalizeText_upperCase_lowerCased() {
    assertThat(TextNormalizer.normalizeText("Fuji APPLE Ｆｕｊｉ")).isEqualTo("fuji apple fuji");
  }

  @Test
  void normalizeText_null_sameAsEmpty() {
    assertThat(TextNormalizer.normalizeText(null)).isEqualTo("").isEqualTo(TextNormalizer.normalizeText(""));
  }

  @Test
  void normalizeText_whitespaceOnly_empty() {
    assertThat(TextNormalizer.normalizeText(" \t\n\u3000")).isEmpty();
  }

  @Test
  void normalizeText_emoji_keptAndNotSplit() {
    String text = "新鲜🍎苹果👍🏻";
    String normalized = TextNormalizer.normalizeText(text);
    assertThat(normalized).isEqualTo(text);
    assertThat(normalized.codePoints().filter(Character::isSupplementaryCodePoint).count()).isEqualTo(3);
  }

  @Test
  void normalizeText_fourByteHanAndMathLetters_noCrash() {
    // U+20BB7 (CJK extension B) is 4 bytes in UTF-8; U+1D400 (math bold A) folds to "a" under NFKC.
    assertThat(TextNormalizer.normalizeText("𠮷野家 \uD835\uDC00")).isEqualTo("𠮷野家a");
  }

  @ParameterizedTest
  @ValueSource(strings = {"\uD800", "\uDC00", "a\uD83Dx", "苹果\uDE00", "\uDBFF\uDBFF"})
  void normalizeText_loneSurrogate_noCrash(String text) {
    assertThatCode(() -> TextNormalizer.normalizeText(text)).doesNotThrowAnyException();
    // and the output still encodes (lone surrogates become '?', they must not throw)
    assertThatCode(() -> TextNormalizer.normalizeText(text).getBytes(StandardCharsets.UTF_8)).doesNotThrowAnyException();
  }

  @Test
  void normalizeText_sameTextTwice_idempotent() {
    String once = TextNormalizer.normalizeText("供应  山东烟台 一级 红富士苹果，价格２．５元／斤。Tel： 138-0013-8000");
    assertThat(TextNormalizer.normalizeText(once)).isEqualTo(once);
  }

  @Test
  void normalizePhone_plus86_droppedCountryCode() {
    assertThat(TextNormalizer.normalizePhone("+86 138-0013-8000")).isEqualTo("13800138000");
  }

  @Test
  void normalizePhone_0086_droppedCountryCode() {
    assertThat(TextNormalizer.normalizePhone("(0086)13800138000")).isEqualTo("13800138000");
  }

  @Test
  void normalizePhone_dashesAndSpaces_digitsOnly() {
    assertThat(TextNormalizer.normalizePhone("138 0013-8000")).isEqualTo("13800138000");
  }

  @Test
  void normalizePhone_fullWidthDigits_asciiDigits() {
    assertThat(TextNormalizer.normalizePhone("１３８ ００１３ ８０００")).isEqualTo("13800138000");
    assertThat(TextNormalizer.normalizePhone("＋８６ １３８００１３８０００")).isEqualTo("13800138000");
  }

  @Test
  void normalizePhone_landLineWithAreaCode_kept() {
    assertThat(TextNormalizer.normalizePhone("0535-6123456")).isEqualTo("05356123456");
  }

  @Test
  void normalizePhone_nullAndEmpty_empty() {
    assertThat(TextNormalizer.normalizePhone(null)).isEmpty();
    assertThat(TextNormalizer.normalizePhone("")).isEmpty();
    assertThat(TextNormalizer.normalizePhone("电话：无")).isEmpty();
  }

  @Test
  void normalizePhone_emojiAndLoneSurrogate_noCrash() {
    assertThat(TextNormalizer.normalizePhone("📞138\uD800 0013 8000")).isEqualTo("13800138000");
  }
}
