package org.xiaochong.method.near.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.LongToDoubleFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EvidenceTest {
  private static final LongToDoubleFunction UNIT = key -> 1.0;
  private static TopTermsMd5 fingerprinter;

  @BeforeAll
  static void start() {
    fingerprinter = new TopTermsMd5(NearConfig.defaults());
  }

  @AfterAll
  static void stop() {
    fingerprinter.close();
  }

  private static Evidence text(String text) {
    return Evidence.ofText(fingerprinter.fingerprint(text));
  }

  @Test
  void against_anotherLotOfTheSameUnit_countsBothAmounts() {
    assertThat(text("供应葡萄约20吨，散装").against(text("供应葡萄约100吨，散装"), UNIT)).isEqualTo(2.0);
  }

  @Test
  void against_priceAndStockUpdatedByAFewPercent_agree() {
    assertThat(text("苹果约300斤，价格800元").against(text("苹果约280斤，价格850元"), UNIT)).isZero();
    // 20 % of the larger is the limit: 100 and 80 agree, 100 and 79 do not.
    assertThat(text("约100斤").against(text("约80斤"), UNIT)).isZero();
    assertThat(text("约100斤").against(text("约79斤"), UNIT)).isEqualTo(2.0);
  }

  @Test
  void against_otherUnitsOrNumbersWithoutAUnit_sayNothing() {
    assertThat(text("约20吨").against(text("约100斤"), UNIT)).isZero();
    assertThat(text("编号 1234 货号 77").against(text("编号 5678 货号 99"), UNIT)).isZero();
    assertThat(text("约20吨").against(Evidence.NONE, UNIT)).isZero();
    // A one-letter Latin unit is as often a name or a code: 3M, 5G.
    assertThat(text("3M COMPANY 5G").against(text("2M COMPANY 4G"), UNIT)).isZero();
    assertThat(text("5kg bag").against(text("50kg bag"), UNIT)).isEqualTo(2.0);
  }

  @Test
  void contradicts_anotherLotOrPrice_butNotAStockUpdateOrAYear() {
    assertThat(text("供应葡萄约20吨，散装").contradicts(text("供应葡萄约100吨，散装"))).isTrue();
    // A price beyond 10 % of the larger (2.5 / 2.8: 11 %) is another offer; within it (2.5 / 2.75),
    // a repost.
    assertThat(text("价格2.50元/斤").contradicts(text("价格2.80元/斤"))).isTrue();
    assertThat(text("价格2.50元/斤").contradicts(text("价格2.75元/斤"))).isFalse();
    // Stock sold down by a quarter counts against the pair in the similarity, but is no other lot.
    assertThat(text("约12000斤").against(text("约9000斤"), UNIT)).isEqualTo(2.0);
    assertThat(text("约12000斤").contradicts(text("约9000斤"))).isFalse();
    assertThat(text("约12000斤").contradicts(text("约6000斤"))).isTrue();
    assertThat(text("2023年新货").contradicts(text("2024年新货"))).isFalse();
    assertThat(text("约20吨").contradicts(text("约100斤")))
        .isFalse(); // other units: nothing either way
  }

  @Test
  void against_aYear_agreesOnlyWhenEqual() {
    assertThat(text("2023年新货").against(text("2024年新货"), UNIT)).isEqualTo(2.0);
    assertThat(text("2023年新货").against(text("2023年新货"), UNIT)).isZero();
  }

  @Test
  void against_placeColumns_differentFoldedValuesCountTheirWeights_equalOrMissingOnesNothing() {
    long lingbao = TopTermsMd5.evidenceKey("region", fingerprinter.foldedValue("河南灵宝"));
    long weichang = TopTermsMd5.evidenceKey("region", fingerprinter.foldedValue("河北围场"));
    Evidence a = new Evidence.Builder().addPlace(0, lingbao).build();
    Evidence b = new Evidence.Builder().addPlace(0, weichang).build();
    LongToDoubleFunction weight = key -> key == lingbao ? 3.0 : 5.0;
    assertThat(a.against(b, weight)).isEqualTo(8.0);
    Evidence spaced =
        new Evidence.Builder()
            .addPlace(0, TopTermsMd5.evidenceKey("region", fingerprinter.foldedValue(" 河南 灵宝 ")))
            .build();
    assertThat(a.against(spaced, weight)).isZero();
    assertThat(a.against(new Evidence.Builder().addPlace(0, 0).build(), weight)).isZero();
    // The same text in another column is another key.
    assertThat(TopTermsMd5.evidenceKey("address", "河南灵宝"))
        .isNotEqualTo(TopTermsMd5.evidenceKey("region", "河南灵宝"));
  }

  @Test
  void against_numberColumns_firstNumberWithItsUnit() {
    Evidence a = number("2.50元/斤");
    assertThat(a.against(number("2.8元/斤"), UNIT)).isZero();
    assertThat(a.against(number("3.5元/斤"), UNIT)).isEqualTo(2.0);
    assertThat(a.against(number("面议"), UNIT)).isZero();
  }

  @Test
  void build_aColumnNumberTheTextAlsoStates_countsOnce() {
    Evidence both =
        new Evidence.Builder()
            .addText(fingerprinter.fingerprint("价格2.50元/斤"))
            .addNumber(
                0,
                fingerprinter.foldedValue("2.50元/斤"),
                term -> TopTermsMd5.evidenceKey("price", term))
            .build();
    assertThat(both.size()).isEqualTo(1);
    assertThat(both.columnKeys()).isEmpty();
  }

  private static Evidence number(String value) {
    return new Evidence.Builder()
        .addNumber(
            0, fingerprinter.foldedValue(value), term -> TopTermsMd5.evidenceKey("price", term))
        .build();
  }

  @Test
  void encode_decode_roundTrips() {
    Evidence evidence =
        new Evidence.Builder()
            .addText(fingerprinter.fingerprint("约20吨，价格2.5元，2023年"))
            .addPlace(0, 42)
            .addNumber(1, "89平方", term -> 7L)
            .build();
    byte[] bytes = evidence.encode();
    assertThat(Evidence.decode(bytes, 0, bytes.length)).isEqualTo(evidence);
    assertThat(evidence.columnKeys()).containsExactlyInAnyOrder(42L, 7L);
    assertThat(Evidence.decode(new byte[0], 0, 0)).isSameAs(Evidence.NONE);
  }

  /** Evidence of a seller: phone column 0, contact column 1 (0: empty), and the text. */
  private static Evidence seller(String text, long phone, long contact) {
    return new Evidence.Builder()
        .addText(fingerprinter.fingerprint(text))
        .addSeller(0, phone)
        .addSeller(1, contact)
        .build();
  }

  @Test
  void sameSeller_thePhoneDecidesWhenBothHaveOne_elseTheContact_elseUnknown() {
    assertThat(seller("", 11, 5).sameSeller(seller("", 11, 6))).isTrue();
    assertThat(seller("", 11, 5).sameSeller(seller("", 12, 5))).as("another phone").isFalse();
    assertThat(seller("", 11, 5).sameSeller(seller("", 0, 5))).as("one phone: contact").isTrue();
    assertThat(seller("", 0, 5).sameSeller(seller("", 0, 6))).isFalse();
    assertThat(seller("", 11, 0).sameSeller(seller("", 0, 5))).as("nothing to compare").isFalse();
    assertThat(seller("约20吨", 0, 0).sameSeller(seller("约20吨", 0, 0))).isFalse();
    assertThat(Evidence.NONE.sameSeller(seller("", 11, 5))).isFalse();
  }

  @Test
  void sellerItems_neverCountAgainst_norAreColumnKeys_andRoundTrip() {
    Evidence a = seller("约20吨", 11, 5);
    Evidence b = seller("约20吨", 12, 6);
    assertThat(a.against(b, UNIT)).isZero();
    assertThat(a.contradicts(b)).isFalse();
    assertThat(a.columnKeys()).isEmpty();
    byte[] bytes = a.encode();
    assertThat(Evidence.decode(bytes, 0, bytes.length)).isEqualTo(a);
    assertThat(Evidence.decode(bytes, 0, bytes.length).sameSeller(seller("", 11, 0))).isTrue();
  }

  @Test
  void amountsLifted_priceAndLotNoLongerCount_butAPlaceAndAYearStill() {
    Evidence a = text("约20吨，价格2.50元/斤，2023年新货");
    Evidence b = text("约100吨，价格3.50元/斤，2023年新货");
    assertThat(a.contradicts(b)).isTrue();
    assertThat(a.against(b, UNIT)).isEqualTo(4.0);
    assertThat(a.contradicts(b, true)).isFalse();
    assertThat(a.against(b, UNIT, true)).isZero();
    assertThat(a.against(text("约100吨，价格3.50元/斤，2024年新货"), UNIT, true)).isEqualTo(2.0);
    Evidence lingbao =
        new Evidence.Builder()
            .addText(fingerprinter.fingerprint("约20吨"))
            .addPlace(0, TopTermsMd5.evidenceKey("region", "河南灵宝"))
            .build();
    Evidence weichang =
        new Evidence.Builder()
            .addText(fingerprinter.fingerprint("约100吨"))
            .addPlace(0, TopTermsMd5.evidenceKey("region", "河北围场"))
            .build();
    assertThat(lingbao.contradicts(weichang, true)).isTrue();
    assertThat(lingbao.against(weichang, UNIT, true)).isEqualTo(2.0);
  }
}
