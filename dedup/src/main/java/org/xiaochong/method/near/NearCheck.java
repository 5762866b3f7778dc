package org.xiaochong.method.near;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.index.TermHolders;
import org.xiaochong.method.Excluded;
import org.xiaochong.method.MethodCheck;
import org.xiaochong.method.near.fingerprint.Evidence;
import org.xiaochong.method.near.fingerprint.Fingerprints;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.method.near.fingerprint.NearOutcome;
import org.xiaochong.method.near.fingerprint.NearSimilarity;
import org.xiaochong.method.near.fingerprint.TopTermsMd5;
import org.xiaochong.method.near.index.NearDocumentMaker;
import org.xiaochong.method.near.index.NearSchema;
import org.xiaochong.prefilter.FilterFile;
import org.xiaochong.prefilter.PrefilterSettings;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * The near method's check: fingerprints as the indexer makes them ({@link NearDocumentMaker}),
 * candidates by the near pass's candidate keys ({@link CheckCandidates}, which also holds the
 * records added in this session), the decision of {@link NearRule}; the match is the most similar
 * near duplicate (ties: the one the keep policy prefers, {@link BestMatch}). Owns the near index:
 * {@link #close} closes it.
 */
final class NearCheck implements MethodCheck<NearCheck.Post> {
  /**
   * A record's near fingerprints, its fields.must-match keys and its evidence, as the near index
   * stores them.
   */
  record Post(Fingerprints fingerprints, long[] matchKeys, Evidence evidence) {}

  private final FingerprintIndex nearIndex;
  private final DirectoryReader reader;
  private final List<LeafReaderContext> leaves;
  private final CheckCandidates.Cursor cursor;
  private final TermHolders keyHolders;
  private final NearKeyFilter filter;
  private final java.nio.file.Path filterDir;
  private final NearConfig config;
  private final TopTermsMd5 fingerprinter;
  private final TableSpec spec;
  private final NearDocumentMaker maker;
  private final List<String> columns;
  private final org.xiaochong.policy.KeepPolicy keepPolicy;
  private final CheckCandidates candidates;
  private final org.xiaochong.archive.ApartPairs apart;
  private long addedDocuments;

  /**
   * Opens the check over {@code nearIndex} (taken over: closed by {@link #close}, and here on
   * failure) and its filter, saved beside the record index's ({@code recordIndex}).
   *
   * @param config the near settings the near index was built with
   * @param apart the pairs marked as not duplicates, for whether the run keeps a twin ({@link
   *     NextRunKeeps})
   */
  NearCheck(
      FingerprintIndex nearIndex,
      FingerprintIndex recordIndex,
      TableSpec spec,
      NearConfig config,
      PrefilterSettings settings,
      org.xiaochong.archive.ApartPairs apart,
      Consumer<String> notes) {
    this.nearIndex = nearIndex;
    this.apart = apart;
    this.filterDir = recordIndex.path().resolve(FilterFile.DIR);
    this.config = config;
    this.columns = spec.fingerprintColumns();
    this.keepPolicy = spec.keepPolicy();
    DirectoryReader opened = null;
    try {
      opened = nearIndex.openReader();
      this.filter =
          settings.enabled()
              ? NearKeyFilter.KIND.openOrRebuild(
                  filterDir,
                  nearIndex.commitGeneration(),
                  opened,
                  settings.countersPerKey(),
                  settings.hashes(),
                  notes)
              : null;
      this.cursor = new CheckCandidates.Cursor(opened.leaves());
      this.keyHolders = cursor.keyHolders;
    } catch (IOException | RuntimeException e) {
      try {
        if (opened != null) {
          opened.close();
        }
      } catch (IOException ignored) {
        // the first failure is the one to report
      }
      nearIndex.close();
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
    this.reader = opened;
    this.leaves = opened.leaves();
    this.fingerprinter = new TopTermsMd5(config);
    this.spec = spec;
    this.maker = new NearDocumentMaker(spec, fingerprinter);
    this.candidates = new CheckCandidates(opened, filter, config, keepPolicy);
  }

  @Override
  public String name() {
    return "near";
  }

  /** Its best match passes over the candidates {@link Excluded#passedOver} names. */
  @Override
  public boolean findsAmongOutranking() {
    return true;
  }

  @Override
  public Post probe(Map<String, String> fields) {
    return post(maker, columns, fields);
  }

  /**
   * A document maker of its own per thread (it keeps buffers); the fingerprinter is thread-safe and
   * shared.
   */
  @Override
  public java.util.function.Function<Map<String, String>, Post> newProber() {
    NearDocumentMaker own = new NearDocumentMaker(spec, fingerprinter);
    return fields -> post(own, columns, fields);
  }

  private static Post post(
      NearDocumentMaker maker, List<String> columns, Map<String, String> fields) {
    SourceRecord record = SourceRecord.ofFields(0, SourceRecord.NULL_TIME, columns, fields);
    Fingerprints fingerprints = maker.fingerprint(record);
    return new Post(fingerprints, maker.matchKeys(record), maker.evidence(record, fingerprints));
  }

  @Override
  public Match find(Post post) {
    return find(post, Excluded.none());
  }

  /**
   * The near duplicate the record goes to ({@link BestMatch}): the most similar other than the
   * incoming record itself and, of those that outrank it, one the run keeps ({@link NextRunKeeps});
   * null when it is marked apart from the incoming record: as in the pass, a record whose closest
   * match a person rejected is new.
   */
  @Override
  public Match find(Post post, Excluded excluded) {
    return find(post, excluded, cursor);
  }

  private Match find(Post post, Excluded excluded, CheckCandidates.Cursor with) {
    BestMatch best =
        new BestMatch(config, excluded, new NextRunKeeps(candidates, with, config, apart));
    candidates.compareLikely(post, excluded, best::consider, with);
    return best.match();
  }

  /** Cursors of its own over the same reader (they are one per thread). */
  @Override
  public Finder<Post> newFinder() {
    CheckCandidates.Cursor own;
    try {
      own = new CheckCandidates.Cursor(leaves);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return (post, excluded) -> find(post, excluded, own);
  }

  /**
   * What {@link #explain} adds to {@code duplicate} for the same seller's repost of one offer at
   * another price or lot, which the rule joins because the seller is the same ({@link
   * NearRule#isSellerRepost}).
   */
  static final String SELLER_REPOST = ": same seller, price or lot updated";

  /** Each candidate of {@code post} with its near rule outcome, the most similar first. */
  @Override
  public List<Candidate> explain(Post post, int limit) {
    List<Candidate> compared = new ArrayList<>();
    candidates.compare(
        post,
        (record, candidate, id, rank, weight) -> {
          NearRule.Failure failure = NearRule.why(record, candidate, config, weight);
          compared.add(
              new Candidate(
                  id,
                  NearRule.similarity(record, candidate, weight),
                  NearSimilarity.sharedCount(record.keys(), candidate.keys()),
                  failure == null
                      ? NearRule.isSellerRepost(record, candidate)
                          ? Candidate.DUPLICATE + SELLER_REPOST
                          : Candidate.DUPLICATE
                      : failure.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')));
        },
        cursor);
    compared.sort(
        java.util.Comparator.comparingDouble(Candidate::score)
            .reversed()
            .thenComparingLong(Candidate::id));
    return compared.subList(0, Math.min(limit, compared.size()));
  }

  @Override
  public void add(long id, long regTime, Map<String, String> record, Post post) {
    Fingerprints fingerprints = post.fingerprints();
    long[] rank = keepPolicy.rank(regTime, record);
    org.apache.lucene.document.Document doc =
        NearSchema.document(
            id,
            regTime,
            org.xiaochong.source.SourceRecord.UNKNOWN_CRC,
            fingerprints,
            config.pre(),
            post.matchKeys(),
            post.evidence());
    IndexSchema.addRank(doc, keepPolicy.isLatest() ? null : rank);
    nearIndex.addDocument(doc);
    addedDocuments++;
    if (fingerprints.outcome() != NearOutcome.OK) {
      return;
    }
    candidates.add(
        id,
        rank,
        NearRule.Stored.of(fingerprints, config.pre(), post.matchKeys(), post.evidence()),
        keyHolders);
  }

  @Override
  public void commit() {
    nearIndex.commit();
  }

  @Override
  public String counters() {
    return String.format(
        "near keys: %,d index lookups, %,d skipped by the prefilter",
        candidates.lookups(), filter == null ? 0 : filter.skipped());
  }

  @Override
  public void close() {
    try {
      if (addedDocuments > 0) {
        nearIndex.commit();
        if (filter != null) {
          filter.save(filterDir, nearIndex.commitGeneration());
        }
      }
      reader.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      try {
        fingerprinter.close();
      } finally {
        nearIndex.close();
      }
    }
  }
}
