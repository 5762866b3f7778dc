package org.xiaochong.method.linkage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

class ColumnProfilerTest {
  private static List<String> sample(int n, IntFunction<String> value) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      values.add(value.apply(i));
    }
    return values;
  }

  private static ColumnKind kind(String column, List<String> values) {
    return ColumnProfiler.profile(column, values).kind();
  }

  @Test
  void kindsComeFromTheValuesAndTheColumnsName() {
    assertThat(
            kind("dob", sample(100, i -> "19" + (50 + i % 40) + "0" + (1 + i % 9) + "1" + i % 9)))
        .isEqualTo(ColumnKind.DATE);
    assertThat(kind("tel", sample(100, i -> "138-0013-" + (1000 + i)))).isEqualTo(ColumnKind.PHONE);
    assertThat(kind("phone", sample(100, i -> String.valueOf(3_865_000 + i))))
        .isEqualTo(ColumnKind.PHONE);
    assertThat(kind("price", sample(100, i -> (i + 1) + ".5元"))).isEqualTo(ColumnKind.NUMBER);
    assertThat(kind("soc_sec_id", sample(100, i -> String.valueOf(1_804_974 + 7919 * i))))
        .isEqualTo(ColumnKind.CODE);
    assertThat(kind("state", sample(100, i -> List.of("nsw", "vic", "qld").get(i % 3))))
        .isEqualTo(ColumnKind.CATEGORY);
    assertThat(kind("suburb", sample(100, i -> "suburb" + Character.toString('a' + i % 26) + i)))
        .isEqualTo(ColumnKind.PLACE);
    assertThat(kind("surname", sample(100, i -> "smith" + Character.toString('a' + i % 26) + i)))
        .isEqualTo(ColumnKind.NAME);
    assertThat(kind("content", sample(100, i -> "供应红富士苹果，个大味甜，产地直销，欢迎来电咨询，编号" + i + "，量大从优")))
        .isEqualTo(ColumnKind.TEXT);
  }

  @Test
  void aNumberColumnWithTextInItIsNotANumber() {
    List<String> values = sample(100, i -> i % 3 == 0 ? "面议 call us" : (i + 0.5) + "");
    assertThat(kind("amount", values)).isNotEqualTo(ColumnKind.NUMBER);
  }

  @Test
  void datesInSeveralFormatsAreStillDates() {
    List<String> values =
        sample(
            90,
            i ->
                switch (i % 3) {
                  case 0 -> "2024-03-" + (10 + i % 18);
                  case 1 -> "2024年3月" + (1 + i % 28) + "日";
                  default -> (1 + i % 28) + "/3/2024";
                });
    assertThat(kind("posted", values)).isEqualTo(ColumnKind.DATE);
  }

  @Test
  void aMostlyEmptyColumnAndOneOfARepeatedValueEachGetANote() {
    List<String> mostlyEmpty = sample(100, i -> i % 10 == 0 ? "x" + i : null);
    List<String> repeated = sample(100, i -> i == 0 ? "other" : "same");
    LinkageSettings settings =
        new LinkageSettings(
            List.of("fax", "flag"), Map.of(), 0.95, 20, 100, ModelTraining.Style.MIXTURE);
    ColumnSet columns = ColumnSet.of(settings, List.of(mostlyEmpty, repeated));
    assertThat(columns.notes())
        .anySatisfy(n -> assertThat(n).startsWith("column fax is empty in 90 %"))
        .anySatisfy(n -> assertThat(n).startsWith("column flag holds one value in 99 %"));
    assertThat(columns.lines().get(0)).startsWith("fax: ");
  }

  @Test
  void aKindSetByHandWinsAndIsSaidSo() {
    LinkageSettings settings =
        new LinkageSettings(
            List.of("code"),
            Map.of("code", ColumnKind.NAME),
            0.95,
            20,
            100,
            ModelTraining.Style.MIXTURE);
    ColumnSet columns =
        ColumnSet.of(settings, List.of(sample(50, i -> String.valueOf(100_000 + i))));
    assertThat(columns.kinds()).containsExactly(ColumnKind.NAME);
    assertThat(columns.lines().get(0)).contains("linkage.kinds");
  }

  @Test
  void aColumnWithoutValuesIsTextAndSaysWhy() {
    ColumnProfiler.Profile profile = ColumnProfiler.profile("empty", sample(10, i -> null));
    assertThat(profile.kind()).isEqualTo(ColumnKind.TEXT);
    assertThat(profile.line()).contains("no values in the sample").contains("100 % empty");
  }
}
