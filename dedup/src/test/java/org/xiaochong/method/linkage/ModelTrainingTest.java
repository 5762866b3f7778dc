package org.xiaochong.method.linkage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelTrainingTest {
  private static final List<String> COLUMNS = List.of("surname", "dob");
  private static final List<ColumnKind> KINDS = List.of(ColumnKind.NAME, ColumnKind.DATE);

  /**
   * Candidate pairs drawn from a known mixture: 30 % true pairs (surname exact 90 %, dob exact 80
   * %), the rest random pairs (surname exact 1 %, dob exact 0.1 %).
   */
  private static ModelTraining mixture(double trueShare) {
    ModelTraining training = new ModelTraining(COLUMNS, KINDS);
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 50_000; i++) {
      training.addRandomPair(randomPair(random));
    }
    for (int i = 0; i < 20_000; i++) {
      if (random.nextDouble() < trueShare) {
        training.addCandidatePair(
            new int[] {random.nextDouble() < 0.9 ? 4 : 3, random.nextDouble() < 0.8 ? 3 : 2});
      } else {
        training.addCandidatePair(randomPair(random));
      }
    }
    return training;
  }

  /** Random pairs: surname exact 1 %, close 5 %; dob exact 0.1 %, one edit 5 %. */
  private static int[] randomPair(SplittableRandom random) {
    double s = random.nextDouble();
    double d = random.nextDouble();
    return new int[] {s < 0.01 ? 4 : s < 0.06 ? 3 : 0, d < 0.001 ? 3 : d < 0.051 ? 2 : 0};
  }

  @Test
  void emRecoversTheShareOfTruePairsAndTheirAgreement() {
    LinkageModel model = mixture(0.3).fit();
    assertThat(model.lambda()).isBetween(0.27, 0.33);
    assertThat(model.m()[0][4]).isBetween(0.85, 0.95);
    assertThat(model.m()[1][3]).isBetween(0.75, 0.85);
    assertThat(model.u()[0][4]).isBetween(0.006, 0.014);
    // Agreement on both is a match, disagreement on both is not.
    assertThat(model.probability(new int[] {4, 3})).isGreaterThan(0.999);
    assertThat(model.probability(new int[] {0, 0})).isLessThan(0.001);
    assertThat(model.probability(new int[] {-1, -1})).isEqualTo(model.lambda(), within());
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-9);
  }

  /**
   * Sessions, on candidates that a surname key brought together: 3,000 true pairs (surname exact 90
   * %, dob exact 80 %) and 7,000 non-matches that share the surname and have random dobs, among
   * 10,000 records. Only the session blocked on surname can tell them apart (by dob), and only the
   * one blocked on dob sees the true pairs' surnames.
   */
  @Test
  void sessionsFitEachColumnWhereAnotherColumnBlocksAndKeepTheRandomPairsU() {
    ModelTraining training = new ModelTraining(COLUMNS, KINDS);
    SplittableRandom random = new SplittableRandom(11);
    for (int i = 0; i < 50_000; i++) {
      training.addRandomPair(randomPair(random));
    }
    for (int i = 0; i < 3_000; i++) {
      training.addCandidatePair(
          new int[] {random.nextDouble() < 0.9 ? 4 : 3, random.nextDouble() < 0.8 ? 3 : 2});
    }
    for (int i = 0; i < 7_000; i++) {
      training.addCandidatePair(new int[] {4, randomPair(random)[1]});
    }
    training.records(10_000, 10_000);
    LinkageModel model = training.fit(ModelTraining.Style.SESSIONS);
    // Non-matches one dob edit apart (5 %) look like the true pairs' 20 %: a few of them are taken
    // for matches, which pulls the exact share below 0.8.
    assertThat(model.m()[1][3]).isBetween(0.70, 0.85);
    assertThat(model.m()[0][4]).isBetween(0.85, 0.95);
    assertThat(model.u()[0][4]).isBetween(0.008, 0.012);
    assertThat(model.u()[1][3]).isBetween(0.0007, 0.0013);
    // The prior is per pair of records: at most the 3,000 candidate pairs (each seen from one side)
    // over the 10,000 x 9,999 ordered pairs, less the share the weights leave in doubt.
    assertThat(model.lambda()).isBetween(1e-6, 3e-5);
    assertThat(model.notes())
        .anySatisfy(n -> assertThat(n).contains("training session on surname"))
        .anySatisfy(n -> assertThat(n).contains("training session on dob"));
    assertThat(model.weight(0, 4) + model.weight(1, 3)).isGreaterThan(15);
    assertThat(model.probability(new int[] {4, 0})).isLessThan(0.001);
  }

  @Test
  void aColumnNoSessionCanFitKeepsItsPriorAndSaysSo() {
    // Every random pair agrees on surname: no session on it, so dob is never fitted.
    ModelTraining training = new ModelTraining(COLUMNS, KINDS);
    for (int i = 0; i < 1000; i++) {
      training.addRandomPair(new int[] {4, 0});
      training.addCandidatePair(new int[] {4, i % 2 == 0 ? 3 : 0});
    }
    training.records(1000, 1000);
    LinkageModel model = training.fit(ModelTraining.Style.SESSIONS);
    assertThat(model.notes())
        .anySatisfy(n -> assertThat(n).contains("column dob: no training session fitted it"));
    assertThat(model.m()[1][3]).isEqualTo(ModelTraining.prior(KINDS.get(1).levels())[3]);
  }

  @Test
  void theSameInputGivesTheSameModelWhateverTheOrderOfThePairs() {
    ModelTraining forward = new ModelTraining(COLUMNS, KINDS);
    ModelTraining backward = new ModelTraining(COLUMNS, KINDS);
    int[][] pairs = {{3, 3}, {0, 0}, {2, 3}, {0, 3}, {3, 0}, {1, 2}, {0, 0}, {0, 0}};
    for (int i = 0; i < pairs.length; i++) {
      forward.addCandidatePair(pairs[i]);
      backward.addCandidatePair(pairs[pairs.length - 1 - i]);
      forward.addRandomPair(new int[] {0, 0});
      backward.addRandomPair(new int[] {0, 0});
    }
    LinkageModel a = forward.fit();
    LinkageModel b = backward.fit();
    assertThat(a.lambda()).isEqualTo(b.lambda());
    assertThat(a.m()).isDeepEqualTo(b.m());
  }

  @Test
  void candidatePairsThatLookLikeRandomOnesMergeNothingAndSaySo() {
    // Candidate and random pairs agree alike: nothing tells matches from non-matches.
    ModelTraining training = new ModelTraining(COLUMNS, KINDS);
    for (int i = 0; i < 1000; i++) {
      training.addCandidatePair(new int[] {4, 3});
      training.addRandomPair(new int[] {4, 3});
    }
    LinkageModel model = training.fit();
    assertThat(model.notes()).anySatisfy(n -> assertThat(n).contains("no pair is a match"));
    assertThat(model.probability(new int[] {4, 3})).isLessThan(0.5);
  }

  @Test
  void anEmThatPutsEveryCandidatePairAmongTheMatchesIsNotUsed() {
    // Every candidate pair agrees closely and random pairs never do: EM calls them all matches.
    ModelTraining training = new ModelTraining(COLUMNS, KINDS);
    for (int i = 0; i < 1000; i++) {
      training.addCandidatePair(new int[] {i % 2 == 0 ? 4 : 3, 3});
      training.addRandomPair(new int[] {0, 0});
    }
    LinkageModel model = training.fit();
    assertThat(model.notes()).anySatisfy(n -> assertThat(n).contains("not used"));
    assertThat(model.lambda()).isEqualTo(0.01);
    assertThat(model.m()[0][0]).isLessThanOrEqualTo(model.u()[0][0]);
  }

  @Test
  void withoutCandidatePairsTheWeightsAreThePriors() {
    ModelTraining training = new ModelTraining(COLUMNS, KINDS);
    training.addRandomPair(new int[] {0, 0});
    LinkageModel model = training.fit();
    assertThat(model.notes()).anySatisfy(n -> assertThat(n).contains("no candidate pairs"));
    assertThat(model.m()[0]).containsExactly(ModelTraining.prior(KINDS.get(0).levels()));
  }

  @Test
  void closerAgreementNeverWeighsLessAndDisagreementNeverCountsForAMatch() {
    LinkageModel model = mixture(0.3).fit();
    for (int c = 0; c < KINDS.size(); c++) {
      for (int level = 1; level < KINDS.get(c).levels(); level++) {
        assertThat(model.weight(c, level)).isGreaterThanOrEqualTo(model.weight(c, level - 1));
      }
      assertThat(model.weight(c, 0)).isLessThanOrEqualTo(0);
    }
  }

  @Test
  void aSavedModelLoadsAsItWas(@TempDir Path dir) {
    LinkageModel model = mixture(0.2).fit();
    model.save(dir);
    LinkageModel loaded = LinkageModel.load(dir);
    assertThat(loaded.columns()).isEqualTo(model.columns());
    assertThat(loaded.kinds()).isEqualTo(model.kinds());
    assertThat(loaded.m()).isDeepEqualTo(model.m());
    assertThat(loaded.u()).isDeepEqualTo(model.u());
    assertThat(loaded.lambda()).isEqualTo(model.lambda());
  }
}
