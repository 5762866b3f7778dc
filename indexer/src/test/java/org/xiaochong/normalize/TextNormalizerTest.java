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
    assertThat(TextNormalizer.normalizeText("好货…"))
        .isEqualTo(TextNormalizer.normalizeText("好货..."))
        .isEqualTo("好货...");
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
    assertThat(TextNormalizer.normalizeText(null))
        .isEqualTo("")
        .isEqualTo(TextNormalizer.normalizeText(""));
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
    assertThat(normalized.codePoints().filter(Character::isSupplementaryCodePoint).count())
        .isEqualTo(3);
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
    assertThatCode(() -> TextNormalizer.normalizeText(text).getBytes(StandardCharsets.UTF_8))
        .doesNotThrowAnyException();
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

  /** normalizeUtf8's contract, checked the plain way: decode, normalizeText, encode. */
  private static byte[] expectedUtf8(byte[] utf8) {
    return TextNormalizer.normalizeText(new String(utf8, StandardCharsets.UTF_8))
        .getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] normalizeUtf8(byte[] utf8) {
    org.apache.lucene.util.BytesRefBuilder out = new org.apache.lucene.util.BytesRefBuilder();
    TextNormalizer.normalizeUtf8(utf8, 0, utf8.length, out);
    return java.util.Arrays.copyOf(out.bytes(), out.length());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        " ",
        "供应山东烟台红富士苹果，价格２．５元／斤。",
        "Red  Fuji\tApple",
        "红 富 士",
        "ＡＢＣ　ｄｅｆ",
        "【特级】《苹果》「好」",
        "a\u3000b",
        "1 2",
        "x\u3000\u3000Y",
        "㐀㐁 abc",
        "\u3005 a",
        "a \u3031",
        "…—～",
        "Ｈｅｌｌｏ　Ｗｏｒｌｄ",
        "Café CRÈME",
        "🍎苹果",
        "ﬁ①",
        "\u200B零宽",
        "a\u00A0b",
        "\r\n\t",
        "\u0001控制",
        "Ｘ\u0085y"
      })
  void normalizeUtf8_examples_sameBytesAsNormalizeText(String text) {
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    assertThat(normalizeUtf8(utf8)).as("%s", text).isEqualTo(expectedUtf8(utf8));
  }

  /**
   * Random text from the ranges the UTF-8 fast path reads itself (ASCII with controls, CJK
   * punctuation U+3000-U+303F, full-width forms U+FF00-U+FFEF, ideographs of the BMP and extension
   * A) mixed with what sends it to the slow path (Latin-1, kana, Hangul, emoji, combining marks,
   * invisible and other spaces), against decode + normalizeText + encode.
   */
  @Test
  void normalizeUtf8_randomText_sameBytesAsNormalizeText() {
    long seed = Long.getLong("tests.seed", System.nanoTime()); // -Dtests.seed=N replays a failure
    java.util.Random random = new java.util.Random(seed);
    int[][] ranges = {
      {0x00, 0x7F},
      {0x41, 0x5A},
      {0x20, 0x20},
      {0x3000, 0x303F},
      {0xFF00, 0xFFEF},
      {0x4E00, 0x9FFF},
      {0x3400, 0x4DBF},
      {0x00A0, 0x00FF},
      {0x3040, 0x30FF},
      {0xAC00, 0xAC20},
      {0x1F34E, 0x1F34F},
      {0x0300, 0x0310},
      {0x200B, 0x200F},
      {0x2000, 0x200A},
      {0x2460, 0x2473},
      {0xFB00, 0xFB06}
    };
    for (int round = 0; round < 5000; round++) {
      StringBuilder text = new StringBuilder();
      int length = random.nextInt(4) == 0 ? random.nextInt(300) : random.nextInt(12);
      // Most rounds stay in the fast path's ranges, so that path meets every mix of them.
      int usable = random.nextBoolean() ? 7 : ranges.length;
      for (int i = 0; i < length; i++) {
        int[] range = ranges[random.nextInt(usable)];
        text.appendCodePoint(range[0] + random.nextInt(range[1] - range[0] + 1));
      }
      byte[] utf8 = text.toString().getBytes(StandardCharsets.UTF_8);
      assertThat(normalizeUtf8(utf8))
          .as("seed %s, round %s: %s", seed, round, text)
          .isEqualTo(expectedUtf8(utf8));
    }
  }

  /**
   * Malformed UTF-8 (cut sequences, stray continuation bytes, overlong forms, surrogates) as the
   * decoder reads it.
   */
  @Test
  void normalizeUtf8_malformedBytes_sameAsDecodedText() {
    long seed = Long.getLong("tests.seed", System.nanoTime());
    java.util.Random random = new java.util.Random(seed);
    byte[][] pieces = {
      "苹".getBytes(StandardCharsets.UTF_8),
      {(byte) 0xE8},
      {(byte) 0xE8, (byte) 0x8B},
      {(byte) 0x80},
      {(byte) 0xC0, (byte) 0xAF},
      {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
      {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
      {(byte) 0xFF},
      {'A'},
      {' '},
      "，".getBytes(StandardCharsets.UTF_8),
      {(byte) 0xF0, (byte) 0x9F, (byte) 0x8D}
    };
    for (int round = 0; round < 3000; round++) {
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      for (int i = random.nextInt(10); i > 0; i--) {
        bytes.writeBytes(pieces[random.nextInt(pieces.length)]);
      }
      byte[] utf8 = bytes.toByteArray();
      assertThat(normalizeUtf8(utf8))
          .as("seed %s, round %s", seed, round)
          .isEqualTo(expectedUtf8(utf8));
    }
  }

  @Test
  void normalizeUtf8_rangeOfALargerArray_appendsAfterWhatTheBuilderHolds() {
    byte[] utf8 = "xx红 富 士ＡＢ，yy".getBytes(StandardCharsets.UTF_8);
    org.apache.lucene.util.BytesRefBuilder out = new org.apache.lucene.util.BytesRefBuilder();
    out.copyChars("已有");
    TextNormalizer.normalizeUtf8(utf8, 2, utf8.length - 2, out);
    assertThat(new String(out.bytes(), 0, out.length(), StandardCharsets.UTF_8))
        .isEqualTo("已有红富士ab,");
  }
}
