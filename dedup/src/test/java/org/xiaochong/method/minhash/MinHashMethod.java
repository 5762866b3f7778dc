package org.xiaochong.method.minhash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
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
import org.xiaochong.method.RecordKeys;
import org.xiaochong.pass.Window;
import org.xiaochong.prefilter.IndexKeyFilter;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.TableSpec;

/**
 * A fourth method, for tests only: MinHash-LSH over the character 3-shingles of its own columns
 * ({@code minhash.fields}) ({@link MinHashSignatures}), in an index of its own with one term per
 * band of the signature, so two records whose shingle sets are alike share a band term with high
 * probability. Two records are duplicates when the share of signature positions they agree on, an
 * estimate of the Jaccard of their shingle sets, is at least {@code minhash.threshold}. It exists
 * to show that a method needs one package and one registry line (here the test class path's {@code
 * META-INF/services} entry): {@code MethodContractIT} runs every registered method, this one
 * included, through run, apply, check, the apply's re-check, the report and restore.
 */
public final class MinHashMethod implements FingerprintMethod {
  /** The method's name: its rule label, summary section and index folder. */
  public static final String NAME = "minhash";

  /** The key of the columns it reads. */
  static final String FIELDS = "minhash.fields";

  private static final Map<String, String> DEFAULTS = Map.of("minhash.threshold", "0.75");

  /**
   * Its columns: {@code minhash.fields}, by default the sample table's text columns, wherever the
   * table reads them anyway (in {@code fields.exact}); a table without them has no minhash.
   */
  private static final MethodColumns COLUMNS =
      MethodColumns.of(Map.of(FIELDS, "title,product,content"));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String formatVersion() {
    return "minhash/" + MinHashSignatures.HASHES + "x" + MinHashSignatures.ROWS;
  }

  @Override
  public Optional<MethodColumns> columns() {
    return Optional.of(COLUMNS);
  }

  @Override
  public Map<String, String> settingDefaults() {
    return DEFAULTS;
  }

  @Override
  public void checkSettings(Map<String, String> settings, TableSpec table) {
    threshold(settings);
  }

  /** {@code minhash.threshold}, in (0, 1]. */
  static double threshold(Map<String, String> settings) {
    String value = settings.getOrDefault("minhash.threshold", DEFAULTS.get("minhash.threshold"));
    double threshold;
    try {
      threshold = Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw new BadInputException("minhash.threshold '" + value + "' is not a number");
    }
    if (!(threshold > 0 && threshold <= 1)) {
      throw new BadInputException("minhash.threshold (" + value + ") must be in (0, 1]");
    }
    return threshold;
  }

  /** Its index's digest: the record index's, its format and its columns (another set rebuilds). */
  private String digest(MethodContext context) {
    return context.recordDigest()
        + "|"
        + formatVersion()
        + "|"
        + String.join(",", context.spec().columns(FIELDS));
  }

  @Override
  public MethodRun open(MethodContext context) {
    if (context.spec().columns(FIELDS).isEmpty()) {
      throw new BadInputException("--method minhash needs " + FIELDS + " (it is empty)");
    }
    return new Run(
        context, FingerprintIndex.open(context.indexDir(this), digest(context), context.rebuild()));
  }

  @Override
  public Optional<MethodRun> openIfBuilt(MethodContext context) {
    if (context.spec().columns(FIELDS).isEmpty()
        || !FingerprintIndex.exists(context.indexDir(this))) {
      return Optional.empty();
    }
    return Optional.of(
        new Run(context, FingerprintIndex.open(context.indexDir(this), digest(context), false)));
  }

  @Override
  public Optional<MethodCheck<?>> openCheck(MethodContext context, boolean writable) {
    if (context.spec().columns(FIELDS).isEmpty()
        || !FingerprintIndex.exists(context.indexDir(this))) {
      return Optional.empty();
    }
    FingerprintIndex index =
        writable
            ? FingerprintIndex.open(context.indexDir(this), digest(context), false)
            : FingerprintIndex.openReadOnly(context.indexDir(this), digest(context));
    return Optional.of(
        new MinHashCheck(
            index,
            new MinHashSignatures(context.spec()),
            context.spec().keepPolicy(),
            threshold(context.settings())));
  }

  /** A table without minhash columns needs no word. */
  @Override
  public Optional<String> notBuiltNote(TableSpec table) {
    return table.columns(FIELDS).isEmpty()
        ? Optional.empty()
        : Optional.of("no minhash index yet (`dedup run --method minhash` builds it)");
  }

  /**
   * Both rows' signatures made as the indexer makes them, alike in at least the threshold's share.
   */
  @Override
  public PairCheck openPairCheck(MethodContext context) {
    if (context.spec().columns(FIELDS).isEmpty()) {
      return PairCheck.EXACT_KEY;
    }
    MinHashSignatures signatures = new MinHashSignatures(context.spec());
    double threshold = threshold(context.settings());
    return (removed, kept) -> {
      int[] a = signatures.of(removed);
      int[] b = signatures.of(kept);
      return a != null && b != null && MinHashSignatures.similarity(a, b) >= threshold;
    };
  }

  /** The minhash index of one run; no key filter. Not thread-safe. */
  private static final class Run extends OwnIndexRun<IndexKeyFilter> {
    Run(MethodContext context, FingerprintIndex index) {
      super(context, index, null);
    }

    @Override
    public OptionalLong sync(RecordSource source, long[] skipSorted) {
      return syncDocuments(
          source, skipSorted, "minhash index", () -> new MinHashSignatures(context.spec()));
    }

    @Override
    public MethodReport pass(RecordKeys records, DeletionPlan plan, Window window) {
      MinHashPass.Result result;
      try (var reader = index.openReader()) {
        result =
            new MinHashPass(
                    reader,
                    context.spec().keepPolicy(),
                    threshold(context.settings()),
                    context.apart())
                .run(window, plan);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      long repointed = plan.collapseChains();
      return new Report(result, repointed, threshold(context.settings()));
    }
  }

  private record Report(MinHashPass.Result result, long repointed, double threshold)
      implements MethodReport {
    @Override
    public long examined() {
      return result.examined();
    }

    @Override
    public java.util.OptionalDouble scoreThreshold() {
      return java.util.OptionalDouble.of(threshold);
    }

    @Override
    public Map<String, Object> json(long removed) {
      return Map.of(
          "removed",
          removed,
          "examined",
          result.examined(),
          "matches",
          result.matches(),
          "repointed",
          repointed);
    }

    @Override
    public String consoleLine(long removed, boolean applied) {
      return String.format(
          "minhash: %,d examined, %,d pairs found, %,d %s",
          result.examined(), result.matches(), removed, applied ? "removed" : "to remove");
    }
  }
}
