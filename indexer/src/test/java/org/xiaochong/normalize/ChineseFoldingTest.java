package org.xiaochong.normalize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChineseFoldingTest {

  private static final ChineseFolding FOLDING = ChineseFolding.defaults();

  @Test
  void traditionalTable_shipped_hasSeveralHundredPairs() {
    assertThat(FOLDING.traditionalPairCount()).isGreaterThan(800);
    assertThat(ChineseFolding.load(false, "").traditionalPairCount()).isZero();
  }

  @Test
  void foldTraditional_agriculturalPost_simplified() {
    assertThat(FOLDING.foldTraditional("蘋果價格 聯繫電話 買賣 產地 農業 雞蛋 豬肉 蔥薑蒜 麵粉 穀物 山東煙臺"))
        .isEqualTo("苹果价格 联系电话 买卖 产地 农业 鸡蛋 猪肉 葱姜蒜 面粉 谷物 山东烟台");
  }

  @Test
  void foldTraditional_simplifiedText_unchanged() {
    String simplified = "供应优质红富士苹果，著名产地，只要2.5元一斤，了解详情请来电";
    assertThat(FOLDING.foldTraditional(simplified)).isSameAs(simplified);
  }

  @Test
  void foldTraditional_everyTableEntryTwice_idempotent() {
    StringBuilder all = new StringBuilder();
    for (String line : WordLists.readLines(ChineseFolding.DEFAULT_TRADITIONAL)) {
      for (String pair : line.split("\\s+")) {
        all.append(pair.charAt(0));
      }
    }
    String once = FOLDING.foldTraditional(all.toString());
    assertThat(FOLDING.foldTraditional(once)).isEqualTo(once);
  }

  @Test
  void foldSynonyms_tomatoVariants_foldToCanonical() {
    assertThat(FOLDING.foldSynonyms("西红柿洋柿子番茄")).isEqualTo("番茄番茄番茄");
    assertThat(FOLDING.foldSynonyms("土豆 洋芋 苞米 地瓜")).isEqualTo("马铃薯 马铃薯 玉米 红薯");
  }

  @Test
  void foldSynonyms_overlappingVariants_longestMatchWins() {
    assertThat(FOLDING.foldSynonyms("土鸡蛋和土鸡")).isEqualTo("土鸡蛋和土鸡");
    assertThat(FOLDING.foldSynonyms("笨鸡蛋和柴鸡")).isEqualTo("土鸡蛋和土鸡");
  }

  @Test
  void foldSynonyms_supplyAndDemandWords_foldToTwoCanonicals() {
    assertThat(FOLDING.foldSynonyms("出售 批发 销售")).isEqualTo("供应 供应 供应");
    assertThat(FOLDING.foldSynonyms("收购 采购")).isEqualTo("求购 求购");
  }

  @Test
  void fold_traditionalSynonym_foldsBoth() {
    assertThat(FOLDING.fold("出售西紅柿")).isEqualTo("供应番茄");
  }

  @Test
  void identity_anyText_unchanged() {
    assertThat(ChineseFolding.identity().fold("蘋果西红柿")).isEqualTo("蘋果西红柿");
  }

  @Test
  void load_wordInTwoGroups_throwsNamingWord(@TempDir Path dir) throws IOException {
    Path synonyms = dir.resolve("synonyms.txt");
    Files.writeString(synonyms, "# test\n番茄,西红柿\n柿子,西红柿\n", StandardCharsets.UTF_8);
    assertThatThrownBy(() -> ChineseFolding.load(true, synonyms.toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'西红柿'")
        .hasMessageContaining("two groups");
  }

  @Test
  void load_canonicalUsedAsVariant_throws(@TempDir Path dir) throws IOException {
    Path synonyms = dir.resolve("synonyms.txt");
    Files.writeString(synonyms, "番茄,西红柿\n西红柿果,番茄\n", StandardCharsets.UTF_8);
    assertThatThrownBy(() -> ChineseFolding.load(true, synonyms.toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'番茄'");
  }

  @Test
  void readLines_missingResource_throwsNamingLocation() {
    assertThatThrownBy(() -> WordLists.readLines("classpath:/config/missing.txt"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("classpath:/config/missing.txt");
  }
}
