package org.xiaochong.method.linkage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Fits a {@link LinkageModel} to a table without labels, in one of two {@link Style styles}:
 *
 * <ol>
 *   <li><b>u</b> from random pairs: the share of each comparison level among pairs of records drawn
 *       at random (deterministically, by the caller), where nearly every pair is a non-match.
 *   <li><b>m and λ</b> by expectation-maximisation over the candidate pairs (the pairs the blocking
 *       keys bring together): each pair's match probability under the current m, u and λ (E), then
 *       m as the probability-weighted share of each level and λ as the mean probability (M), for a
 *       fixed number of rounds from fixed priors, so the same input always gives the same model.
 *       {@link Style#MIXTURE} (the default) fits one mixture over all candidate pairs and refines u
 *       among them as well (the non-matches of a candidate set agree more often than random pairs
 *       do); {@link Style#SESSIONS} holds u fixed and fits m in sessions blocked on one column
 *       each, as Splink trains. docs/linkage.md compares the two on the labelled sets.
 * </ol>
 *
 * <p>EM has more than one fixed point, and on some tables the one reached from the priors is not
 * identity: on patstat its "matches" are one company's patents that share co-inventors, and the
 * company's name weighs half a bit. So the mixture is fitted from two starts, the priors and a warm
 * start that holds u at the random pairs' shares for the first {@value #U_HELD_ROUNDS} rounds, and
 * when the two fits differ the one whose links behave as duplicates do is used: duplicates are an
 * equivalence, so of two links A–B and A–C the third pair B–C is a link too. The caller counts, on
 * records, how often each fit's two-step links close ({@link LinkClosure}); the warm fit is used
 * only when it closes at least {@link #CLOSURE_MARGIN} more of them and the difference is past two
 * standard errors, else the fit whose matches are further from random pairs (their agreement's
 * Kullback-Leibler divergence from the random pairs', in bits) is. The likelihood cannot choose: it
 * preferred the wrong fit on patstat and on restaurants (docs/evaluation.md).
 *
 * <p>Guards, each with a line in the notes: shares are smoothed (no level has m or u of 0, so no
 * weight is infinite); a column's weights are made to rise with its levels (a closer agreement
 * never counts less than a looser one) and its disagreement never counts for a match; an EM that
 * puts (nearly) every candidate pair in one class is not used: the priors are, with a λ that makes
 * only strong agreement a match. Pairs are counted by their pattern of levels, so a round costs the
 * number of distinct patterns, not of pairs. Not thread-safe.
 */
final class ModelTraining {
  /** EM rounds; the m of real tables settle within about ten. */
  static final int ROUNDS = 30;

  /** Rounds of the warm start in which u stays at the random pairs' shares. */
  static final int U_HELD_ROUNDS = 5;

  /**
   * How much larger a share of closed two-step links the warm fit needs to be used. On the labelled
   * sets the warm fit closes .22 more on patstat (where it is identity), .04 more on freedb and .01
   * more on childcare (where it is not, and the difference is within noise or small).
   */
  static final double CLOSURE_MARGIN = 0.05;

  /** Counts, on records, how often a fitted model's two-step links close. */
  interface LinkClosure {
    Closure of(LinkageModel model);
  }

  /**
   * Of {@code paths} pairs of links A–B, A–C the model makes, {@code closed} had B–C linked too.
   * The share is estimated with one closed and one open pair added (Laplace's rule of succession),
   * so a fit that makes no two-step links does not close "all" of them: its share is one half, give
   * or take a half, and cannot outweigh another fit's.
   */
  record Closure(long closed, long paths) {
    double share() {
      return (closed + 1.0) / (paths + 2.0);
    }

    double variance() {
      return share() * (1 - share()) / (paths + 1.0);
    }
  }

  private final List<String> columns;
  private final List<ColumnKind> kinds;
  private final Map<Pattern, long[]> candidates = new HashMap<>();
  private final long[][] randomCounts;
  private final long[] randomEvidence;
  private long randomPairs;
  private long records;
  private long sampledRecords;
  private final List<String> notes = new ArrayList<>();

  ModelTraining(List<String> columns, List<ColumnKind> kinds) {
    this.columns = List.copyOf(columns);
    this.kinds = List.copyOf(kinds);
    randomCounts = new long[kinds.size()][];
    for (int c = 0; c < kinds.size(); c++) {
      randomCounts[c] = new long[kinds.get(c).levels()];
    }
    randomEvidence = new long[kinds.size()];
  }

  /** Counts one random pair's levels (for u). */
  void addRandomPair(int[] levels) {
    randomPairs++;
    for (int c = 0; c < levels.length; c++) {
      if (levels[c] != ColumnKind.NO_EVIDENCE) {
        randomCounts[c][levels[c]]++;
        randomEvidence[c]++;
      }
    }
  }

  /** Counts one candidate pair's levels (for m and λ). */
  void addCandidatePair(int[] levels) {
    candidates.computeIfAbsent(new Pattern(levels.clone()), p -> new long[1])[0]++;
  }

  /** The table's live records, and how many of them gave their candidate pairs to training. */
  void records(long live, long sampled) {
    records = live;
    sampledRecords = sampled;
  }

  /** A note on the table's columns, carried into the model's notes. */
  void note(String line) {
    notes.add(line);
  }

  /** How m and λ are fitted; u comes from the random pairs under both. */
  enum Style {
    /**
     * One two-class mixture over all candidate pairs, u refined among them too: matches are what
     * sets the candidates apart from the rest of the candidates. The default.
     */
    MIXTURE,
    /**
     * Splink's training sessions: u held at the random pairs' shares; for each selective column, EM
     * over the candidate pairs that agree exactly on it, fitting every other column's m; each
     * column's m the mean of its sessions'; λ the chance that two random records match.
     */
    SESSIONS;

    /** The style's name in config. */
    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * A column is a session's blocking column only when random pairs agree exactly on it at most this
   * often: agreement on a common value (a state, a type) selects no likely matches.
   */
  static final double SESSION_MAX_RANDOM_AGREEMENT = 0.05;

  /** Fewer candidate pairs than this agreeing on a column make no session of it. */
  static final int SESSION_MIN_PAIRS = 20;

  /** The fitted model, m and λ fitted as {@code style} says. */
  LinkageModel fit(Style style) {
    return fit(style, null);
  }

  /**
   * The fitted model; for {@link Style#MIXTURE} from both starts when {@code closure} is given (the
   * class comment), else from the priors only.
   */
  LinkageModel fit(Style style, LinkClosure closure) {
    return style == Style.SESSIONS ? fitBySessions() : fitMixture(closure);
  }

  /**
   * Splink's way ({@link Style#SESSIONS}). In a session blocked on column b every pair agrees on b,
   * so b tells nothing there and is left out of the likelihood; the pairs that agree on b but are
   * not matches are, in the other columns, like random pairs, which is why u can stay fixed.
   */
  private LinkageModel fitBySessions() {
    int n = kinds.size();
    double[][] u = randomShares();
    double[][] prior = priors();
    List<Map.Entry<Pattern, long[]>> ordered = orderedCandidates();
    double[][] mSums = new double[n][];
    int[] sessions = new int[n];
    for (int c = 0; c < n; c++) {
      mSums[c] = new double[kinds.get(c).levels()];
    }
    for (int blocked = 0; blocked < n; blocked++) {
      int top = kinds.get(blocked).levels() - 1;
      if (top < 1 || u[blocked][top] > SESSION_MAX_RANDOM_AGREEMENT) {
        continue;
      }
      List<Map.Entry<Pattern, long[]>> session = new ArrayList<>();
      long pairs = 0;
      for (Map.Entry<Pattern, long[]> entry : ordered) {
        if (entry.getKey().levels[blocked] == top) {
          session.add(entry);
          pairs += entry.getValue()[0];
        }
      }
      if (pairs < SESSION_MIN_PAIRS) {
        continue;
      }
      double[][] m = copy(prior);
      double lambda = 0.5;
      for (int round = 0; round < ROUNDS; round++) {
        double[][] sums = new double[n][];
        for (int c = 0; c < n; c++) {
          sums[c] = new double[kinds.get(c).levels()];
        }
        double matches = 0;
        for (Map.Entry<Pattern, long[]> entry : session) {
          int[] levels = entry.getKey().levels;
          double count = entry.getValue()[0];
          double p = posterior(levels, m, u, lambda, blocked);
          matches += count * p;
          for (int c = 0; c < n; c++) {
            if (c != blocked && levels[c] != ColumnKind.NO_EVIDENCE) {
              sums[c][levels[c]] += count * p;
            }
          }
        }
        lambda = Math.min(1 - 1e-4, Math.max(1e-4, matches / pairs));
        for (int c = 0; c < n; c++) {
          double evidence = Arrays.stream(sums[c]).sum();
          if (c != blocked && evidence > 0) {
            m[c] = smoothed(sums[c], evidence);
          }
        }
      }
      notes.add(
          String.format(
              Locale.ROOT,
              "training session on %s: %,d candidate pairs agree on it, %.0f %% of them matches",
              columns.get(blocked),
              pairs,
              100 * lambda));
      for (int c = 0; c < n; c++) {
        if (c != blocked) {
          for (int level = 0; level < m[c].length; level++) {
            mSums[c][level] += m[c][level];
          }
          sessions[c]++;
        }
      }
    }
    double[][] m = new double[n][];
    for (int c = 0; c < n; c++) {
      if (sessions[c] == 0) {
        m[c] = prior[c].clone();
        notes.add(
            "column " + columns.get(c) + ": no training session fitted it; its m are the priors");
      } else {
        m[c] = new double[mSums[c].length];
        for (int level = 0; level < m[c].length; level++) {
          m[c][level] = mSums[c][level] / sessions[c];
        }
      }
      monotone(c, m[c], u[c], notes);
    }
    return new LinkageModel(
        columns, kinds, m, u, randomPairPrior(ordered, m, u), List.copyOf(notes));
  }

  /**
   * The chance that two random records match: the matches each sampled record expects among its
   * candidates (their match probabilities under this prior), over the records it could match; found
   * as the fixed point of that sum, from a start of one in a million.
   */
  private double randomPairPrior(
      List<Map.Entry<Pattern, long[]>> ordered, double[][] m, double[][] u) {
    if (sampledRecords == 0 || records < 2) {
      notes.add("no records to set the prior by: λ is one in a million");
      return 1e-6;
    }
    double lambda = 1e-6;
    for (int round = 0; round < ROUNDS; round++) {
      double matches = 0;
      for (Map.Entry<Pattern, long[]> entry : ordered) {
        matches += entry.getValue()[0] * posterior(entry.getKey().levels, m, u, lambda, -1);
      }
      lambda = Math.min(0.5, Math.max(1e-9, matches / sampledRecords / (records - 1)));
    }
    return lambda;
  }

  private double[][] randomShares() {
    double[][] u = new double[kinds.size()][];
    for (int c = 0; c < u.length; c++) {
      u[c] = shares(randomCounts[c], randomEvidence[c]);
    }
    return u;
  }

  private double[][] priors() {
    double[][] prior = new double[kinds.size()][];
    for (int c = 0; c < prior.length; c++) {
      prior[c] = prior(kinds.get(c).levels());
    }
    return prior;
  }

  /**
   * The candidate patterns in a fixed order: the sums, and so the model, do not depend on how the
   * pairs came in (one machine or Spark).
   */
  private List<Map.Entry<Pattern, long[]>> orderedCandidates() {
    List<Map.Entry<Pattern, long[]>> ordered = new ArrayList<>(candidates.entrySet());
    ordered.sort((a, b) -> Arrays.compare(a.getKey().levels, b.getKey().levels));
    return ordered;
  }

  /** The fitted model, m and λ by one mixture over the candidate pairs, from the priors. */
  LinkageModel fit() {
    return fitMixture(null);
  }

  private LinkageModel fitMixture(LinkClosure closure) {
    double[][] randomU = randomShares();
    double[][] prior = priors();
    long total = candidates.values().stream().mapToLong(k -> k[0]).sum();
    if (total == 0) {
      List<String> fitNotes = new ArrayList<>(notes);
      fitNotes.add("no candidate pairs to learn from: the weights are the priors");
      return model(prior, copy(randomU), 0.1, fitNotes);
    }
    List<Map.Entry<Pattern, long[]>> ordered = orderedCandidates();
    Fit fromPriors = mixture(ordered, total, prior, randomU, 0);
    LinkageModel priorsModel = settle(fromPriors, total, prior, randomU);
    if (closure == null) {
      return priorsModel;
    }
    Fit warm = mixture(ordered, total, prior, randomU, U_HELD_ROUNDS);
    if (warm.sameAs(fromPriors)) {
      return priorsModel;
    }
    LinkageModel warmModel = settle(warm, total, prior, randomU);
    Closure closes = closure.of(priorsModel);
    Closure warmCloses = closure.of(warmModel);
    double separation = separation(priorsModel.m(), randomU);
    double warmSeparation = separation(warmModel.m(), randomU);
    boolean useWarm = usesSecond(closes, warmCloses, separation, warmSeparation);
    String line =
        String.format(
            Locale.ROOT,
            "EM from two starts: from the priors its links close %.1f %% of %,d two-step links"
                + " (matches %.1f bits from random pairs); with u held for %d rounds %.1f %% of %,d"
                + " (%.1f bits): the %s fit is used",
            100 * closes.share(),
            closes.paths(),
            separation,
            U_HELD_ROUNDS,
            100 * warmCloses.share(),
            warmCloses.paths(),
            warmSeparation,
            useWarm ? "second" : "first");
    return (useWarm ? warmModel : priorsModel).withNote(line);
  }

  /**
   * Whether the second of two fits is used: when it closes more of its two-step links by at least
   * {@link #CLOSURE_MARGIN} and two standard errors of the difference; when neither closes more by
   * that, when its matches are further from random pairs ({@code secondBits > firstBits}).
   */
  static boolean usesSecond(Closure first, Closure second, double firstBits, double secondBits) {
    double gain = second.share() - first.share();
    double noise = 2 * Math.sqrt(first.variance() + second.variance());
    return Math.abs(gain) > Math.max(CLOSURE_MARGIN, noise) ? gain > 0 : secondBits > firstBits;
  }

  /**
   * Two fits whose λ and m differ by no more than this are one (EM's rounds end near, not at, the
   * fixed point they share).
   */
  private static final double SAME_FIT = 0.01;

  /** One EM fit: m, u and λ, and λ a round before the end. */
  private record Fit(double[][] m, double[][] u, double lambda, double lastLambda) {
    boolean sameAs(Fit other) {
      if (Math.abs(lambda - other.lambda) > SAME_FIT) {
        return false;
      }
      for (int c = 0; c < m.length; c++) {
        for (int level = 0; level < m[c].length; level++) {
          if (Math.abs(m[c][level] - other.m[c][level]) > SAME_FIT) {
            return false;
          }
        }
      }
      return true;
    }
  }

  /**
   * {@link #ROUNDS} rounds of EM over the candidate patterns from the priors, u refined among the
   * non-matches after the first {@code heldRounds} (held at the random pairs' shares before).
   */
  private Fit mixture(
      List<Map.Entry<Pattern, long[]>> ordered,
      long total,
      double[][] prior,
      double[][] randomU,
      int heldRounds) {
    int n = kinds.size();
    double[][] m = copy(prior);
    double[][] u = copy(randomU);
    double lambda = 0.1;
    double lastLambda = lambda;
    for (int round = 0; round < ROUNDS; round++) {
      lastLambda = lambda;
      double[][] sums = new double[n][];
      double[][] nonSums = new double[n][];
      for (int c = 0; c < n; c++) {
        sums[c] = new double[kinds.get(c).levels()];
        nonSums[c] = new double[kinds.get(c).levels()];
      }
      double matches = 0;
      for (Map.Entry<Pattern, long[]> entry : ordered) {
        int[] levels = entry.getKey().levels;
        double count = entry.getValue()[0];
        double p = posterior(levels, m, u, lambda);
        matches += count * p;
        for (int c = 0; c < n; c++) {
          if (levels[c] != ColumnKind.NO_EVIDENCE) {
            sums[c][levels[c]] += count * p;
            nonSums[c][levels[c]] += count * (1 - p);
          }
        }
      }
      lambda = matches / total;
      for (int c = 0; c < n; c++) {
        double evidence = Arrays.stream(sums[c]).sum();
        if (evidence > 0) {
          m[c] = smoothed(sums[c], evidence);
        }
        double nonEvidence = Arrays.stream(nonSums[c]).sum();
        if (nonEvidence > 0 && round >= heldRounds) {
          u[c] = smoothed(nonSums[c], nonEvidence);
        }
      }
    }
    return new Fit(m, u, lambda, lastLambda);
  }

  /** The model of one EM fit, with its notes; the priors when EM collapsed to one class. */
  private LinkageModel settle(Fit fit, long total, double[][] prior, double[][] randomU) {
    List<String> fitNotes = new ArrayList<>(notes);
    double lambda = fit.lambda();
    if (Math.abs(lambda - fit.lastLambda()) > 1e-3) {
      fitNotes.add(
          String.format(
              Locale.ROOT,
              "EM had not settled after %d rounds (the share of matches still moved by %.4f)",
              ROUNDS,
              Math.abs(lambda - fit.lastLambda())));
    }
    if (lambda < 1e-4 || lambda > 0.99 || !Double.isFinite(lambda)) {
      fitNotes.add(
          String.format(
              Locale.ROOT,
              "EM put %s of %,d candidate pairs among the matches: not used; the weights are the"
                  + " priors",
              Double.isFinite(lambda) ? (lambda < 0.5 ? "none" : "all") : "an undefined share",
              total));
      return model(copy(prior), copy(randomU), 0.01, fitNotes);
    }
    return model(copy(fit.m()), copy(fit.u()), lambda, fitNotes);
  }

  /** The model of m, u and λ, its weights made monotone; no match when no column tells. */
  private LinkageModel model(double[][] m, double[][] u, double lambda, List<String> fitNotes) {
    int n = kinds.size();
    for (int c = 0; c < n; c++) {
      monotone(c, m[c], u[c], fitNotes);
    }
    boolean tells = false;
    for (int c = 0; c < n; c++) {
      int top = m[c].length - 1;
      tells |= LinkageModel.log2(m[c][top] / u[c][top]) >= 1;
    }
    if (!tells) {
      lambda = Math.min(lambda, 0.01);
      fitNotes.add(
          "no column agrees more often among the candidate pairs than among random pairs: no pair"
              + " is a match");
    }
    return new LinkageModel(columns, kinds, m, u, lambda, List.copyOf(fitNotes));
  }

  /**
   * How far a model's matches are from random pairs: the Kullback-Leibler divergence, in bits, of
   * each column's levels among matches from their shares among random pairs, summed.
   */
  private static double separation(double[][] m, double[][] randomU) {
    double bits = 0;
    for (int c = 0; c < m.length; c++) {
      for (int level = 0; level < m[c].length; level++) {
        bits += m[c][level] * LinkageModel.log2(m[c][level] / randomU[c][level]);
      }
    }
    return bits;
  }

  /**
   * Makes column {@code c}'s weights rise with its levels, by pooling adjacent violators (the
   * isotonic fit of the ratios m / u, weighted by u): a run of levels whose weights fall is given
   * their pooled ratio (Σ m / Σ u). Then its lowest level weighs at most 0 and its highest at least
   * 0.
   */
  private void monotone(int c, double[] m, double[] u, List<String> fitNotes) {
    int levels = m.length;
    double[] before = new double[levels];
    for (int level = 0; level < levels; level++) {
      before[level] = LinkageModel.log2(m[level] / u[level]);
    }
    double[] blockM = new double[levels];
    double[] blockU = new double[levels];
    int[] blockStart = new int[levels];
    int blocks = 0;
    for (int level = 0; level < levels; level++) {
      blockM[blocks] = m[level];
      blockU[blocks] = u[level];
      blockStart[blocks] = level;
      blocks++;
      while (blocks > 1
          && blockM[blocks - 1] / blockU[blocks - 1] < blockM[blocks - 2] / blockU[blocks - 2]) {
        blockM[blocks - 2] += blockM[blocks - 1];
        blockU[blocks - 2] += blockU[blocks - 1];
        blocks--;
      }
    }
    for (int b = 0; b < blocks; b++) {
      int end = b + 1 < blocks ? blockStart[b + 1] : levels;
      double ratio = blockM[b] / blockU[b];
      for (int level = blockStart[b]; level < end; level++) {
        m[level] = ratio * u[level];
      }
    }
    int top = levels - 1;
    if (m[0] > u[0]) {
      m[0] = u[0]; // disagreement never counts for a match
    }
    if (m[top] < u[top]) {
      m[top] = u[top];
    }
    double moved = 0;
    for (int level = 0; level < levels; level++) {
      moved = Math.max(moved, Math.abs(LinkageModel.log2(m[level] / u[level]) - before[level]));
    }
    if (moved >= 1) {
      fitNotes.add(
          "column "
              + columns.get(c)
              + ": weights evened out so that closer agreement never weighs less");
    }
  }

  private static double posterior(int[] levels, double[][] m, double[][] u, double lambda) {
    return posterior(levels, m, u, lambda, -1);
  }

  private static double posterior(
      int[] levels, double[][] m, double[][] u, double lambda, int left) {
    // In logs: a product of many small shares underflows.
    double logMatch = Math.log(lambda);
    double logNon = Math.log(1 - lambda);
    for (int c = 0; c < levels.length; c++) {
      if (c != left && levels[c] != ColumnKind.NO_EVIDENCE) {
        logMatch += Math.log(m[c][levels[c]]);
        logNon += Math.log(u[c][levels[c]]);
      }
    }
    return 1 / (1 + Math.exp(logNon - logMatch));
  }

  /**
   * The starting m: the closest agreement has 0.8 of true pairs, the rest shared out the more the
   * closer the level (1, 2, … parts from "disagree" up).
   */
  static double[] prior(int levels) {
    double[] m = new double[levels];
    if (levels == 1) {
      m[0] = 1;
      return m;
    }
    m[levels - 1] = 0.8;
    double parts = (levels - 1) * levels / 2.0;
    for (int level = 0; level < levels - 1; level++) {
      m[level] = 0.2 * (level + 1) / parts;
    }
    return m;
  }

  /** Counts as shares, with half a count added to every level so that none is 0. */
  private static double[] shares(long[] counts, long total) {
    double[] shares = new double[counts.length];
    for (int level = 0; level < counts.length; level++) {
      shares[level] = (counts[level] + 0.5) / (total + 0.5 * counts.length);
    }
    return shares;
  }

  /**
   * Weighted counts as shares, each level given a pseudo-count of a ten-thousandth of the total: no
   * share is 0, and a level neither class saw gets the same share in both (weight 0), whatever the
   * two classes' sizes.
   */
  private static double[] smoothed(double[] sums, double total) {
    double[] shares = new double[sums.length];
    double pseudo = 1e-4 * total;
    for (int level = 0; level < sums.length; level++) {
      shares[level] = (sums[level] + pseudo) / (total + pseudo * sums.length);
    }
    return shares;
  }

  private static double[][] copy(double[][] values) {
    double[][] copy = new double[values.length][];
    for (int i = 0; i < values.length; i++) {
      copy[i] = values[i].clone();
    }
    return copy;
  }

  /** The levels of a pair, as a hash key. */
  private record Pattern(int[] levels) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Pattern p && Arrays.equals(levels, p.levels);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(levels);
    }
  }
}
