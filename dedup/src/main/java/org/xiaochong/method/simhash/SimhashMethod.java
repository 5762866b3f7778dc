package org.xiaochong.method.simhash;

import java.io.IOException;
import java.io.UncheckedIOException;
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
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.Window;
import org.xiaochong.prefilter.IndexKeyFilter;
import org.xiaochong.simhash.Simhash64;
import org.xiaochong.simhash.SimhashIndex;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * Near duplicates of long texts: a 64-bit simhash (Charikar 2002) of {@code simhash.fields}, pairs
 * within Hamming distance {@code simhash.max-distance} (k <= 3) found through four 16-bit block
 * terms (Manku et al. 2007, {@link SimhashIndex}), in an index of its own, {@code
 * <index.dir>/simhash}.
 *
 * <p>Meant for pages: on a short post one edited character changes a large share of its features
 * and moves the fingerprint by 4-6 bits, beyond k, so the multi-MD5 near method stays the one for
 * posts.
 *
 * <p>No prefilter: a counting filter of block terms would skip nothing, since with 16-bit blocks
 * every block value is held by about n / 65,536 records, and the lookup it would guard is already
 * one term-dictionary seek per block.
 */
public final class SimhashMethod implements FingerprintMethod {
  /**
   * The method's name: its {@code --method} value, rule label, summary section and index folder.
   */
  public static final String NAME = "simhash";

  @Override
  public String name() {
    return NAME;
  }

  /** The block layout and the fingerprint (features, hash, weights) of the documents. */
  @Override
  public String formatVersion() {
    return "simhash-doc/1|blocks=" + SimhashIndex.BLOCKS + "x" + SimhashIndex.BLOCK_BITS;
  }

  @Override
  public Map<String, String> settingDefaults() {
    return SimhashConfig.DEFAULTS;
  }

  /**
   * {@code simhash.fields}, also one of its settings: a run reads the columns it names even when
   * neither {@code fields.exact} nor another method's columns do. Empty by default (then the method
   * takes those of fields.near), which adds no column.
   */
  @Override
  public Optional<MethodColumns> columns() {
    return Optional.of(MethodColumns.of(Map.of("simhash.fields", "")));
  }

  @Override
  public void checkSettings(Map<String, String> settings, TableSpec table) {
    SimhashConfig.of(settings, table);
  }

  private String indexDigest(MethodContext context, SimhashConfig config) {
    return DigestUtils.md5Hex(
        String.join("|", context.recordDigest(), formatVersion(), config.documentsDigest()));
  }

  @Override
  public MethodRun open(MethodContext context) {
    return open(context, context.rebuild());
  }

  @Override
  public Optional<MethodRun> openIfBuilt(MethodContext context) {
    boolean built =
        FingerprintIndex.exists(context.indexDir(this))
            && !SimhashConfig.of(context.settings(), context.spec()).fields().isEmpty();
    return built ? Optional.of(open(context, false)) : Optional.empty();
  }

  @Override
  public Optional<MethodCheck<?>> openCheck(MethodContext context, boolean writable) {
    SimhashConfig config = SimhashConfig.of(context.settings(), context.spec());
    if (config.fields().isEmpty() || !FingerprintIndex.exists(context.indexDir(this))) {
      return Optional.empty();
    }
    String digest = indexDigest(context, config);
    FeatureFrequencies frequencies =
        config.tfIdf() ? FeatureFrequencies.load(context.indexDir(this)) : null;
    return Optional.of(
        new SimhashCheck(
            writable
                ? FingerprintIndex.open(context.indexDir(this), digest, false)
                : FingerprintIndex.openReadOnly(context.indexDir(this), digest),
            context.spec(),
            config,
            frequencies));
  }

  /**
   * Each record's fingerprint as this method's index holds it (null when its text has no features),
   * for a run that keeps no index: the Spark job computes it in its map with this code.
   *
   * @param frequencies with tf-idf weights ({@link #tfIdf}), the feature frequencies of the whole
   *     table, counted as an index built from empty counts them ({@link #featureCounter}, {@link
   *     FeatureFrequencies#plus}); ignored with tf weights
   * @throws IllegalArgumentException when the settings ask for tf-idf weights and {@code
   *     frequencies} is null
   */
  public static java.util.function.Function<SourceRecord, Long> fingerprinter(
      TableSpec spec, Map<String, String> settings, FeatureFrequencies frequencies) {
    SimhashConfig config = SimhashConfig.of(settings, spec);
    if (config.tfIdf() && frequencies == null) {
      throw new IllegalArgumentException(
          "simhash.weights=tf-idf needs the table's feature frequencies (featureCounter)");
    }
    SimhashDocumentMaker maker =
        new SimhashDocumentMaker(
            spec, config, Simhash64.withTf(config.features()), config.tfIdf() ? frequencies : null);
    return maker::fingerprint;
  }

  /** Whether the fingerprints take tf-idf weights ({@code simhash.weights=tf-idf}). */
  public static boolean tfIdf(TableSpec spec, Map<String, String> settings) {
    return SimhashConfig.of(settings, spec).tfIdf();
  }

  /**
   * A counter of the feature frequencies for tf-idf weights, counting rows as the simhash index
   * counts the whole table when it is built from empty ({@link FeatureFrequencies}): for a job that
   * counts the table in slices and adds them up with {@link FeatureFrequencies#plus}. One per
   * slice; close it when done.
   */
  public static FeatureFrequencies.Counter featureCounter(
      TableSpec spec, Map<String, String> settings) {
    SimhashConfig config = SimhashConfig.of(settings, spec);
    Simhash64 simhash = Simhash64.withTf(config.features());
    return new FeatureFrequencies.Counter(
        simhash, new SimhashDocumentMaker(spec, config, simhash, null), simhash);
  }

  /** The largest distance of a pair (simhash.max-distance). */
  /**
   * The score of two fingerprints {@code distance} bits apart, the plan's score of a simhash pair:
   * the share of the 64 bits they agree on, {@code (64 - distance) / 64}.
   */
  public static double likeness(int distance) {
    return (Simhash64.BITS - distance) / (double) Simhash64.BITS;
  }

  public static int maxDistance(TableSpec spec, Map<String, String> settings) {
    return SimhashConfig.of(settings, spec).maxDistance();
  }

  /**
   * Both rows' fingerprints made as the indexer makes them (with the index's frozen frequencies for
   * tf-idf), within simhash.max-distance. Without the index's frequencies nothing is a duplicate:
   * the changed rows stay.
   */
  @Override
  public PairCheck openPairCheck(MethodContext context) {
    SimhashConfig config = SimhashConfig.of(context.settings(), context.spec());
    if (config.fields().isEmpty()) {
      return PairCheck.EXACT_KEY;
    }
    FeatureFrequencies frequencies = null;
    if (config.tfIdf()) {
      try {
        frequencies = FeatureFrequencies.load(context.indexDir(this));
      } catch (BadInputException lost) {
        return (removed, kept) -> false;
      }
    }
    Simhash64 simhash = Simhash64.withTf(config.features());
    SimhashDocumentMaker maker =
        new SimhashDocumentMaker(context.spec(), config, simhash, frequencies);
    return new PairCheck() {
      @Override
      public boolean duplicates(SourceRecord removed, SourceRecord kept) {
        Long a = maker.fingerprint(removed);
        Long b = maker.fingerprint(kept);
        return a != null && b != null && Simhash64.distance(a, b) <= config.maxDistance();
      }

      @Override
      public void close() {
        simhash.close();
      }
    };
  }

  private MethodRun open(MethodContext context, boolean rebuild) {
    SimhashConfig config = SimhashConfig.of(context.settings(), context.spec());
    if (config.fields().isEmpty()) {
      throw new BadInputException(
          "--method simhash needs simhash.fields or fields.near (both are empty)");
    }
    return new Run(
        context,
        config,
        FingerprintIndex.open(context.indexDir(this), indexDigest(context, config), rebuild));
  }

  /** The simhash index of one run (no key filter: see the class comment). Not thread-safe. */
  private static final class Run extends OwnIndexRun<IndexKeyFilter> {
    private final SimhashConfig config;

    Run(MethodContext context, SimhashConfig config, FingerprintIndex index) {
      super(context, index, null);
      this.config = config;
    }

    /**
     * Fingerprints for rows not yet in the simhash index; one thread-safe {@link Simhash64} for all
     * workers. With tf-idf weights, an index built from empty first counts the features of the
     * whole table and freezes them beside it ({@link FeatureFrequencies}); later syncs use those.
     */
    @Override
    public OptionalLong sync(RecordSource source, long[] skipSorted) {
      try (Simhash64 simhash = Simhash64.withTf(config.features())) {
        FeatureFrequencies frequencies = null;
        if (config.tfIdf()) {
          if (indexIsNew()) {
            frequencies =
                FeatureFrequencies.count(
                    source,
                    simhash,
                    new SimhashDocumentMaker(context.spec(), config, simhash, null),
                    context.threads());
            frequencies.save(index.path());
          } else {
            frequencies = FeatureFrequencies.load(index.path());
          }
        }
        FeatureFrequencies frozen = frequencies;
        return syncDocuments(
            source,
            skipSorted,
            "simhash index",
            () -> new SimhashDocumentMaker(context.spec(), config, simhash, frozen));
      }
    }

    @Override
    public MethodReport pass(RecordKeys records, DeletionPlan plan, Window window) {
      SimhashPass.Result result;
      try (DirectoryReader reader = index.openReader()) {
        result =
            new SimhashPass(
                    new IndexSnapshot(reader, context.spec().keepPolicy()),
                    config.maxDistance(),
                    context.apart())
                .run(window, plan);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      long repointed = plan.collapseChains();
      return new SimhashReport(result, repointed, indexAdded(), config.maxDistance());
    }
  }
}
