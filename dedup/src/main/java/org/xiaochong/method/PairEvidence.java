package org.xiaochong.method;

import java.util.List;
import org.xiaochong.source.SourceRecord;

/**
 * Why a method's rule calls two records duplicates, column by column, as a person reads a
 * match-weight chart: each compared column's level of agreement and the weight it adds (positive
 * for a match, negative against), on top of a prior; the sum gives the match probability. The
 * report draws it under each review pair of the method ({@link
 * FingerprintMethod#openPairEvidence}).
 */
public interface PairEvidence {
  /**
   * One column's part in a pair's match weight.
   *
   * @param column the column's name
   * @param level how the two values compare ("exact", "one edit", "else", "empty")
   * @param weight the bits it adds to the match weight (0 for no evidence)
   */
  record Column(String column, String level, double weight) {}

  /**
   * The evidence on one pair.
   *
   * @param prior the match weight before any column (log2 of the prior odds)
   * @param columns each compared column, in the method's order
   * @param probability the pair's match probability: the prior and the columns' weights summed
   */
  record Chart(double prior, List<Column> columns, double probability) {}

  /**
   * The chart of {@code removed} and {@code kept}, their values in the order of {@link
   * org.xiaochong.source.TableSpec#fingerprintColumns}.
   */
  Chart of(SourceRecord removed, SourceRecord kept);
}
