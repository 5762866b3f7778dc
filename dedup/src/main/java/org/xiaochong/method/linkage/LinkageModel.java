package org.xiaochong.method.linkage;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.xiaochong.method.PairEvidence;
import org.xiaochong.source.BadInputException;

/**
 * A Fellegi-Sunter model of one table: for each compared column and each of its comparison levels,
 * m (the chance that a true pair's values compare at that level) and u (the chance that two random
 * records' values do), and λ, the share of true pairs among the candidate pairs. Two records' match
 * weight is {@code log2(λ / (1 - λ)) + Σ log2(m / u)} over the columns where both have a value (an
 * empty value weighs 0), and their match probability {@code 2^w / (1 + 2^w)} (Fellegi and Sunter
 * 1969; the form Splink prints as a waterfall chart).
 *
 * <p>Fitted by {@link ModelTraining} when the method's index is built, saved beside the index
 * ({@value #FILE}) and frozen until the index is rebuilt, so every later run, the apply's re-check
 * and the online check decide with the same weights. Immutable and thread-safe.
 *
 * @param columns the compared columns, in order
 * @param kinds each column's kind
 * @param m per column, per level (0 = disagree), the chance for a true pair
 * @param u per column, per level, the chance for a random pair
 * @param lambda the share of true pairs among the candidate pairs, in (0, 1)
 * @param notes what training noticed (a column mostly empty, an EM that collapsed), one line each
 */
record LinkageModel(
    List<String> columns,
    List<ColumnKind> kinds,
    double[][] m,
    double[][] u,
    double lambda,
    List<String> notes)
    implements java.io.Serializable {
  /** The model's file in the method's index folder. */
  static final String FILE = "linkage-model.json";

  /** This model with one more line in its notes. */
  LinkageModel withNote(String line) {
    List<String> more = new java.util.ArrayList<>(notes);
    more.add(line);
    return new LinkageModel(columns, kinds, m, u, lambda, List.copyOf(more));
  }

  /** The weight, log2(m / u), of column {@code c} at {@code level}; 0 for no evidence. */
  double weight(int c, int level) {
    return level == ColumnKind.NO_EVIDENCE ? 0 : log2(m[c][level] / u[c][level]);
  }

  /** The match weight of a pair whose columns compare at {@code levels}. */
  double matchWeight(int[] levels) {
    double w = log2(lambda / (1 - lambda));
    for (int c = 0; c < levels.length; c++) {
      w += weight(c, levels[c]);
    }
    return w;
  }

  /** The match probability of a pair whose columns compare at {@code levels}. */
  double probability(int[] levels) {
    return probabilityOf(matchWeight(levels));
  }

  /** The pair's match weight column by column, for a match-weight chart. */
  PairEvidence.Chart chart(int[] levels) {
    List<PairEvidence.Column> parts = new ArrayList<>();
    for (int c = 0; c < levels.length; c++) {
      parts.add(
          new PairEvidence.Column(
              columns.get(c), kinds.get(c).levelName(levels[c]), weight(c, levels[c])));
    }
    return new PairEvidence.Chart(
        log2(lambda / (1 - lambda)), List.copyOf(parts), probability(levels));
  }

  static double probabilityOf(double matchWeight) {
    double odds = Math.pow(2, matchWeight);
    return Double.isInfinite(odds) ? 1 : odds / (1 + odds);
  }

  static double log2(double x) {
    return Math.log(x) / Math.log(2);
  }

  /** The model as saved: columns with kind, m, u and weight per level; λ; notes. */
  Map<String, Object> json() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("format", 1);
    json.put("lambda", lambda);
    List<Map<String, Object>> cols = new ArrayList<>();
    for (int c = 0; c < columns.size(); c++) {
      Map<String, Object> col = new LinkedHashMap<>();
      col.put("column", columns.get(c));
      col.put("kind", kinds.get(c).label());
      List<Map<String, Object>> levels = new ArrayList<>();
      for (int level = m[c].length - 1; level >= 0; level--) {
        Map<String, Object> l = new LinkedHashMap<>();
        l.put("level", kinds.get(c).levelName(level));
        l.put("m", m[c][level]);
        l.put("u", u[c][level]);
        l.put("weight", Math.round(weight(c, level) * 100) / 100.0);
        levels.add(l);
      }
      col.put("levels", levels);
      cols.add(col);
    }
    json.put("columns", cols);
    json.put("notes", notes);
    return json;
  }

  /** Saves the model into {@code dir}. */
  void save(Path dir) {
    SavedJson.write(dir, FILE, json());
  }

  /** Whether a model was saved in {@code dir}. */
  static boolean exists(Path dir) {
    return SavedJson.exists(dir, FILE);
  }

  /**
   * The model saved in {@code dir}.
   *
   * @throws BadInputException when it is missing or unreadable (rebuild the index)
   */
  static LinkageModel load(Path dir) {
    return SavedJson.read(dir, FILE, "the linkage model", LinkageModel::fromJson);
  }

  @SuppressWarnings("unchecked")
  private static LinkageModel fromJson(Map<String, Object> json) {
    List<Map<String, Object>> cols = (List<Map<String, Object>>) json.get("columns");
    List<String> columns = new ArrayList<>();
    List<ColumnKind> kinds = new ArrayList<>();
    double[][] m = new double[cols.size()][];
    double[][] u = new double[cols.size()][];
    for (int c = 0; c < cols.size(); c++) {
      columns.add((String) cols.get(c).get("column"));
      String label = (String) cols.get(c).get("kind");
      kinds.add(java.util.Objects.requireNonNull(ColumnKind.ofLabel(label), label));
      List<Map<String, Object>> levels = (List<Map<String, Object>>) cols.get(c).get("levels");
      m[c] = new double[levels.size()];
      u[c] = new double[levels.size()];
      for (int i = 0; i < levels.size(); i++) {
        int level = levels.size() - 1 - i;
        m[c][level] = ((Number) levels.get(i).get("m")).doubleValue();
        u[c][level] = ((Number) levels.get(i).get("u")).doubleValue();
      }
    }
    return new LinkageModel(
        List.copyOf(columns),
        List.copyOf(kinds),
        m,
        u,
        ((Number) json.get("lambda")).doubleValue(),
        List.copyOf((List<String>) json.getOrDefault("notes", List.of())));
  }
}
