package org.xiaochong.method.near.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The q-gram and shingle key families of {@link TopTermsMd5} and the IDF-weighted similarity over
 * them.
 */
class KeyFamiliesTest {
  static TopTermsMd5 near;
  static TopTermsMd5 ordered;

  @BeforeAll
  static void setUp() {
    near = new TopTermsMd5(NearConfig.defaults());
    ordered = new TopTermsMd5(NearConfig.defaults().withShingles(true));
  }

  @AfterAll
  static void tearDown() {
    near.close();
    ordered.close();
  }

  @Test
  void grams_oneTypoInAName_keepsMostGramsButNotTheWordKey() {
    Fingerprints smith = near.fingerprint("smith");
    Fingerprints smyth = near.fingerprint("smyth");
    assertThat(NearSimilarity.sharedCount(smith.sortedPrefixes(), smyth.sortedPrefixes())).isZero();
    // ^sm smi mit ith th$ against ^sm smy myt yth th$: ^sm and th$ survive.
    assertThat(smith.sortedGrams()).hasSize(5);
    assertThat(NearSimilarity.sharedCount(smith.sortedGrams(), smyth.sortedGrams())).isEqualTo(2);
  }

  @Test
  void grams_abbreviation_sharesTheGramsOfTheCommonPrefix() {
    long[] blv = near.fingerprint("1 main blv.").sortedGrams();
    long[] blvd = near.fingerprint("1 main blvd.").sortedGrams();
    // ^bl blv shared; lv$ against lvd vd$.
    assertThat(NearSimilarity.sharedCount(blv, blvd))
        .isEqualTo(NearSimilarity.sharedCount(blv, blv) - 1);
  }

  @Test
  void grams_mistypedDigitOfADate_keepsTheOtherGrams() {
    long[] a = near.fingerprint("19560123").sortedGrams();
    long[] b = near.fingerprint("19560132").sortedGrams();
    // ^19 195 956 560 601 shared out of 8 each.
    assertThat(a).hasSize(8);
    assertThat(NearSimilarity.sharedCount(a, b)).isEqualTo(5);
  }

  @Test
  void idNumberField_isANumberTerm_butAPhoneShapedFieldOrADigitRunInTextIsATelTerm() {
    // A field that is one digit run without a phone's shape: a date of birth, an id number.
    assertThat(near.rankedTerms("smith", "19560409", "1804974"))
        .containsExactlyInAnyOrder("smith", "19560409", "1804974");
    assertThat(NearTermKeys.isIdNumber("19560409")).isTrue();
    assertThat(NearTermKeys.isIdNumber("123456"))
        .isFalse(); // under 7 digits: NumericTerms' number anyway
    assertThat(NearTermKeys.isIdNumber("13800138000")).isFalse(); // a mobile number
    assertThat(NearTermKeys.isIdNumber("05356212345")).isFalse(); // a land line with area code
    assertThat(NearTermKeys.isIdNumber("1956-04-09")).isFalse();
    assertThat(near.rankedTerms("smith", "13800138000"))
        .containsExactlyInAnyOrder("smith", "tel:13800138000");
    assertThat(near.rankedTerms("qq 1804974")).contains("tel:1804974");
  }

  @Test
  void fields_eachKeyCarriesTheMaskOfItsFields_andThePostTheFieldsThatGaveKeys() {
    // given name, surname (empty), suburb, date of birth; a phone field after the text fields.
    Fingerprints prints =
        near.fingerprint(
            java.util.Arrays.asList("john", "", "john street", "19560409"),
            List.of("(02) 9876 5432"));
    assertThat(prints.presentFields()).isEqualTo(0b11101);
    long[] keys = prints.sortedKeys();
    int[] fields = prints.sortedKeyFields();
    assertThat(fields).hasSize(keys.length);
    Map<Long, Integer> byKey = new HashMap<>();
    for (int i = 0; i < keys.length; i++) {
      byKey.put(keys[i], fields[i]);
    }
    assertThat(byKey.get(NearTermKeys.key("john"))).isEqualTo(0b101); // given name and suburb
    assertThat(byKey.get(NearTermKeys.key("street"))).isEqualTo(0b100);
    assertThat(byKey.get(NearTermKeys.key("19560409"))).isEqualTo(0b1000);
    assertThat(byKey.get(NearTermKeys.key("tel:0298765432"))).isEqualTo(0b10000);
    assertThat(byKey.get(NearTermKeys.key("q:^jo"))).isEqualTo(0b101);
    assertThat(byKey.get(NearTermKeys.key("q:956"))).isEqualTo(0b1000);
    // Segmenting field by field gives the terms of the joined fields.
    assertThat(prints.terms())
        .containsExactlyInAnyOrder("john", "street", "19560409", "tel:0298765432");
  }

  @Test
  void shortFields_atMostThreeWordsWithoutHan() {
    Fingerprints prints =
        near.fingerprint("john", "12 booroondara street west", "kenned y srreet", "红富士苹果");
    assertThat(prints.shortFields()).isEqualTo(0b101);
    assertThat(near.fingerprint("供应优质红富士苹果").shortFields()).isZero();
  }

  @Test
  void grams_hanTextAndSingleLetters_giveNone() {
    assertThat(near.fingerprint("供应优质红富士苹果").sortedGrams()).isEmpty();
    assertThat(near.fingerprint("a b c").sortedGrams()).isEmpty();
  }

  @Test
  void grams_onlyFromFieldsWithoutHan() {
    // A Chinese field's prices and phone stay whole terms; the Latin field beside it gets its
    // q-grams.
    assertThat(near.fingerprint("红富士苹果 价格2.50元 电话13800138000").sortedGrams()).isEmpty();
    assertThat(near.fingerprint("红富士苹果 价格2.50元", "fuji").sortedGrams())
        .isEqualTo(near.fingerprint("fuji").sortedGrams())
        .hasSize(4);
  }

  @Test
  void grams_areNeverWordKeys_andAllKeysHoldEveryFamily() {
    Fingerprints prints = near.fingerprint("abc");
    assertThat(NearSimilarity.sharedCount(prints.sortedPrefixes(), prints.sortedGrams())).isZero();
    assertThat(prints.sortedKeys())
        .hasSize(prints.sortedPrefixes().length + prints.sortedGrams().length);
  }

  @Test
  void grams_switchedOff_giveNone() {
    try (TopTermsMd5 wordsOnly = new TopTermsMd5(NearConfig.defaults().withGrams(false))) {
      assertThat(wordsOnly.fingerprint("smith john").sortedGrams()).isEmpty();
    }
  }

  @Test
  void shingles_offByDefault_onTellTheWordOrder() {
    assertThat(near.fingerprint("鲁尼 加盟 曼联 球队").sortedShingles()).isEmpty();
    Fingerprints forward = ordered.fingerprint("river alpha joins river beta");
    Fingerprints backward = ordered.fingerprint("river beta joins river alpha");
    assertThat(forward.sortedPrefixes()).isEqualTo(backward.sortedPrefixes());
    assertThat(forward.sortedShingles()).hasSize(3);
    // "river alpha join", "alpha join river", "join river beta" against "river beta join", "beta
    // join
    // river", "join river alpha": no shingle in common.
    assertThat(NearSimilarity.sharedCount(forward.sortedShingles(), backward.sortedShingles()))
        .isZero();
    Fingerprints same = ordered.fingerprint("river alpha joins river beta today");
    assertThat(NearSimilarity.sharedCount(forward.sortedShingles(), same.sortedShingles()))
        .isEqualTo(3);
  }

  @Test
  void subject_isTheTopTermOnlyWhenRepeated() {
    assertThat(near.fingerprint("苹果", "红富士苹果", "苹果 价格面议").topCount()).isEqualTo(3);
    assertThat(near.fingerprint("smith", "john").topCount()).isEqualTo(1);
  }

  @Test
  void idf_rareKeysWeighMore_boilerplateLittle() {
    assertThat(NearSimilarity.idf(1_000_000, 1_000_000)).isCloseTo(Math.log(2), within(1e-12));
    assertThat(NearSimilarity.idf(2, 1_000_000)).isCloseTo(Math.log(500_001), within(1e-9));
    assertThat(NearSimilarity.idf(0, 10))
        .isEqualTo(NearSimilarity.idf(1, 10)); // clipped to df >= 1
    assertThat(NearSimilarity.idf(50, 10))
        .isEqualTo(NearSimilarity.idf(10, 10)); // clipped to df <= N
  }

  @Test
  void weightedJaccard_sharedBoilerplateAlone_isLow_sharedRareKeysHigh() {
    // Two records of 1,000 share three template keys every record has and differ in two rare ones
    // each.
    Map<Long, Integer> df =
        new HashMap<>(Map.of(1L, 1000, 2L, 1000, 3L, 1000, 10L, 1, 11L, 1, 20L, 1, 21L, 1));
    long[] a = {1, 2, 3, 10, 11};
    long[] b = {1, 2, 3, 20, 21};
    double boilerplate =
        NearSimilarity.weightedJaccard(a, b, k -> NearSimilarity.idf(df.get(k), 1000));
    assertThat(NearSimilarity.jaccard(a, b)).isCloseTo(3.0 / 7, within(1e-12));
    assertThat(boilerplate).isLessThan(0.1);
    // The same shape with the rare keys shared and the template ones not: the evidence is shared.
    df.putAll(Map.of(1L, 2, 2L, 2, 3L, 2, 10L, 1000, 11L, 1000, 20L, 1000, 21L, 1000));
    double rare = NearSimilarity.weightedJaccard(a, b, k -> NearSimilarity.idf(df.get(k), 1000));
    assertThat(rare).isGreaterThan(0.8);
  }

  @Test
  void weightedJaccard_missingFieldOrTypo_staysNearAcrossFamilies() {
    // A person record against itself with one typo in the surname and the postcode left out stays a
    // near duplicate; another person of the same street, postcode and suburb does not.
    Fingerprints a = near.fingerprint("john", "smith", "42", "miller street", "2615", "canberra");
    Fingerprints b = near.fingerprint("john", "smyth", "42", "miller street", null, "canberra");
    Fingerprints other =
        near.fingerprint("mary", "jones", "7", "miller street", "2615", "canberra");
    // A street of 100 neighbours: street, suburb and postcode are common, names and numbers rare.
    List<Fingerprints> table = new java.util.ArrayList<>(List.of(a, b, other));
    String[] given = {
      "anna", "bruce", "carol", "david", "emily", "frank", "grace", "henry", "irene", "jacob"
    };
    String[] family = {
      "brown", "clark", "davis", "evans", "green", "hall", "king", "lewis", "moore", "young"
    };
    for (int i = 0; i < 100; i++) {
      table.add(
          near.fingerprint(
              given[i % 10],
              family[i / 10],
              String.valueOf(100 + i),
              "miller street",
              "2615",
              "canberra"));
    }
    Map<Long, Integer> df = new HashMap<>();
    for (Fingerprints p : table) {
      for (long key : p.sortedKeys()) {
        df.merge(key, 1, Integer::sum);
      }
    }
    int n = table.size();
    double same =
        NearSimilarity.weightedJaccard(
            a.sortedKeys(), b.sortedKeys(), k -> NearSimilarity.idf(df.get(k), n));
    double different =
        NearSimilarity.weightedJaccard(
            a.sortedKeys(), other.sortedKeys(), k -> NearSimilarity.idf(df.get(k), n));
    assertThat(same).isGreaterThanOrEqualTo(NearConfig.DEFAULT_MIN_SIMILARITY);
    assertThat(different).isLessThan(NearConfig.DEFAULT_MIN_SIMILARITY);
    // Unweighted, the shared street, postcode and suburb count as much as the names.
    assertThat(NearSimilarity.jaccard(a.sortedKeys(), other.sortedKeys())).isGreaterThan(different);
  }
}
