package org.xiaochong.method.simhash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xiaochong.simhash.Simhash64;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.TableSpec;

class SimhashConfigTest {
  private static final TableSpec SPEC =
      new TableSpec(
          "pages",
          "id",
          "reg_time",
          List.of("title", "content"),
          List.of(),
          Map.of("fields.near", List.of("title", "content")));

  @Test
  void defaults_areTheNearFields_shingles_tf_andDistance3() {
    SimhashConfig config = SimhashConfig.of(Map.of(), SPEC);

    assertThat(config)
        .isEqualTo(
            new SimhashConfig(
                List.of("title", "content"), Simhash64.Features.SHINGLES_4_3, false, 3));
  }

  @Test
  void tfIdf_isAcceptedInAnyCase_andChangesTheDocumentsDigest() {
    SimhashConfig tfIdf = SimhashConfig.of(Map.of("simhash.weights", "TF-IDF"), SPEC);

    assertThat(tfIdf.tfIdf()).isTrue();
    assertThat(tfIdf.documentsDigest())
        .isNotEqualTo(SimhashConfig.of(Map.of(), SPEC).documentsDigest());
  }

  @Test
  void unknownWeights_nameTheKeyAndTheChoices() {
    assertThatThrownBy(() -> SimhashConfig.of(Map.of("simhash.weights", "bm25"), SPEC))
        .isInstanceOf(BadInputException.class)
        .hasMessage("simhash.weights 'bm25' must be tf or tf-idf");
  }
}
