package org.xiaochong.method.near.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NearConfigTest {

  @Test
  void defaults_seedAndAgricultureValues() {
    NearConfig config = NearConfig.defaults();
    assertThat(config.pre()).isEqualTo(3);
    assertThat(config.minShared()).isEqualTo(5);
    assertThat(config.minSimilarity()).isEqualTo(0.5);
    assertThat(config.grams()).isTrue();
    assertThat(config.shingles()).isFalse();
    assertThat(config.maxChars()).isEqualTo(20_000);
    assertThat(config.useIdf()).isFalse();
    assertThat(config.foldTraditional()).isTrue();
    assertThat(config.stopwordsLocation()).isEqualTo("classpath:/config/stopwords-zh.txt");
    assertThat(config.synonymsLocation()).isEqualTo("classpath:/config/synonyms-zh.txt");
  }

  @Test
  void constructor_preZero_throwsNamingValueAndRange() {
    assertThatThrownBy(() -> NearConfig.defaults().withPre(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("pre (0) must be in [1, 64]");
  }

  @Test
  void constructor_badValues_throwNamingValueAndRange() {
    NearConfig config = NearConfig.defaults();
    assertThatThrownBy(() -> config.withMinShared(0))
        .hasMessage("minShared (0) must be in [1, 1000]");
    assertThatThrownBy(() -> config.withMinSimilarity(1.5))
        .hasMessage("minSimilarity (1.5) must be in [0, 1]");
    assertThatThrownBy(() -> config.withMinSimilarity(Double.NaN))
        .hasMessage("minSimilarity (NaN) must be in [0, 1]");
    assertThatThrownBy(() -> config.withMaxChars(10))
        .hasMessage("maxChars (10) must be in [16, 10000000]");
    assertThatThrownBy(() -> config.withStopwordsLocation(null))
        .hasMessage("stopwordsLocation (null) must be a location or \"\" for none");
  }

  @Test
  void constructor_emptyLocations_meanNoLists() {
    NearConfig bare =
        NearConfig.defaults()
            .withStopwordsLocation("")
            .withSynonymsLocation("")
            .withFoldTraditional(false);
    try (TopTermsMd5 near = new TopTermsMd5(bare)) {
      assertThat(near.rankedTerms("供应西红柿，蘋果")).containsExactly("供应", "果", "蘋", "西红柿");
    }
  }

  @Test
  void topTermsMd5_missingStopwordList_throwsNamingLocation() {
    assertThatThrownBy(
            () ->
                new TopTermsMd5(
                    NearConfig.defaults().withStopwordsLocation("classpath:/config/nope.txt")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("classpath:/config/nope.txt");
  }
}
