package org.xiaochong.zone;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.xbill.DNS.Name;

class ZoneEntryParserTest {
  @Test
  void hasOwnTtl_secondFieldOrThirdAfterAClass() {
    assertThat(ZoneEntryParser.hasOwnTtl("a.example. 3600 IN A 10.0.0.1")).isTrue();
    assertThat(ZoneEntryParser.hasOwnTtl("a.example. IN 1h A 10.0.0.1")).isTrue();
    assertThat(ZoneEntryParser.hasOwnTtl("a\\ b 60 IN A 10.0.0.1")).isTrue();
    assertThat(ZoneEntryParser.hasOwnTtl("a.example. IN A 10.0.0.1")).isFalse();
    assertThat(ZoneEntryParser.hasOwnTtl("a.example. A 10.0.0.1")).isFalse();
    assertThat(ZoneEntryParser.hasOwnTtl("a.example. ; 3600")).isFalse();
    assertThat(ZoneEntryParser.hasOwnTtl("a.example. 3600 IN TXT ( \"x\" )")).isFalse();
    assertThat(ZoneEntryParser.hasOwnTtl("a.example.")).isFalse();
  }

  @Test
  void parse_badValueGivesTheMessage_goodEntryItsRecordWithTheOrigin() {
    ZoneEntryParser.Parsed parsed =
        new ZoneEntryParser.ParseJob(
                7,
                "a.example. 60 IN A 10.0.0.300"
                    .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1),
                Name.fromConstantString("example."),
                3600)
            .parse();
    assertThat(parsed.line()).isEqualTo(7);
    assertThat(parsed.records()).isEmpty();
    assertThat(parsed.error()).isNotBlank().doesNotStartWith("<none>");

    ZoneEntryParser.Parsed good =
        new ZoneEntryParser.ParseJob(
                8,
                "b 60 IN A 10.0.0.1".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1),
                Name.fromConstantString("example."),
                3600)
            .parse();
    assertThat(good.error()).isNull();
    assertThat(good.records()).hasSize(1);
    assertThat(good.records().get(0).getName()).isEqualTo(Name.fromConstantString("b.example."));
    assertThat(good.records().get(0).getTTL()).isEqualTo(60);
  }
}
