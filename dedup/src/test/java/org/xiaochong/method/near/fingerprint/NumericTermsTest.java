package org.xiaochong.method.near.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NumericTermsTest {

  private static Map<String, Integer> termsOf(String normalized) {
    Map<String, Integer> counts = new TreeMap<>();
    NumericTerms.extract(normalized, counts);
    return counts;
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        // input (already normalized: ASCII digits, one space between digits) | phone term
        "电话13800138000|tel:13800138000",
        "电话:138-0013-8000|tel:13800138000",
        "电话:138 0013 8000|tel:13800138000",
        "+86 138 0013 8000|tel:13800138000",
        "+86-13800138000|tel:13800138000",
        "(0086)13800138000|tel:13800138000",
        "8613800138000|tel:13800138000",
        "(0535)6212345|tel:05356212345",
        "0535-6212345|tel:05356212345",
        "010-12345678|tel:01012345678",
        "qq:12345678|tel:12345678",
      })
  void extract_phoneForms_onePhoneTerm(String text, String phone) {
    assertThat(termsOf(text)).containsExactly(Map.entry(phone, 1));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "价格2.5元/斤|2.5元",
        "价格2.50元|2.5元",
        "2.0元|2元",
        "3,000斤|3000斤",
        "1,234,567.80|1234567.8",
        "5kg|5kg",
        "每次300桶|300桶",
        "20立方|20立方",
        "5kgs|5",
        "80mm以上|80mm",
        "50万斤|50万斤",
        "12%|12%",
        "第3批|3",
      })
  void extract_numbers_keepNumberAndUnit(String text, String term) {
    assertThat(termsOf(text)).containsExactly(Map.entry(term, 1));
  }

  @Test
  void extract_longNumberWithUnit_isAQuantityNotAPhone() {
    Map<String, Integer> counts = new TreeMap<>();
    NumericTerms.extract("约1017882吨，QQ 1017882", counts);
    assertThat(counts).containsOnly(Map.entry("1017882吨", 1), Map.entry("tel:1017882", 1));
  }

  @Test
  void extract_dateWithDashes_threeNumbersNotAPhone() {
    assertThat(termsOf("2023-05-01")).containsOnlyKeys("2023", "05", "01");
  }

  @Test
  void extract_range_twoNumbersUnitOnLast() {
    assertThat(termsOf("1000-2000斤")).containsOnlyKeys("1000", "2000斤");
    assertThat(termsOf("2.5-3.0元")).containsOnlyKeys("2.5", "3元");
  }

  @Test
  void extract_phoneFollowedByNumber_splitsAtPhoneEnd() {
    assertThat(termsOf("138 0013 8000 100斤")).containsOnlyKeys("tel:13800138000", "100斤");
    assertThat(termsOf("138 0013 8000 2.5元")).containsOnlyKeys("tel:13800138000", "2.5元");
  }

  @Test
  void extract_text_returnsRestWithSpacesForTakenSpans() {
    Map<String, Integer> counts = new TreeMap<>();
    assertThat(NumericTerms.extract("苹果2.5元/斤,电话13800138000", counts)).isEqualTo("苹果 /斤,电话 ");
    assertThat(NumericTerms.extract("没有数字", counts)).isEqualTo("没有数字");
  }

  @Test
  void extract_repeatedNumber_countsEachOccurrence() {
    assertThat(termsOf("2.5元 2.5元 13800138000,13800138000"))
        .containsExactly(Map.entry("2.5元", 2), Map.entry("tel:13800138000", 2));
  }
}
