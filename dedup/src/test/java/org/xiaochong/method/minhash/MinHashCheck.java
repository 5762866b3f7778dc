package org.xiaochong.method.minhash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.index.TermHolders;
import org.xiaochong.method.Excluded;
import org.xiaochong.method.MethodCheck;
import org.xiaochong.policy.KeepPolicy;

/**
 * The minhash method's check: a record repeats the most similar record of the minhash index (or of
 * this stream's added ones) that shares a band term and agrees in at least the threshold's share of
 * signature positions; of equally similar ones the one the keep policy prefers. Owns the index.
 */
final class MinHashCheck implements MethodCheck<int[]> {
  private record Added(long id, long[] rank, int[] signature) {}

  private final FingerprintIndex index;
  private final DirectoryReader reader;
  private final int[][] signatures;
  private final MinHashSignatures maker;
  private final double threshold;
  private final KeepPolicy keepPolicy;
  private final List<Added> session = new ArrayList<>();
  private long lookups;

  /** Takes over {@code index} (closed by {@link #close}, and here on failure). */
  MinHashCheck(
      FingerprintIndex index, MinHashSignatures maker, KeepPolicy keepPolicy, double threshold) {
    this.index = index;
    this.keepPolicy = keepPolicy;
    this.maker = maker;
    this.threshold = threshold;
    try {
      this.reader = index.openReader();
      this.signatures = MinHashSignatures.load(reader.leaves(), reader.maxDoc());
    } catch (RuntimeException e) {
      index.close();
      throw e;
    }
  }

  @Override
  public String name() {
    return MinHashMethod.NAME;
  }

  @Override
  public int[] probe(Map<String, String> fields) {
    return maker.of(fields);
  }

  @Override
  public Match find(int[] signature) {
    return find(signature, Excluded.none());
  }

  @Override
  public Match find(int[] signature, Excluded excluded) {
    if (signature == null) {
      return null;
    }
    lookups++;
    long bestId = 0;
    long[] bestRank = null;
    double best = -1;
    try {
      TermHolders holders = new TermHolders(reader.leaves(), MinHashSignatures.BAND_FIELD);
      for (int band = 0; band < MinHashSignatures.BANDS; band++) {
        for (int doc = holders.first(MinHashSignatures.bandTerm(band, signature));
            doc != TermHolders.NO_MORE_DOCS;
            doc = holders.next()) {
          double similarity = MinHashSignatures.similarity(signature, signatures[doc]);
          long id = IndexSchema.id(reader.leaves(), doc);
          if (excluded.isSelf(id)) {
            continue;
          }
          long[] rank = IndexSchema.rank(reader.leaves(), doc, keepPolicy);
          if (similarity >= threshold
              && (similarity > best
                  || (similarity == best && KeepPolicy.isPreferred(rank, id, bestRank, bestId)))) {
            best = similarity;
            bestId = id;
            bestRank = rank;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (Added added : session) {
      double similarity = MinHashSignatures.similarity(signature, added.signature());
      if (!excluded.isSelf(added.id())
          && similarity >= threshold
          && (similarity > best
              || (similarity == best
                  && KeepPolicy.isPreferred(added.rank(), added.id(), bestRank, bestId)))) {
        best = similarity;
        bestId = added.id();
        bestRank = added.rank();
      }
    }
    return best < 0 || excluded.markedApart(bestId) ? null : new Match(bestId, bestRank, best);
  }

  @Override
  public void add(long id, long regTime, Map<String, String> record, int[] signature) {
    long[] rank = keepPolicy.rank(regTime, record);
    Document doc = new Document();
    doc.add(new NumericDocValuesField(IndexSchema.ID, id));
    doc.add(new NumericDocValuesField(IndexSchema.REG_TIME, regTime));
    IndexSchema.addRank(doc, keepPolicy.isLatest() ? null : rank);
    if (signature != null) {
      MinHashSignatures.addFields(doc, signature);
      session.add(new Added(id, rank, signature));
    }
    index.addDocument(doc);
  }

  @Override
  public String counters() {
    return String.format("minhash: %,d signatures looked up", lookups);
  }

  @Override
  public void close() {
    try {
      if (!session.isEmpty()) {
        index.commit();
      }
      reader.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      index.close();
    }
  }
}
