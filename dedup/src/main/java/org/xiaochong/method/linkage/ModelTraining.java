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
    return style == Style.SESSIONS ? fitBySessions() : fit();
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
      monotone(c, m[c], u[c]);
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

  /** The fitted model, m and λ by one mixture over the candidate pairs ({@link Style#MIXTURE}). */
  LinkageModel fit() {
    int n = kinds.size();
    double[][] u = randomShares();
    double[][] randomU = copy(u);
    double[][] prior = priors();
    long total = candidates.values().stream().mapToLong(k -> k[0]).sum();
    List<Map.Entry<Pattern, long[]>> ordered = orderedCandidates();
    double[][] m = copy(prior);
    double lambda = 0.1;
    if (total == 0) {
      notes.add("no candidate pairs to learn from: the weights are the priors");
    } else {
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
          if (nonEvidence > 0) {
            u[c] = smoothed(nonSums[c], nonEvidence);
          }
        }
      }
      if (Math.abs(lambda - lastLambda) > 1e-3) {
        notes.add(
            String.format(
                Locale.ROOT,
                "EM had not settled after %d rounds (the share of matches still moved by %.4f)",
                ROUNDS,
                Math.abs(lambda - lastLambda)));
      }
      if (lambda < 1e-4 || lambda > 0.99 || !Double.isFinite(lambda)) {
        notes.add(
            String.format(
                Locale.ROOT,
                "EM put %s of %,d candidate pairs among the matches: not used; the weights are the"
                    + " priors",
                Double.isFinite(lambda) ? (lambda < 0.5 ? "none" : "all") : "an undefined share",
                total));
        m = copy(prior);
        u = copy(randomU);
        lambda = 0.01;
      }
    }
    for (int c = 0; c < n; c++) {
      monotone(c, m[c], u[c]);
    }
    boolean tells = false;
    for (int c = 0; c < n; c++) {
      int top = m[c].length - 1;
      tells |= LinkageModel.log2(m[c][top] / u[c][top]) >= 1;
    }
    if (!tells) {
      lambda = Math.min(lambda, 0.01);
      notes.add(
          "no column agrees more often among the candidate pairs than among random pairs: no pair"
              + " is a match");
    }
    return new LinkageModel(columns, kinds, m, u, lambda, List.copyOf(notes));
  }

  /**
   * Makes column {@code c}'s weights rise with its levels, by pooling adjacent violators (the
   * isotonic fit of the ratios m / u, weighted by u): a run of levels whose weights fall is given
   * their pooled ratio (Σ m / Σ u). Then its lowest level weighs at most 0 and its highest at least
   * 0.
   */
  private void monotone(int c, double[] m, double[] u) {
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
      notes.add(
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
