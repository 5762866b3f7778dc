package org.xiaochong.method.linkage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.commons.codec.digest.DigestUtils;
import org.apache.lucene.index.DirectoryReader;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.archive.PairCheck;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.MethodCheck;
import org.xiaochong.method.MethodColumns;
import org.xiaochong.method.MethodContext;
import org.xiaochong.method.MethodReport;
import org.xiaochong.method.MethodRun;
import org.xiaochong.method.OwnIndexRun;
import org.xiaochong.method.PairEvidence;
import org.xiaochong.method.RecordKeys;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.Window;
import org.xiaochong.prefilter.IndexKeyFilter;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * Field-aware matching (record linkage): each column compared as what it is ({@link ColumnKind}:
 * names by Jaro-Winkler, codes and dates by edit distance, numbers by relative difference, …), the
 * comparisons weighed by a Fellegi-Sunter model learned from the table itself ({@link
 * ModelTraining}: u from random pairs, m by EM), candidates found through per-column keys that
 * survive typos ({@link BlockingKeys}), and linked records grouped ({@link LinkagePass}). It is the
 * method for tables of short fields (people, organisations, places, products), where a typo in a
 * surname or a phone written another way should cost that column's weight, not the record.
 *
 * <p>Its index, {@code <index.dir>/linkage}, holds the keys and the compared values; the column
 * kinds ({@link ColumnSet}) and the model ({@link LinkageModel}) are saved beside it when it is
 * built and frozen until it is rebuilt, so every later run and the apply's re-check decide alike.
 */
public final class LinkageMethod implements FingerprintMethod {
  /** The method's name: its {@code --method} value, rule label, summary section, index folder. */
  public static final String NAME = "linkage";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String formatVersion() {
    return "linkage-doc/1";
  }

  @Override
  public Map<String, String> settingDefaults() {
    return LinkageSettings.DEFAULTS;
  }

  /**
   * {@code linkage.columns}, also one of its settings: a run reads the columns it names even when
   * neither {@code fields.exact} nor another method's columns do. Empty by default (then the method
   * takes the columns of fields.exact), which adds no column.
   */
  @Override
  public Optional<MethodColumns> columns() {
    return Optional.of(MethodColumns.of(Map.of("linkage.columns", "")));
  }

  @Override
  public void checkSettings(Map<String, String> settings, TableSpec table) {
    LinkageSettings.of(settings, table);
  }

  private String indexDigest(MethodContext context, LinkageSettings settings) {
    return DigestUtils.md5Hex(
        String.join("|", context.recordDigest(), formatVersion(), settings.documentsDigest()));
  }

  @Override
  public MethodRun open(MethodContext context) {
    return open(context, context.rebuild());
  }

  @Override
  public Optional<MethodRun> openIfBuilt(MethodContext context) {
    return FingerprintIndex.exists(context.indexDir(this))
        ? Optional.of(open(context, false))
        : Optional.empty();
  }

  /**
   * The online check ({@link LinkageCheck}) over the linkage index, with the kinds and the model it
   * was built with; empty until a run built them.
   */
  @Override
  public Optional<MethodCheck<?>> openCheck(MethodContext context, boolean writable) {
    java.nio.file.Path dir = context.indexDir(this);
    if (!FingerprintIndex.exists(dir) || !ColumnSet.exists(dir) || !LinkageModel.exists(dir)) {
      return Optional.empty();
    }
    LinkageSettings settings = LinkageSettings.of(context.settings(), context.spec());
    String digest = indexDigest(context, settings);
    return Optional.of(
        new LinkageCheck(
            writable
                ? FingerprintIndex.open(dir, digest, false)
                : FingerprintIndex.openReadOnly(dir, digest),
            context.spec(),
            settings,
            ColumnSet.load(dir),
            LinkageModel.load(dir)));
  }

  /**
   * Both rows' columns compared as the pass compares them, under the frozen model: a duplicate when
   * the match probability still reaches the threshold. Without a saved model nothing is: the
   * changed rows stay.
   */
  @Override
  public PairCheck openPairCheck(MethodContext context) {
    LinkageSettings settings = LinkageSettings.of(context.settings(), context.spec());
    if (context.recordIndex() == null) {
      return (removed, kept) -> false; // no index, no model (a Spark apply): changed rows stay
    }
    return frozen(context)
        .<PairCheck>map(
            pairs ->
                (removed, kept) ->
                    pairs.model().probability(pairs.levels(removed, kept)) >= settings.threshold())
        .orElse((removed, kept) -> false);
  }

  /** The frozen model's weights of a pair, column by column, as {@code explain} gives them. */
  @Override
  public Optional<PairEvidence> openPairEvidence(MethodContext context) {
    return frozen(context)
        .map(pairs -> (removed, kept) -> pairs.model().chart(pairs.levels(removed, kept)));
  }

  /** The kinds and model saved with the index, and where the compared columns are in a record. */
  private record FrozenPairs(ColumnSet columns, LinkageModel model, int[] positions) {
    /** The levels of two records' compared columns. */
    int[] levels(SourceRecord a, SourceRecord b) {
      List<ColumnKind> kinds = columns.kinds();
      return ColumnKind.levels(
          kinds,
          LinkageIndex.values(a, positions, kinds),
          LinkageIndex.values(b, positions, kinds));
    }
  }

  /** The saved kinds and model of the index, or empty before they are built. */
  private Optional<FrozenPairs> frozen(MethodContext context) {
    java.nio.file.Path dir = context.indexDir(this);
    if (!ColumnSet.exists(dir) || !LinkageModel.exists(dir)) {
      return Optional.empty();
    }
    ColumnSet columns = ColumnSet.load(dir);
    return Optional.of(
        new FrozenPairs(columns, LinkageModel.load(dir), columns.positions(context.spec())));
  }

  private MethodRun open(MethodContext context, boolean rebuild) {
    LinkageSettings settings = LinkageSettings.of(context.settings(), context.spec());
    return new Run(
        context,
        settings,
        FingerprintIndex.open(context.indexDir(this), indexDigest(context, settings), rebuild));
  }

  /** The linkage index of one run. Not thread-safe. */
  private static final class Run extends OwnIndexRun<IndexKeyFilter> {
    private final LinkageSettings settings;
    private ColumnSet columns;

    Run(MethodContext context, LinkageSettings settings, FingerprintIndex index) {
      super(context, index, null);
      this.settings = settings;
    }

    /**
     * An index built from empty first decides its columns' kinds from a sample of the table (and
     * forgets any model of an earlier build); later syncs use the saved kinds.
     */
    @Override
    public OptionalLong sync(RecordSource source, long[] skipSorted) {
      if (indexIsNew() || !ColumnSet.exists(index.path())) {
        columns = ColumnSet.infer(source, settings);
        columns.save(index.path());
        try {
          java.nio.file.Files.deleteIfExists(index.path().resolve(LinkageModel.FILE));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        context.notes().accept("linkage columns: " + String.join("; ", columns.lines()));
        columns.notes().forEach(note -> context.notes().accept("linkage: " + note));
      } else {
        columns = ColumnSet.load(index.path());
      }
      int[] positions = columns.positions(context.spec());
      return syncDocuments(
          source,
          skipSorted,
          "linkage index",
          () ->
              LinkageIndex.maker(
                  columns.kinds(),
                  positions,
                  context.spec().keepPolicy(),
                  context.spec().fingerprintColumns()));
    }

    @Override
    public MethodReport pass(RecordKeys records, DeletionPlan plan, Window window) {
      if (columns == null) {
        columns = ColumnSet.load(index.path());
      }
      LinkageCounts result;
      LinkageModel model;
      boolean trained = false;
      long skipped = 0;
      for (int i = 0; i < plan.size(); i++) {
        if (window.contains(plan.removedId(i), plan.removedState(i).time())) {
          skipped++;
        }
      }
      long[] removed = plan.removedIdsSorted();
      if (removed.length > 0) {
        // The records an earlier method of the run removed leave the index, as a sync in this run
        // leaves them out: they would hold keys and candidate places, so the decisions would
        // depend on whether an earlier dry run had indexed them. A later sync indexes them again
        // if they stay in the table.
        delete(removed);
      }
      try (DirectoryReader reader = index.openReader()) {
        LinkagePass pass =
            new LinkagePass(
                new IndexSnapshot(reader, context.spec().keepPolicy()),
                settings,
                columns.kinds(),
                context.apart());
        if (LinkageModel.exists(index.path())) {
          model = LinkageModel.load(index.path());
        } else {
          model = pass.train(columns.columns(), columns.notes());
          model.save(index.path());
          trained = true;
          model.notes().stream()
              .filter(note -> !columns.notes().contains(note))
              .forEach(note -> context.notes().accept("linkage: " + note));
        }
        result = pass.run(window, plan, model, skipped);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      long repointed = plan.collapseChains();
      return new LinkageReport(result, repointed, indexAdded(), settings, model, columns, trained);
    }
  }

  /**
   * Lines that describe a linkage pass's model: each column's kind and its weights from the closest
   * level down, λ, the pass's counts and the training notes; empty for another method's report.
   */
  public static List<String> describe(MethodReport report) {
    if (!(report instanceof LinkageReport linkage)) {
      return List.of();
    }
    List<String> lines = new java.util.ArrayList<>();
    LinkageModel model = linkage.model();
    lines.add(
        String.format(
            java.util.Locale.ROOT,
            "linkage model (λ %.4f): %s",
            model.lambda(),
            String.join("; ", linkage.columns().lines())));
    StringBuilder weights = new StringBuilder("linkage weights (closest level first):");
    for (int c = 0; c < model.columns().size(); c++) {
      weights.append(' ').append(model.columns().get(c)).append(" [");
      for (int level = model.m()[c].length - 1; level >= 0; level--) {
        weights.append(String.format(java.util.Locale.ROOT, "%.1f", model.weight(c, level)));
        weights.append(level > 0 ? " " : "]");
      }
    }
    lines.add(weights.toString());
    LinkageCounts r = linkage.result();
    lines.add(
        String.format(
            java.util.Locale.ROOT,
            "linkage pass: %,d candidate pairs, %,d links, %,d groups, %,d kept as too far from"
                + " their group's kept record, %,d postings",
            r.candidates(),
            r.links(),
            r.groups(),
            r.indirect(),
            r.postings()));
    model.notes().forEach(note -> lines.add("linkage: " + note));
    return lines;
  }
}
