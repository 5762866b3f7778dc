package org.xiaochong.spark.linkage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.xiaochong.method.linkage.FrozenLinkage;

class CandidateChoiceTest {
  private static CandidateChoice.Key rare(String key, int position, long... holders) {
    return new CandidateChoice.Key(key, position, holders.length + 1, true, holders);
  }

  @Test
  void choose_allFit_byIdWithoutTheRecordItself() {
    CandidateChoice choice = new CandidateChoice(1_000, 100, 20);

    long[] chosen = choice.choose(List.of(rare("0:v:smith", 0, 9, 3), rare("1:v:1970", 1, 5)));

    assertThat(chosen).containsExactly(3, 5, 9);
    assertThat(choice.postings()).isEqualTo(3 + 2);
  }

  @Test
  void choose_moreThanTheLimit_theMostSharedKeysFirstThenLowerIds() {
    CandidateChoice choice = new CandidateChoice(1_000, 100, 2);

    // 7 shares both keys; 4 and 8 share the rarer one only, 4 being the lower id; 2 the commoner.
    long[] chosen =
        choice.choose(List.of(rare("a", 0, 7, 8, 4), rare("b", 1, 7, 2, 11, 12, 13, 14)));

    assertThat(chosen).containsExactly(4, 7);
  }

  @Test
  void choose_keysPastTheBudget_notWalked() {
    CandidateChoice choice = new CandidateChoice(1_000_000, 5_000, 100);
    long[] many = LongStream.range(1_000, 1_000 + FrozenLinkage.POSTINGS_PER_RECORD).toArray();

    // The rarer key is walked first; the other would pass what is left of the budget.
    long[] chosen = choice.choose(List.of(rare("common", 0, many), rare("rare", 1, 1, 2)));

    assertThat(chosen).containsExactly(1, 2);
    assertThat(choice.postings()).isEqualTo(3);
  }

  @Test
  void choose_equalFrequencies_walkedInUtf8Order() {
    // The budget lasts for one of two keys of 1,999 holders: which comes first decides. As Java
    // strings (UTF-16) the emoji sorts first; as the index's terms (UTF-8 bytes) "\uFF21" does.
    CandidateChoice choice = new CandidateChoice(1_000_000, 5_000, 3);
    long[] first = LongStream.range(10, 10 + 1_998).toArray();
    long[] second = LongStream.range(5_000, 5_000 + 1_998).toArray();

    long[] chosen =
        choice.choose(List.of(rare("\uFF21", 0, second), rare("\uD83D\uDE00", 1, first)));

    assertThat(chosen).containsExactly(5_000, 5_001, 5_002);
  }

  @Test
  void choose_commonKeys_neighboursWeighAsTheLeastOfTheRare() {
    CandidateChoice choice = new CandidateChoice(1_000, 100, 20);

    long[] chosen =
        choice.choose(
            List.of(new CandidateChoice.Key("0:w:ltd", 0, 500, false, new long[] {41, 42, 43})));

    assertThat(chosen).containsExactly(41, 42, 43);
    assertThat(choice.postings()).isEqualTo(3);
  }
}
