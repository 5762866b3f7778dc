package org.xiaochong.method.simhash;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xiaochong.simhash.Simhash64;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

class SimhashDocumentMakerTest {
  private static final TableSpec SPEC =
      new TableSpec(
          "t",
          "id",
          "reg_time",
          List.of("title", "content"),
          List.of(),
          Map.of("fields.near", List.of("title", "content")));

  @Test
  void fingerprint_equalsSimhash64WithTfWeights() {
    for (Simhash64.Features features : Simhash64.Features.values()) {
      try (Simhash64 simhash = Simhash64.withTf(features)) {
        SimhashDocumentMaker maker =
            new SimhashDocumentMaker(SPEC, SimhashConfig.of(Map.of(), SPEC), simhash, null);
        for (String text :
            List.of("苹果苹果苹果 烟台红富士 2.50元/斤 苹果", "The cat sat on the mat, the cat sat.", "一")) {
          assertThat(maker.fingerprint(simhash.features(text)))
              .as("%s %s", features, text)
              .isEqualTo(simhash.fingerprint(text));
        }
      }
    }
  }

  @Test
  void text_joinsTheFieldsNonEmptyValuesByALineBreak() {
    try (Simhash64 simhash = Simhash64.withTf(Simhash64.Features.CHUNKS_5)) {
      SimhashDocumentMaker maker =
          new SimhashDocumentMaker(SPEC, SimhashConfig.of(Map.of(), SPEC), simhash, null);
      assertThat(maker.text(new SourceRecord(1, 0, new String[] {"title", "body"})))
          .isEqualTo("title\nbody");
      assertThat(maker.text(new SourceRecord(1, 0, new String[] {null, "body"}))).isEqualTo("body");
      assertThat(maker.make(new SourceRecord(1, 0, new String[] {null, ""})).getField("simhash"))
          .isNull();
    }
  }
}
