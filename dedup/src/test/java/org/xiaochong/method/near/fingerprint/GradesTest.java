package org.xiaochong.method.near.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.LongToDoubleFunction;
import org.junit.jupiter.api.Test;
import org.xiaochong.method.near.fingerprint.Grades.Family;
import org.xiaochong.normalize.TextNormalizer;

class GradesTest {
  private static final LongToDoubleFunction UNIT = key -> 1;

  private static Map<Family, String> grades(String... texts) {
    return Grades.of(Arrays.stream(texts).map(TextNormalizer::normalizeText).toList());
  }

  private static Evidence evidence(String... texts) {
    return new Evidence.Builder()
        .addGrades(Arrays.stream(texts).map(TextNormalizer::normalizeText).toList())
        .build();
  }

  @Test
  void of_namesTheGradeAndSizeOfTheText() {
    assertThat(grades("出售一级红富士苹果", "红富士苹果", "大果，果径75mm，纸箱包装"))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(Family.LEVEL, "一级", Family.SIZE, "大果", Family.MILLIMETRES, "75"));
    assertThat(grades("统货砂糖橘 80# 出售"))
        .containsEntry(Family.LEVEL, "统货")
        .containsEntry(Family.NUMBER_CLASS, "80");
    assertThat(grades("蜜桔7cm以上")).containsExactlyEntriesOf(Map.of(Family.CENTIMETRES, "7"));
  }

  @Test
  void of_synonymsNameOneValue_traditionalAndFullWidthAreRead() {
    assertThat(grades("一等品")).isEqualTo(grades("一级"));
    assertThat(grades("通货")).isEqualTo(grades("统货"));
    assertThat(grades("大号")).isEqualTo(grades("大果"));
    assertThat(grades("一級蘋果")).containsEntry(Family.LEVEL, "一级");
    assertThat(grades("統貨", "特大號")).isEqualTo(grades("统货", "特大号"));
    assertThat(grades("果径７０ＭＭ")).containsEntry(Family.MILLIMETRES, "70");
  }

  @Test
  void of_longerWordsWin_andPhrasesThatNameNoGradeAreSkipped() {
    assertThat(grades("特大果")).containsExactlyEntriesOf(Map.of(Family.SIZE, "特大果"));
    assertThat(grades("一级批发商，自家大果园")).isEmpty();
    assertThat(grades("一级批发商直供二级苹果")).containsExactlyEntriesOf(Map.of(Family.LEVEL, "二级"));
  }

  @Test
  void of_twoValuesOfAFamilyOrNoneSayNothing_nullAndOddTextAreSafe() {
    assertThat(grades("一级二级都有", "大果")).containsExactlyEntriesOf(Map.of(Family.SIZE, "大果"));
    assertThat(grades("一级", "二级")).isEmpty();
    assertThat(grades("一级", "一级苹果")).containsEntry(Family.LEVEL, "一级");
    assertThat(Grades.of(Arrays.asList(null, "", "\uD83C\uDF4E🍎一级", "5-", "3#楼", "mm")))
        .containsExactlyEntriesOf(Map.of(Family.LEVEL, "一级"));
    assertThat(grades("70-75mm")).containsEntry(Family.MILLIMETRES, "70-75");
    assertThat(grades("65mmx")).isEmpty();
  }

  @Test
  void evidence_differentGradesContradictOutright_evenWithTheAmountsLifted() {
    Evidence first = evidence("出售一级苹果");
    Evidence second = evidence("出售二级苹果");
    assertThat(first.contradicts(second)).isTrue();
    assertThat(first.contradicts(second, true)).isTrue();
    assertThat(second.contradicts(first, true)).isTrue();
    assertThat(first.against(second, UNIT)).isEqualTo(2.0);
    assertThat(evidence("大果75mm").contradicts(evidence("大果80mm"))).isTrue();
    assertThat(evidence("大果").contradicts(evidence("中果"))).isTrue();
  }

  @Test
  void evidence_theSameGradeOrAGradeOnOneSideOnly_isNoContradiction() {
    assertThat(evidence("出售一级苹果").contradicts(evidence("一等品苹果出售"))).isFalse();
    assertThat(evidence("出售一级苹果").contradicts(evidence("出售苹果"))).isFalse();
    assertThat(evidence("出售一级苹果").contradicts(evidence("出售大果苹果"))).isFalse();
    assertThat(evidence("出售一级苹果").contradicts(Evidence.NONE)).isFalse();
    assertThat(evidence("一级二级都有").isEmpty()).isTrue();
    assertThat(evidence("出售一级苹果").against(evidence("出售苹果"), UNIT)).isZero();
  }

  @Test
  void evidence_gradesAreNoAmounts_encodeRoundTrips() {
    Evidence graded = evidence("一级苹果", "大果");
    Evidence decoded = Evidence.decode(graded.encode(), 0, graded.encode().length);
    assertThat(decoded).isEqualTo(graded);
    assertThat(decoded.size()).isEqualTo(2);
    assertThat(graded.columnKeys()).isEmpty();
    assertThat(List.of(Evidence.gradeUnit(Family.LEVEL), Evidence.gradeUnit(Family.SIZE)))
        .doesNotHaveDuplicates()
        .doesNotContain(0, Amount.unitId("元"), Amount.unitId("mm"), Amount.unitId("级"));
  }
}
