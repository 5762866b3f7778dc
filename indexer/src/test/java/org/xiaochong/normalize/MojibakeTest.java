package org.xiaochong.normalize;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MojibakeTest {

  /** What a reader that took UTF-8 for {@code charset} makes of {@code text}. */
  private static String broken(String text, Charset charset) {
    return new String(text.getBytes(StandardCharsets.UTF_8), charset);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "café crème",
        "München, Straße 5",
        "São Paulo – “Zona Sul”",
        "don’t stop",
        "供应红富士苹果 电话138",
        "Ελληνικά και русский"
      })
  void clean_utf8ReadAsLatin1OrWindows1252_isRepaired(String text) {
    assertThat(Mojibake.clean(broken(text, StandardCharsets.ISO_8859_1))).isEqualTo(text);
    String windows = broken(text, Charset.forName("windows-1252"));
    if (!windows.contains(
        "\uFFFD")) { // bytes 0x81, 0x8D, 0x8F, 0x90, 0x9D are undefined in Windows-1252
      assertThat(Mojibake.clean(windows)).isEqualTo(text);
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "café crème",
        "München",
        "São Paulo – “Zona Sul”",
        "Nº 5, 1º piso",
        "½ kg à 3 €",
        "plain ascii ?",
        "供应红富士苹果",
        "Ñandú",
        ""
      })
  void clean_realText_isLeftAsItIs(String text) {
    assertThat(Mojibake.isBroken(text)).isFalse();
    assertThat(Mojibake.clean(text)).isSameAs(text);
  }

  @Test
  void clean_textBrokenBeyondRepair_losesItsBrokenCharactersAndKeepsItsAsciiWords() {
    // A converter replaced bytes with '?' after the damage: no byte sequence decodes any more.
    String text = "golden boy mÌ£ rtini brÌ£ s Ì£ Ì¢ å?Ì£ flash";

    String cleaned = Mojibake.clean(text);

    assertThat(cleaned.split("\\s+"))
        .containsExactly("golden", "boy", "m", "rtini", "br", "s", "?", "flash");
  }

  @Test
  void clean_c1ControlCharacter_marksTheTextBroken() {
    assertThat(Mojibake.isBroken("abc\u0081def")).isTrue();
    assertThat(Mojibake.clean("abc\u0081def")).isEqualTo("abc def");
  }

  @Test
  void clean_null_isNull() {
    assertThat(Mojibake.clean(null)).isNull();
  }
}
