package org.xiaochong.method.simhash;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xiaochong.simhash.Simhash64;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

class FeatureFrequenciesTest {
  private static final TableSpec SPEC =
      new TableSpec(
          "t",
          "id",
          "reg_time",
          List.of("title", "content"),
          List.of(),
          Map.of("fields.near", List.of("title", "content")));

  private static final List<SourceRecord> ROWS =
      List.of(
          new SourceRecord(1, 0, new String[] {"苹果 烟台红富士", "烟台红富士 2.50元/斤"}),
          new SourceRecord(2, 0, new String[] {"烟台红富士", "The cat sat on the mat, the cat sat."}),
          new SourceRecord(3, 0, new String[] {null, ""}),
          new SourceRecord(4, 0, new String[] {"苹果 烟台红富士", "the mat"}));

  private static FeatureFrequencies count(List<SourceRecord> rows) {
    try (FeatureFrequencies.Counter counter = SimhashMethod.featureCounter(SPEC, Map.of())) {
      rows.forEach(counter::add);
      return counter.counted();
    }
  }

  @Test
  void counter_countsEachRowsFeatureOnce_andSlicesAddUpToTheWhole() {
    FeatureFrequencies whole = count(ROWS);
    FeatureFrequencies sliced = count(ROWS.subList(0, 1)).plus(count(ROWS.subList(1, 4)));
    assertThat(whole.docCount()).isEqualTo(4);
    assertThat(sliced.docCount()).isEqualTo(4);
    try (Simhash64 simhash = Simhash64.withTf(SimhashConfig.of(Map.of(), SPEC).features())) {
      SimhashDocumentMaker maker =
          new SimhashDocumentMaker(SPEC, SimhashConfig.of(Map.of(), SPEC), simhash, null);
      List<String> first = simhash.features(maker.text(ROWS.get(0)));
      boolean repeatedAndShared = false;
      for (String feature : first) {
        long holders =
            ROWS.stream().filter(r -> simhash.features(maker.text(r)).contains(feature)).count();
        assertThat(whole.docFreq(feature)).as(feature).isEqualTo(holders);
        assertThat(sliced.docFreq(feature)).as(feature).isEqualTo(holders);
        repeatedAndShared |= holders >= 2 && first.indexOf(feature) != first.lastIndexOf(feature);
      }
      assertThat(repeatedAndShared)
          .as("a feature twice in row 1 and in another row, counted once per row")
          .isTrue();
    }
  }
}
