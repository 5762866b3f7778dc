package org.xiaochong.archive;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InnodbForeignKeysTest {
  @Test
  void deleteRule_fromTheTypeBits() {
    assertThat(InnodbForeignKeys.deleteRule(0)).isEqualTo("RESTRICT");
    assertThat(InnodbForeignKeys.deleteRule(1)).isEqualTo("CASCADE");
    assertThat(InnodbForeignKeys.deleteRule(1 | 4)).isEqualTo("CASCADE");
    assertThat(InnodbForeignKeys.deleteRule(2)).isEqualTo("SET NULL");
    assertThat(InnodbForeignKeys.deleteRule(16 | 32)).isEqualTo("NO ACTION");
    assertThat(InnodbForeignKeys.deleteRule(4)).isEqualTo("RESTRICT");
  }

  @Test
  void names_inTheDictionaryFileNameEncoding_bothWays() {
    assertThat(InnodbForeignKeys.encoded("crawl/supply_demand")).isEqualTo("crawl/supply_demand");
    assertThat(InnodbForeignKeys.encoded("crawl/post$1")).isEqualTo("crawl/post@00241");
    assertThat(InnodbForeignKeys.decoded("crawl/post@00241")).isEqualTo("crawl/post$1");
    assertThat(InnodbForeignKeys.decoded("other/inquiry_ibfk_1")).isEqualTo("other/inquiry_ibfk_1");
  }
}
