package org.xiaochong.method.near;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
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
import org.xiaochong.method.RecordKeys;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.method.near.fingerprint.NearKeyTimes;
import org.xiaochong.method.near.fingerprint.TopTermsMd5;
import org.xiaochong.method.near.index.NearDocumentMaker;
import org.xiaochong.method.near.index.NearSchema;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.Window;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.TableSpec;

/**
 * Near duplicates: multi-MD5 top-term fingerprints of {@code fields.near} ({@link TopTermsMd5},
 * {@link NearPass}), in an index of their own, {@code <index.dir>/near}, with a counting filter of
 * the near keys kept in step for {@code check}. Segmenting is the costly stage, so the fingerprints
 * are only computed for runs that select this method.
 */
public final class NearMethod implements FingerprintMethod {
  /** The method's name: {@code --method near}, its rule label and its index folder. */
  public static final String NAME = "near";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Map<String, String> settingDefaults() {
    return NearSettings.DEFAULTS;
  }

  @Override
  public Optional<MethodColumns> columns() {
    return Optional.of(NearColumns.KEYS);
  }

  @Override
  public void checkSettings(Map<String, String> settings, TableSpec table) {
    NearSettings.of(settings);
    NearColumns.of(table);
  }

  /** The near settings of {@code context} ({@code near.*}). */
  static NearConfig config(MethodContext context) {
    return NearSettings.of(context.settings());
  }

  /**
   * The near index of the record index at {@code indexDir} for reading only, if a near run built it
   * (and fields.near is set).
   *
   * @param recordDigest the record index's fields digest
   * @param settings the method settings ({@code near.*}; missing keys take their defaults)
   */
  public static Optional<FingerprintIndex> openReadOnlyIfBuilt(
      Path indexDir, String recordDigest, TableSpec table, Map<String, String> settings) {
    Path nearDir = indexDir.resolve(NAME);
    if (NearColumns.of(table).isEmpty() || !FingerprintIndex.exists(nearDir)) {
      return Optional.empty();
    }
    return Optional.of(
        FingerprintIndex.openReadOnly(
            nearDir, indexDigest(recordDigest, table, NearSettings.of(settings))));
  }

  @Override
  public String formatVersion() {
    return TopTermsMd5.FORMAT + "|" + NearSchema.LAYOUT;
  }

  /**
   * The digest of the near index's documents: the record index's fields digest, the format, and the
   * near settings that change fingerprints or stored top keys (not near.min-shared /
   * near.min-similarity, which only the pass reads, so they can be tuned without a rebuild).
   */
  public static String indexDigest(String recordDigest, TableSpec table, NearConfig near) {
    NearColumns columns = NearColumns.of(table);
    return DigestUtils.md5Hex(
        String.join(
            "|",
            recordDigest,
            new NearMethod().formatVersion(),
            String.join(",", columns.mustMatch()),
            String.join(",", columns.place()),
            String.join(",", columns.number()),
            String.join(",", columns.seller()),
            String.valueOf(near.pre()),
            String.valueOf(near.maxChars()),
            String.valueOf(near.useIdf()),
            near.stopwordsLocation(),
            near.synonymsLocation(),
            String.valueOf(near.foldTraditional()),
            String.valueOf(near.grams()),
            String.valueOf(near.shingles())));
  }

  @Override
  public MethodRun open(MethodContext context) {
    if (NearColumns.of(context.spec()).isEmpty()) {
      throw new BadInputException("--method near needs fields.near (it is empty)");
    }
    return new Run(
        context,
        FingerprintIndex.open(
            context.indexDir(this),
            indexDigest(context.recordDigest(), context.spec(), config(context)),
            context.rebuild()));
  }

  @Override
  public Optional<MethodRun> openIfBuilt(MethodContext context) {
    if (NearColumns.of(context.spec()).isEmpty()
        || !FingerprintIndex.exists(context.indexDir(this))) {
      return Optional.empty();
    }
    return Optional.of(
        new Run(
            context,
            FingerprintIndex.open(
                context.indexDir(this),
                indexDigest(context.recordDigest(), context.spec(), config(context)),
                false)));
  }

  /** Near applies to a table with {@code fields.near}; the exact check answers without it. */
  @Override
  public Optional<String> notBuiltNote(TableSpec table) {
    return NearColumns.of(table).isEmpty()
        ? Optional.empty()
        : Optional.of(
            "no near index yet (`dedup run --method near|both` builds it): exact verdicts only");
  }

  @Override
  public Optional<MethodCheck<?>> openCheck(MethodContext context, boolean writable) {
    if (NearColumns.of(context.spec()).isEmpty()
        || !FingerprintIndex.exists(context.indexDir(this))) {
      return Optional.empty();
    }
    String digest = indexDigest(context.recordDigest(), context.spec(), config(context));
    FingerprintIndex index =
        writable
            ? FingerprintIndex.open(context.indexDir(this), digest, false)
            : FingerprintIndex.openReadOnly(context.indexDir(this), digest);
    return Optional.of(
        new NearCheck(
            index,
            context.recordIndex(),
            context.spec(),
            config(context),
            context.prefilter(),
            context.apart(),
            context.notes()));
  }

  /** The near rule on fresh fingerprints of both rows ({@link NearPairCheck}). */
  @Override
  public PairCheck openPairCheck(MethodContext context) {
    if (NearColumns.of(context.spec()).isEmpty()) {
      return PairCheck.EXACT_KEY;
    }
    return new NearPairCheck(context.spec(), config(context));
  }

  /** The near index and filter of one run. Not thread-safe. */
  private static final class Run extends OwnIndexRun<NearKeyFilter> {
    private NearPass.Result last;
    private NearKeyTimes.Snapshot keyTimes = NearKeyTimes.Snapshot.NONE;

    Run(MethodContext context, FingerprintIndex index) {
      super(context, index, NearKeyFilter.KIND);
    }

    /**
     * Fingerprints (smartcn) for rows not yet in the near index; one thread-safe {@link
     * TopTermsMd5} for all workers.
     */
    @Override
    public OptionalLong sync(RecordSource source, long[] skipSorted) {
      try (TopTermsMd5 fingerprinter = new TopTermsMd5(config(context))) {
        OptionalLong added =
            syncDocuments(
                source,
                skipSorted,
                "near index",
                () -> new NearDocumentMaker(context.spec(), fingerprinter));
        keyTimes = fingerprinter.keyFamilyTimes();
        return added;
      }
    }

    @Override
    public MethodReport pass(RecordKeys records, DeletionPlan plan, Window window) {
      NearPass.Result near;
      try (DirectoryReader reader = index.openReader()) {
        near =
            new NearPass(
                    new IndexSnapshot(reader, context.spec().keepPolicy()),
                    config(context),
                    context.threads(),
                    context.apart())
                .run(window, plan.removedIdsSorted(), plan);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      last = near;
      long repointed = plan.collapseChains();
      Map<String, Long> empty = new LinkedHashMap<>();
      near.empty()
          .forEach((reason, count) -> empty.put(reason.name().toLowerCase(Locale.ROOT), count));
      return new NearReport(
          new NearStats(
              near.recordsExamined(),
              near.removed(),
              near.skippedExact(),
              near.lookups(),
              near.candidates(),
              empty,
              near.truncated(),
              repointed,
              indexAdded(),
              keyTimes),
          config(context).minSimilarity());
    }

    /**
     * The near pass does not ask the near filter: it reads every key's document frequency from the
     * term dictionary once ({@code KeyFrequencies}), the exact form of the same filter (a count per
     * key with no false positives), so a Bloom probe could only repeat an answer the pass already
     * has. {@code skipped} counts the keys that map proved held by the record alone (the lookups
     * the filter would skip); the filter itself is kept in step for {@code check}.
     */
    @Override
    public Map<String, Object> prefilterJson() {
      NearKeyFilter filter = filter();
      if (filter == null) {
        return null;
      }
      Map<String, Object> json = new LinkedHashMap<>(); // one order in every report
      json.put("lookups", last == null ? 0L : last.lookups());
      json.put("skipped", last == null ? 0L : last.keysAlone());
      json.put("keys", filter.keys());
      json.put("memory_bytes", filter.memoryBytes());
      json.put("saturated", filter.saturated());
      return json;
    }
  }

  /**
   * The report of a near pass that did {@code stats}' work (a distributed run of the same pass
   * reports through it, so both reports read alike).
   */
  public static MethodReport report(NearStats stats, double minSimilarity) {
    return new NearReport(stats, minSimilarity);
  }

  /** The near pass's stats in a report from this method; empty for another method's report. */
  public static Optional<NearStats> stats(MethodReport report) {
    return report instanceof NearReport near ? Optional.of(near.stats()) : Optional.empty();
  }
}
