package org.xiaochong.method.linkage;

import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.xiaochong.method.MethodReport;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * The linkage method as a job off this machine (the Spark job) needs it: the column kinds and the
 * model saved with the linkage index, frozen, and the settings, with the single machine's own code
 * for a record's compared values, its blocking keys and a pair's match probability. Shipped to the
 * executors whole (serializable); the key maker is made again on each.
 */
public final class FrozenLinkage implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Postings a candidate lookup reads at most ({@link CandidateFinder#POSTINGS_PER_RECORD}). */
  public static final int POSTINGS_PER_RECORD = CandidateFinder.POSTINGS_PER_RECORD;

  /** Holders taken after the record for a key too common to walk ({@link CandidateFinder}). */
  public static final int NEIGHBOURS = CandidateFinder.NEIGHBOURS;

  private final ColumnSet columns;
  private final LinkageModel model;
  private final LinkageSettings settings;
  private final int[] positions;
  private transient BlockingKeys blocking;

  private FrozenLinkage(
      ColumnSet columns, LinkageModel model, LinkageSettings settings, int[] positions) {
    this.columns = columns;
    this.model = model;
    this.settings = settings;
    this.positions = positions;
  }

  /**
   * The kinds and model saved in {@code methodIndexDir} (the linkage index of {@code dedup run}),
   * for a table of {@code spec} and the run's {@code settings}.
   *
   * @throws BadInputException when none were saved there, or they were saved for other columns
   */
  public static FrozenLinkage load(
      Path methodIndexDir, TableSpec spec, Map<String, String> values) {
    if (!ColumnSet.exists(methodIndexDir) || !LinkageModel.exists(methodIndexDir)) {
      throw new BadInputException(
          "the linkage method decides with the column kinds and weights `dedup run --method"
              + " linkage` learns and saves in "
              + methodIndexDir
              + ", and there are none: run it once on one machine first");
    }
    LinkageSettings settings = LinkageSettings.of(values, spec);
    ColumnSet columns = ColumnSet.load(methodIndexDir);
    if (!columns.columns().equals(settings.columns())) {
      throw new BadInputException(
          "the linkage weights in "
              + methodIndexDir
              + " are for the columns "
              + columns.columns()
              + ", not "
              + settings.columns()
              + ": run `dedup run --method linkage --full` once to learn them again");
    }
    return new FrozenLinkage(
        columns, LinkageModel.load(methodIndexDir), settings, columns.positions(spec));
  }

  /** The compared values of a record, as the linkage index holds them. */
  public String[] values(SourceRecord record) {
    return LinkageIndex.values(record, positions, columns.kinds());
  }

  /** The blocking keys of a record with these values, in the order the index lists them. */
  public List<String> keys(String[] values) {
    if (blocking == null) {
      blocking = new BlockingKeys(columns.kinds());
    }
    return new ArrayList<>(blocking.keys(values));
  }

  /** The match probability of two records with these values, under the frozen model. */
  public double probability(String[] a, String[] b) {
    return model.probability(ColumnKind.levels(columns.kinds(), a, b));
  }

  /** The match probability a pair needs to be linked ({@code linkage.threshold}). */
  public double threshold() {
    return settings.threshold();
  }

  /** The most candidates a record looks at ({@code linkage.candidates}). */
  public int candidates() {
    return settings.candidates();
  }

  /** Holders above which a key is too common to walk whole ({@code linkage.max-holders}). */
  public int maxHolders() {
    return settings.maxHolders();
  }

  /**
   * The pass's report from what a job counted, as the single machine's pass reports it.
   *
   * @param repointed earlier removals re-pointed to this pass's survivors ({@link
   *     org.xiaochong.archive.DeletionPlan#collapseChains})
   */
  public MethodReport report(LinkageCounts counts, long repointed) {
    return new LinkageReport(counts, repointed, 0, settings, model, columns, false);
  }
}
