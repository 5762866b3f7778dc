package org.xiaochong.method.near;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.xiaochong.method.near.HandMadeKeys.keys;
import static org.xiaochong.method.near.HandMadeKeys.range;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xiaochong.method.near.fingerprint.Evidence;
import org.xiaochong.method.near.fingerprint.NearConfig;

/**
 * The shared near-duplicate rule on hand-made key sets (keys are small numbers: the rule only
 * compares them).
 */
class NearRuleTest {
  private static final NearConfig CONFIG =
      NearConfig.defaults(); // min-shared 5, min-similarity 0.6

  /** Ten keys 1..10, top key 1, phone key 9. */
  private static final NearRule.Stored POST =
      new NearRule.Stored(range(1, 10), new long[] {1, 2, 3}, new long[] {9});

  @Test
  void isNearDuplicate_sameSubjectAndPhone_similarEnough_isTrue() {
    // 9 of 11 keys shared (key 10 replaced by 11): Jaccard 0.82.
    NearRule.Stored repost = keys(1, 2, 3, 4, 5, 6, 7, 8, 9, 11).top(1, 3, 2).tel(9).stored();

    assertThat(NearRule.isNearDuplicate(POST, repost, CONFIG)).isTrue();
    assertThat(NearRule.isNearDuplicate(repost, POST, CONFIG)).isTrue();
  }

  @Test
  void isNearDuplicate_belowMinSimilarity_isFalse() {
    // 5 shared of 15: Jaccard 0.33.
    NearRule.Stored other = new NearRule.Stored(range(1, 5), new long[] {1}, new long[0]);
    NearRule.Stored longer = new NearRule.Stored(range(1, 15), new long[] {1}, new long[0]);

    assertThat(NearRule.isNearDuplicate(other, longer, CONFIG)).isFalse();
  }

  @Test
  void isNearDuplicate_candidateLacksTheTopTerm_isVetoed() {
    // Same seller, other product: key 1 (the subject) replaced by 12; Jaccard 9/11 would pass.
    NearRule.Stored otherProduct =
        keys(2, 3, 4, 5, 6, 7, 8, 9, 10, 12).top(12, 2, 3).tel(9).stored();

    assertThat(NearRule.isNearDuplicate(POST, otherProduct, CONFIG)).isFalse();
    assertThat(NearRule.isNearDuplicate(otherProduct, POST, CONFIG)).isFalse();
  }

  @Test
  void isNearDuplicate_candidateTopTermNotInRecord_isVetoed() {
    // The candidate's subject (13) is not in the record, although the record's subject is in the
    // candidate.
    NearRule.Stored candidate = keys(1, 2, 3, 4, 5, 6, 7, 8, 9, 13).top(13, 1, 2).tel(9).stored();

    assertThat(NearRule.isNearDuplicate(POST, candidate, CONFIG)).isFalse();
  }

  @Test
  void isNearDuplicate_bothWithPhonesButNoneShared_isVetoed_andAMissingPhoneIsNoVeto() {
    // Same product, another seller: phone 9 replaced by phone 14.
    NearRule.Stored otherSeller =
        keys(1, 2, 3, 4, 5, 6, 7, 8, 10, 14).top(1, 2, 3).tel(14).stored();
    NearRule.Stored noPhone = keys(1, 2, 3, 4, 5, 6, 7, 8, 10, 14).top(1, 2, 3).stored();

    assertThat(NearRule.isNearDuplicate(POST, otherSeller, CONFIG)).isFalse();
    assertThat(NearRule.isNearDuplicate(POST, noPhone, CONFIG)).isTrue();
  }

  @Test
  void isBetter_moreSimilarWins_tieGoesToTheNewer_thenTheLargerId() {
    assertThat(NearRule.isBetter(0.9, 1, 1, 0.8, 5, 5)).isTrue();
    assertThat(NearRule.isBetter(0.8, 9, 9, 0.9, 1, 1)).isFalse();
    assertThat(NearRule.isBetter(0.8, 6, 1, 0.8, 5, 9)).isTrue();
    assertThat(NearRule.isBetter(0.8, 5, 10, 0.8, 5, 9)).isTrue();
    assertThat(NearRule.isBetter(0.8, 5, 8, 0.8, 5, 9)).isFalse();
    assertThat(NearRule.isBetter(0.0, Long.MIN_VALUE, 1, -1, 0, 0)).isTrue();
  }

  @Test
  void candidateKeys_rarestFirst_skipsKeysBelowMinHolders() {
    Map<Long, Integer> holders = Map.of(1L, 500, 2L, 1, 3L, 7, 4L, 2, 5L, 0, 6L, 3);
    long[] keys = {1, 2, 3, 4, 5, 6};

    // In the pass the record holds each key itself: keys held once lead nowhere.
    assertThat(NearCandidates.candidateKeys(keys, k -> holders.get(k), 2, 3))
        .containsExactly(4, 6, 3);
    // In the online check the record is not in the index: a key held once is a candidate.
    assertThat(NearCandidates.candidateKeys(keys, k -> holders.get(k), 1, 3))
        .containsExactly(2, 4, 6);
    assertThat(NearCandidates.candidateKeys(keys, k -> holders.get(k), 1, 10))
        .containsExactly(2, 4, 6, 3, 1);
  }

  @Test
  void candidateKeys_ofAPost_takeTheRarestOfEachFamily() {
    // Words 1-4 (the rare ones 3 and 4 changed by a typo would hide the pair), q-grams 10-14.
    Map<Long, Integer> holders =
        Map.of(1L, 300, 2L, 40, 3L, 2, 4L, 2, 10L, 90, 11L, 5, 12L, 3, 13L, 60, 14L, 1);
    NearRule.Stored post = keys(1, 2, 3, 4, 10, 11, 12, 13, 14).grams(10, 11, 12, 13, 14).stored();

    assertThat(NearCandidates.candidateKeys(post, k -> holders.get(k), 2, 2))
        .containsExactly(3, 4, 12, 11);
  }

  @Test
  void why_recordsSharingOnlyCommonKeys_areNoNearDuplicatesHoweverAlike() {
    // A CD whose only key is its year, and another CD of that year whose other fields the first
    // lacks:
    // compared on the first one's fields only, the two are identical.
    NearRule.Stored yearOnly = new NearRule.Stored(new long[] {1995}, new long[0], new long[0]);
    NearRule.Stored various = new NearRule.Stored(new long[] {7, 1995}, new long[0], new long[0]);
    NearRule.KeyWeights commonKeys =
        NearRule.KeyWeights.idf(
            k -> org.xiaochong.method.near.fingerprint.NearSimilarity.idf(300, 10_000), 10_000);
    NearRule.Stored twin = new NearRule.Stored(new long[] {7, 1995}, new long[0], new long[0]);

    assertThat(NearRule.why(various, twin, CONFIG, NearRule.UNIT_WEIGHTS))
        .isNull(); // no least weight
    assertThat(NearRule.why(various, twin, CONFIG, commonKeys))
        .isEqualTo(NearRule.Failure.LITTLE_EVIDENCE);
    assertThat(NearRule.why(yearOnly, yearOnly, CONFIG, commonKeys))
        .isEqualTo(NearRule.Failure.LITTLE_EVIDENCE);
    // One key only the two of them hold is enough.
    NearRule.KeyWeights rarePair =
        NearRule.KeyWeights.idf(
            k -> org.xiaochong.method.near.fingerprint.NearSimilarity.idf(k == 7 ? 2 : 300, 10_000),
            10_000);
    assertThat(NearRule.why(various, twin, CONFIG, rarePair)).isNull();
    assertThat(rarePair.leastShared())
        .isEqualTo(org.xiaochong.method.near.fingerprint.NearSimilarity.idf(2, 10_000));
  }

  @Test
  void isNearDuplicate_idfWeights_aSharedCommonKeyCountsLessThanARareOne() {
    // Six of ten keys shared, four differ: plain Jaccard 6 / 14 < 0.5.
    NearRule.Stored a = new NearRule.Stored(range(1, 10), new long[0], new long[0]);
    NearRule.Stored b =
        new NearRule.Stored(
            new long[] {1, 2, 3, 4, 5, 6, 21, 22, 23, 24}, new long[0], new long[0]);
    assertThat(NearRule.isNearDuplicate(a, b, CONFIG)).isFalse();
    // The shared keys rare (2 of 1,000 records), the differing ones common (900): the evidence
    // agrees.
    NearRule.KeyWeights rareShared =
        NearRule.KeyWeights.idf(
            k -> org.xiaochong.method.near.fingerprint.NearSimilarity.idf(k <= 6 ? 2 : 900, 1000),
            1000);
    assertThat(NearRule.isNearDuplicate(a, b, CONFIG, rareShared)).isTrue();
    assertThat(NearRule.why(a, b, CONFIG, NearRule.UNIT_WEIGHTS))
        .isEqualTo(NearRule.Failure.SIMILARITY);
  }

  @Test
  void similarity_aWholeWordChanged_isNotCountedAgainAsItsGrams() {
    // Words 1-6 against 1-5 and 7 (another category word); the grams of the changed word differ
    // too.
    NearRule.Stored a =
        keys(1, 2, 3, 4, 5, 6, 100, 101, 102, 103, 104, 105)
            .grams(100, 101, 102, 103, 104, 105)
            .stored();
    NearRule.Stored b =
        keys(1, 2, 3, 4, 5, 7, 100, 101, 102, 110, 111, 112)
            .grams(100, 101, 102, 110, 111, 112)
            .stored();
    // All keys: 8 shared of 16; words alone: 5 of 7, the higher one counts.
    assertThat(NearRule.similarity(a, b, NearRule.UNIT_WEIGHTS)).isEqualTo(5.0 / 7);
    // A doubled letter keeps the word's grams and adds one: the keys of both families give the
    // higher
    // figure, 11 shared of 14.
    NearRule.Stored typo =
        keys(1, 2, 3, 4, 5, 8, 100, 101, 102, 103, 104, 105, 113)
            .grams(100, 101, 102, 103, 104, 105, 113)
            .stored();
    assertThat(NearRule.similarity(a, typo, NearRule.UNIT_WEIGHTS)).isEqualTo(11.0 / 14);
  }

  @Test
  void similarity_aFieldTheOtherLeftEmpty_isNoEvidenceAgainstThePair() {
    // Field bit 1: keys 1-4 (a name), bit 2: keys 5-6 (an address line), bit 4: keys 7-8 (a date).
    long[] keys = range(1, 8);
    int[] fields = {1, 1, 1, 1, 2, 2, 4, 4};
    NearRule.Stored full = stored(keys, 7, fields);
    // The same name and date, the address line empty.
    NearRule.Stored noAddress =
        stored(new long[] {1, 2, 3, 4, 7, 8}, 5, new int[] {1, 1, 1, 1, 4, 4});
    assertThat(NearRule.similarity(full, noAddress, NearRule.UNIT_WEIGHTS)).isEqualTo(1.0);
    assertThat(NearRule.similarity(noAddress, full, NearRule.UNIT_WEIGHTS)).isEqualTo(1.0);
    // Fields unknown: the address counts against the pair, 6 of 8.
    NearRule.Stored unknown =
        new NearRule.Stored(new long[] {1, 2, 3, 4, 7, 8}, new long[0], new long[0]);
    assertThat(NearRule.similarity(full, unknown, NearRule.UNIT_WEIGHTS)).isEqualTo(6.0 / 8);
    // An address line both filled in and only one holds still counts against them.
    NearRule.Stored otherAddress =
        stored(new long[] {1, 2, 3, 4, 7, 8, 9}, 7, new int[] {1, 1, 1, 1, 4, 4, 2});
    assertThat(NearRule.similarity(full, otherAddress, NearRule.UNIT_WEIGHTS)).isEqualTo(6.0 / 9);
  }

  @Test
  void similarity_eachPostWithAFieldTheOtherLacks_countsEveryKey() {
    // A citation with a booktitle (bit 2) against one with a journal (bit 8): another structure,
    // not a
    // missing value, so the venue words of both count.
    NearRule.Stored inProceedings =
        stored(new long[] {1, 2, 3, 4, 5, 6}, 3, new int[] {1, 1, 1, 1, 2, 2});
    NearRule.Stored inJournal =
        stored(new long[] {1, 2, 3, 4, 7, 8}, 9, new int[] {1, 1, 1, 1, 8, 8});
    assertThat(NearRule.similarity(inProceedings, inJournal, NearRule.UNIT_WEIGHTS))
        .isEqualTo(4.0 / 8);
  }

  @Test
  void similarity_aTypoInAShortField_isComparedByItsGrams() {
    // Field bit 1, short (a surname): word key 1, q-grams 100-104; field bit 2, long: words 10 and
    // 11.
    NearRule.Stored a =
        typo(
            new long[] {1, 10, 11, 100, 101, 102, 103, 104},
            new int[] {1, 2, 2, 1, 1, 1, 1, 1},
            new long[] {100, 101, 102, 103, 104},
            1);
    // The surname mistyped: word key 2, three of its five q-grams kept.
    NearRule.Stored b =
        typo(
            new long[] {2, 10, 11, 100, 101, 102, 110, 111},
            new int[] {1, 2, 2, 1, 1, 1, 1, 1},
            new long[] {100, 101, 102, 110, 111},
            1);
    // All keys 5 / 11, words 2 / 4; the typo view (q-grams of the surname, words of the rest) 5 /
    // 9.
    assertThat(NearRule.similarity(a, b, NearRule.UNIT_WEIGHTS))
        .isCloseTo(RuleSimilarity.TYPO_DISCOUNT * 5 / 9, within(1e-12));
    // A field short in one post only is compared by its words: no typo view.
    NearRule.Stored longInB = typo(b.keys(), b.keyFields(), b.grams(), 0);
    assertThat(NearRule.similarity(a, longInB, NearRule.UNIT_WEIGHTS)).isEqualTo(0.5);
  }

  @Test
  void why_aSubjectOnlyInShortFields_isNoVeto_butOneInLongerTextIs() {
    // Subject key 1 (repeated), in field bit 1; the candidate lacks it and shares the other nine
    // keys.
    long[] keys = range(1, 10);
    int[] fields = {1, 2, 2, 2, 2, 2, 2, 2, 2, 2};
    NearRule.Stored candidate = new NearRule.Stored(range(2, 11), new long[0], new long[0]);
    NearRule.Stored shortName = keys(keys).top(1).fields(3, fields).shortFields(1).stored();
    assertThat(NearRule.why(shortName, candidate, CONFIG, NearRule.UNIT_WEIGHTS)).isNull();
    NearRule.Stored longText = keys(keys).top(1).fields(3, fields).shortFields(2).stored();
    assertThat(NearRule.why(longText, candidate, CONFIG, NearRule.UNIT_WEIGHTS))
        .isEqualTo(NearRule.Failure.SUBJECT);
    assertThat(
            NearRule.why(
                new NearRule.Stored(keys, new long[] {1}, new long[0]),
                candidate,
                CONFIG,
                NearRule.UNIT_WEIGHTS))
        .isEqualTo(NearRule.Failure.SUBJECT);
  }

  private static NearRule.Stored typo(long[] keys, int[] fields, long[] grams, int shortFields) {
    return keys(keys).grams(grams).fields(3, fields).shortFields(shortFields).stored();
  }

  private static NearRule.Stored stored(long[] keys, int present, int[] fields) {
    return keys(keys).fields(present, fields).stored();
  }

  @Test
  void stopBefore_aCommonKey_onlyOnceACandidateWasFound() {
    assertThat(NearCandidates.stopBefore(NearCandidates.COMMON_KEY + 1, 0)).isFalse();
    assertThat(NearCandidates.stopBefore(NearCandidates.COMMON_KEY + 1, 1)).isTrue();
    assertThat(NearCandidates.stopBefore(NearCandidates.COMMON_KEY, 3)).isFalse();
  }

  @Test
  void similarity_contradictedPlaceOrNumber_addsItsWeightToTheUnion_andWhyNamesIt() {
    // 9 of 11 keys shared (Jaccard 0.82 with unit weights); the two regions (keys 100, 200, outside
    // the
    // key sets) contradict each other and add their weights to the union: 9 / (11 + 2) = 0.69.
    org.xiaochong.method.near.fingerprint.Evidence henan =
        new org.xiaochong.method.near.fingerprint.Evidence.Builder().addPlace(0, 100).build();
    org.xiaochong.method.near.fingerprint.Evidence hebei =
        new org.xiaochong.method.near.fingerprint.Evidence.Builder().addPlace(0, 200).build();
    long[] keys = range(1, 10);
    long[] other = new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 11};
    NearRule.Stored a = keys(keys).evidence(henan).stored();
    NearRule.Stored b = keys(other).evidence(hebei).stored();
    NearRule.Stored sameRegion = keys(other).evidence(henan).stored();
    assertThat(NearRule.similarity(a, sameRegion, NearRule.UNIT_WEIGHTS))
        .isCloseTo(9.0 / 11, within(1e-9));
    assertThat(NearRule.similarity(a, b, NearRule.UNIT_WEIGHTS)).isCloseTo(9.0 / 13, within(1e-9));
    // At 0.75 the keys alone pass (0.82) and the contradiction fails the pair.
    NearConfig strict = CONFIG.withMinSimilarity(0.75);
    assertThat(NearRule.why(a, sameRegion, strict, NearRule.UNIT_WEIGHTS)).isNull();
    assertThat(NearRule.why(a, b, strict, NearRule.UNIT_WEIGHTS))
        .isEqualTo(NearRule.Failure.CONTRADICTED);
    assertThat(NearRule.why(a, b, CONFIG.withMinSimilarity(0.9), NearRule.UNIT_WEIGHTS))
        .isEqualTo(NearRule.Failure.SIMILARITY);
  }

  /**
   * Evidence of a post: its price (the number column, keyed {@code key}), its place (0: none) and
   * its seller (phone column, then contact column; 0: empty).
   */
  private static Evidence offer(String price, long key, long place, long phone, long contact) {
    return new Evidence.Builder()
        .addPlace(0, place)
        .addNumber(1, price, term -> key)
        .addSeller(0, phone)
        .addSeller(1, contact)
        .build();
  }

  /** Keys 1..10: subject 1, price key 8, at 3.50 元 in place 50. */
  private static HandMadeKeys offerAt(long phone, long contact, long telKey) {
    HandMadeKeys keys = keys(range(1, 10)).top(1).numbers(8);
    keys.evidence(offer("3.50元", 8, 50, phone, contact));
    return telKey == 0 ? keys : keys.tel(telKey);
  }

  /** The offer at 5.00 元 (30 % more; key 12 for key 8), optionally another word and place. */
  private static HandMadeKeys repriced(
      long phone, long contact, long telKey, boolean otherWord, long place) {
    HandMadeKeys keys =
        (otherWord ? keys(1, 2, 3, 4, 5, 6, 7, 9, 11, 12) : keys(1, 2, 3, 4, 5, 6, 7, 9, 10, 12))
            .top(1)
            .numbers(12);
    keys.evidence(offer("5.00元", 12, place, phone, contact));
    return telKey == 0 ? keys : keys.tel(telKey);
  }

  @Test
  void why_sameSellersRepostAtANewPrice_isADuplicate_saidSoByIsSellerRepost() {
    // The same phone in the text.
    NearRule.Stored post = offerAt(0, 0, 9).stored();
    NearRule.Stored repost = repriced(0, 0, 9, false, 50).stored();
    assertThat(NearRule.why(post, repost, CONFIG, NearRule.UNIT_WEIGHTS)).isNull();
    assertThat(NearRule.why(repost, post, CONFIG, NearRule.UNIT_WEIGHTS)).isNull();
    assertThat(NearRule.isSellerRepost(post, repost)).isTrue();
    assertThat(NearRule.isSellerRepost(post, post)).as("nothing lifted").isFalse();
    // The same phone column, no phone in the text.
    assertThat(
            NearRule.why(
                offerAt(77, 0, 0).stored(),
                repriced(77, 0, 0, false, 50).stored(),
                CONFIG,
                NearRule.UNIT_WEIGHTS))
        .isNull();
    // No phone at all: the same contact.
    assertThat(
            NearRule.why(
                offerAt(0, 5, 0).stored(),
                repriced(0, 5, 0, false, 50).stored(),
                CONFIG,
                NearRule.UNIT_WEIGHTS))
        .isNull();
  }

  @Test
  void why_newPriceWithoutAKnownSharedSeller_isContradicted() {
    NearRule.Failure contradicted = NearRule.Failure.CONTRADICTED;
    // Another phone column (the phone decides before the contact).
    assertThat(
            NearRule.why(
                offerAt(77, 5, 0).stored(),
                repriced(78, 5, 0, false, 50).stored(),
                CONFIG,
                NearRule.UNIT_WEIGHTS))
        .isEqualTo(contradicted);
    // Another contact, no phones.
    assertThat(
            NearRule.why(
                offerAt(0, 5, 0).stored(),
                repriced(0, 6, 0, false, 50).stored(),
                CONFIG,
                NearRule.UNIT_WEIGHTS))
        .isEqualTo(contradicted);
    // No seller known (housing ads): a price more than 10 % off is another offer.
    assertThat(
            NearRule.why(
                offerAt(0, 0, 0).stored(),
                repriced(0, 0, 0, false, 50).stored(),
                CONFIG,
                NearRule.UNIT_WEIGHTS))
        .isEqualTo(contradicted);
  }

  @Test
  void why_sameSellerWithAnotherWordOrPlace_isAnotherOffer() {
    NearRule.Stored post = offerAt(0, 0, 9).stored();
    // Key 11 in place of key 10 (another grade or variety) at the new price.
    NearRule.Stored otherGrade = repriced(0, 0, 9, true, 50).stored();
    assertThat(NearRule.why(post, otherGrade, CONFIG, NearRule.UNIT_WEIGHTS))
        .isEqualTo(NearRule.Failure.CONTRADICTED);
    assertThat(NearRule.isSellerRepost(post, otherGrade)).isFalse();
    // A word only one post holds (a sentence added) at the new price: still the seller's repost.
    NearRule.Stored addedWord =
        keys(1, 2, 3, 4, 5, 6, 7, 9, 10, 12, 13)
            .top(1)
            .tel(9)
            .numbers(12)
            .evidence(offer("5.00元", 12, 50, 0, 0))
            .stored();
    assertThat(NearRule.why(post, addedWord, CONFIG, NearRule.UNIT_WEIGHTS)).isNull();
    // Another place, whatever the seller.
    NearRule.Stored otherPlace = repriced(0, 0, 9, false, 51).stored();
    assertThat(NearRule.why(post, otherPlace, CONFIG, NearRule.UNIT_WEIGHTS))
        .isEqualTo(NearRule.Failure.CONTRADICTED);
  }
}
