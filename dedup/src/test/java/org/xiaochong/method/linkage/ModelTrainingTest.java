package org.xiaochong.method.linkage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
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

  /**
   * Candidate pairs shaped as patstat's: 8,000 pairs of one company's rows (the same name, 20 %
   * sharing co-inventors), 1,000 pairs of other companies that share co-inventors, 4,000 that share
   * neither. EM from the priors and from the warm start settle on two different fits.
   */
  private static ModelTraining companies() {
    ModelTraining training =
        new ModelTraining(
            List.of("name", "coauthor", "class"),
            List.of(ColumnKind.NAME, ColumnKind.TEXT, ColumnKind.TEXT));
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 20_000; i++) {
      training.addRandomPair(
          new int[] {
            random.nextDouble() < 0.01 ? 4 : 0,
            random.nextDouble() < 0.01 ? 5 : 0,
            random.nextDouble() < 0.05 ? 5 : 0
          });
    }
    for (int i = 0; i < 8_000; i++) {
      training.addCandidatePair(
          new int[] {4, random.nextDouble() < 0.2 ? 5 : 0, random.nextDouble() < 0.5 ? 5 : 0});
    }
    for (int i = 0; i < 1_000; i++) {
      training.addCandidatePair(new int[] {0, 5, random.nextDouble() < 0.3 ? 5 : 0});
    }
    for (int i = 0; i < 4_000; i++) {
      training.addCandidatePair(new int[] {0, 0, random.nextDouble() < 0.05 ? 5 : 0});
    }
    return training;
  }

  @Test
  void ofTwoFitsTheOneWhoseLinksCloseIsUsedAndTheNotesSayWhy() {
    List<LinkageModel> asked = new ArrayList<>();
    LinkageModel model =
        companies()
            .fit(
                ModelTraining.Style.MIXTURE,
                fit -> {
                  asked.add(fit);
                  // The first fit asked is the one from the priors.
                  return new ModelTraining.Closure(asked.size() == 1 ? 700 : 950, 1_000);
                });
    assertThat(asked).hasSize(2);
    assertThat(asked.get(0).lambda()).isBetween(0.3, 0.45);
    assertThat(asked.get(1).lambda()).isBetween(0.6, 0.75); // the company is the match
    assertThat(model.lambda()).isEqualTo(asked.get(1).lambda());
    assertThat(model.weight(0, 4)).isGreaterThan(5); // the same name identifies
    assertThat(model.notes())
        .anyMatch(
            line -> line.startsWith("EM from two starts") && line.endsWith("second fit is used"));

    LinkageModel fromPriors =
        companies()
            .fit(
                ModelTraining.Style.MIXTURE,
                fit -> new ModelTraining.Closure(fit.lambda() < 0.5 ? 950 : 700, 1_000));
    assertThat(fromPriors.lambda()).isEqualTo(asked.get(0).lambda());
    assertThat(fromPriors.notes()).anyMatch(line -> line.endsWith("first fit is used"));
  }

  @Test
  void closingMoreDecidesOnlyPastTheMarginAndTheNoise_elseTheFitFurtherFromRandomPairs() {
    ModelTraining.Closure few = new ModelTraining.Closure(187, 224); // freedb from the priors: .83
    ModelTraining.Closure more = new ModelTraining.Closure(28_909, 33_102); // its warm fit: .87
    assertThat(ModelTraining.usesSecond(few, more, 32.2, 2.7)).isFalse(); // within the noise
    assertThat(ModelTraining.usesSecond(few, more, 2.7, 32.2)).isTrue();
    ModelTraining.Closure close = new ModelTraining.Closure(22_731, 23_983); // childcare: .948
    ModelTraining.Closure closer = new ModelTraining.Closure(25_869, 27_043); // .957, significant
    assertThat(ModelTraining.usesSecond(close, closer, 26.7, 24.1)).isFalse(); // below the margin
    ModelTraining.Closure open = new ModelTraining.Closure(8_080, 10_916); // patstat: .74
    ModelTraining.Closure closed = new ModelTraining.Closure(59_869, 62_559); // .96
    assertThat(ModelTraining.usesSecond(open, closed, 10.8, 5.2)).isTrue();
    assertThat(ModelTraining.usesSecond(closed, open, 5.2, 10.8)).isFalse();
    // A fit that links nothing closes nothing: it wins only by its separation.
    ModelTraining.Closure none = new ModelTraining.Closure(0, 0);
    assertThat(ModelTraining.usesSecond(open, none, 10.8, 0.5)).isFalse();
    assertThat(ModelTraining.usesSecond(none, closed, 0.5, 5.2)).isTrue();
  }

  @Test
  void whenBothStartsReachTheSameFitItIsUsedWithoutAsking() {
    LinkageModel model =
        mixture(0.3)
            .fit(
                ModelTraining.Style.MIXTURE,
                fit -> {
                  throw new AssertionError("the fits agree: nothing to choose");
                });
    LinkageModel alone = mixture(0.3).fit();
    assertThat(model.lambda()).isEqualTo(alone.lambda());
    assertThat(model.m()).isDeepEqualTo(alone.m());
    assertThat(model.notes()).noneMatch(line -> line.startsWith("EM from two starts"));
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
