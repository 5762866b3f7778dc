package org.xiaochong.method.simhash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.method.Excluded;
import org.xiaochong.method.MethodCheck;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.simhash.Simhash64;
import org.xiaochong.simhash.SimhashIndex;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * The simhash method's check: a record repeats the nearest record of the simhash index (or of this
 * session's added ones) within Hamming distance k, found through the four block terms as the pass
 * finds them ({@link SimhashIndex#search}); of equally near ones the one the keep policy prefers.
 * The score is the pass's likeness (64 - d) / 64. A text without features (empty) has no
 * fingerprint and repeats nothing. Owns the simhash index: {@link #close} closes it.
 *
 * <p>The probe is the fingerprint, or null for a text without features.
 */
final class SimhashCheck implements MethodCheck<Long> {
  /** A record added in this stream (the reader does not see it). */
  private record Added(long id, long[] rank, long simhash) {}

  private final FingerprintIndex index;
  private final DirectoryReader reader;
  private final SimhashConfig config;
  private final Simhash64 simhash;
  private final SimhashDocumentMaker maker;
  private final List<String> columns;
  private final KeepPolicy keepPolicy;
  private final List<Added> session = new ArrayList<>();

  /** Block term (block, value) → indexes into {@link #session} of the added records holding it. */
  private final Map<Integer, List<Integer>> sessionBlocks = new HashMap<>();

  private long lookups;
  private long added;

  /** Takes over {@code index} (closed by {@link #close}, and here on failure). */
  SimhashCheck(
      FingerprintIndex index,
      TableSpec spec,
      SimhashConfig config,
      FeatureFrequencies frequencies) {
    this.index = index;
    this.config = config;
    this.columns = spec.fingerprintColumns();
    this.keepPolicy = spec.keepPolicy();
    try {
      this.reader = index.openReader();
    } catch (RuntimeException e) {
      index.close();
      throw e;
    }
    this.simhash = Simhash64.withTf(config.features());
    this.maker = new SimhashDocumentMaker(spec, config, simhash, frequencies);
  }

  @Override
  public String name() {
    return SimhashMethod.NAME;
  }

  @Override
  public Long probe(Map<String, String> fields) {
    return maker.fingerprint(SourceRecord.ofFields(0, SourceRecord.NULL_TIME, columns, fields));
  }

  @Override
  public Match find(Long value) {
    return find(value, Excluded.none());
  }

  /**
   * The nearest record within the distance other than the incoming record itself, or null when it
   * is marked apart from the incoming one: as in the pass, a record whose nearest match a person
   * rejected is new.
   */
  @Override
  public Match find(Long value, Excluded excluded) {
    if (value == null) {
      return null;
    }
    lookups++;
    Nearest nearest = new Nearest(excluded);
    try {
      List<LeafReaderContext> leaves = reader.leaves();
      for (SimhashIndex.Hit hit : SimhashIndex.search(reader, value, config.maxDistance())) {
        nearest.consider(
            hit.distance(),
            IndexSchema.id(leaves, hit.doc()),
            IndexSchema.rank(leaves, hit.doc(), keepPolicy));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (int block = 0; block < SimhashIndex.BLOCKS; block++) {
      for (int s : sessionBlocks.getOrDefault(blockKey(block, value), List.of())) {
        Added added = session.get(s);
        int distance = Simhash64.distance(value, added.simhash());
        if (distance <= config.maxDistance()) {
          nearest.consider(distance, added.id(), added.rank());
        }
      }
    }
    return nearest.match();
  }

  /** The nearest record seen so far; of equally near ones, the one the keep policy prefers. */
  private static final class Nearest {
    private final Excluded excluded;
    private boolean found;
    private int distance;
    private long id;
    private long[] rank;

    Nearest(Excluded excluded) {
      this.excluded = excluded;
    }

    void consider(int candidateDistance, long candidateId, long[] candidateRank) {
      if (excluded.isSelf(candidateId)) {
        return;
      }
      if (!found
          || candidateDistance < distance
          || (candidateDistance == distance
              && KeepPolicy.isPreferred(candidateRank, candidateId, rank, id))) {
        found = true;
        distance = candidateDistance;
        id = candidateId;
        rank = candidateRank;
      }
    }

    Match match() {
      return found && !excluded.markedApart(id)
          ? new Match(id, rank, SimhashMethod.likeness(distance))
          : null;
    }
  }

  /** Block {@code block} of {@code simhash} with the block number, as one map key. */
  private static int blockKey(int block, long simhash) {
    return block << SimhashIndex.BLOCK_BITS
        | (int)
            ((simhash >>> (block * SimhashIndex.BLOCK_BITS))
                & ((1 << SimhashIndex.BLOCK_BITS) - 1));
  }

  /** Adds the record's document (without its fingerprint when it has none, as the indexer does). */
  @Override
  public void add(long id, long regTime, Map<String, String> record, Long value) {
    long[] rank = keepPolicy.rank(regTime, record);
    Document doc = new Document();
    doc.add(new NumericDocValuesField(IndexSchema.ID, id));
    doc.add(new NumericDocValuesField(IndexSchema.REG_TIME, regTime));
    IndexSchema.addRank(doc, keepPolicy.isLatest() ? null : rank);
    if (value != null) {
      SimhashIndex.addFields(doc, value);
      for (int block = 0; block < SimhashIndex.BLOCKS; block++) {
        sessionBlocks
            .computeIfAbsent(blockKey(block, value), k -> new ArrayList<>())
            .add(session.size());
      }
      session.add(new Added(id, rank, value));
    }
    index.addDocument(doc);
    added++;
  }

  @Override
  public void commit() {
    index.commit();
  }

  @Override
  public String counters() {
    return String.format("simhash: %,d fingerprints looked up", lookups);
  }

  @Override
  public void close() {
    try {
      if (added > 0) {
        index.commit();
      }
      reader.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      try {
        simhash.close();
      } finally {
        index.close();
      }
    }
  }
}
