package org.xiaochong.method.minhash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.index.TermHolders;
import org.xiaochong.method.MethodCheck;
import org.xiaochong.policy.KeepLatestPolicy;

/**
 * The minhash method's check: a record repeats the most similar record of the minhash index (or of
 * this stream's added ones) that shares a band term and agrees in at least the threshold's share of
 * signature positions; of equally similar ones the one the keep policy prefers. Owns the index.
 */
final class MinHashCheck implements MethodCheck<int[]> {
  private record Added(long id, long time, int[] signature) {}

  private final FingerprintIndex index;
  private final DirectoryReader reader;
  private final int[][] signatures;
  private final MinHashSignatures maker;
  private final double threshold;
  private final List<Added> session = new ArrayList<>();
  private long lookups;

  /** Takes over {@code index} (closed by {@link #close}, and here on failure). */
  MinHashCheck(FingerprintIndex index, MinHashSignatures maker, double threshold) {
    this.index = index;
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
    return find(signature, id -> false);
  }

  @Override
  public Match find(int[] signature, LongPredicate apart) {
    if (signature == null) {
      return null;
    }
    lookups++;
    long bestId = 0;
    long bestTime = 0;
    double best = -1;
    try {
      TermHolders holders = new TermHolders(reader.leaves(), MinHashSignatures.BAND_FIELD);
      for (int band = 0; band < MinHashSignatures.BANDS; band++) {
        for (int doc = holders.first(MinHashSignatures.bandTerm(band, signature)); doc != TermHolders.NO_MORE_DOCS;
            doc = holders.next()) {
          double similarity = MinHashSignatures.similarity(signature, signatures[doc]);
          long id = IndexSchema.id(reader.leaves(), doc);
          long time = IndexSchema.time(reader.leaves(), doc);
          if (similarity >= threshold && (similarity > best
              || (similarity == best && KeepLatestPolicy.isPreferred(time, id, bestTime, bestId)))) {
            best = similarity;
            bestId = id;
            bestTime = time;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (Added added : session) {
      double similarity = MinHashSignatures.similarity(signature, added.signature());
      if (similarity >= threshold && (similarity > best
          || (similarity == best && KeepLatestPolicy.isPreferred(added.time(), added.id(), bestTime, bestId)))) {
        best = similarity;
        bestId = added.id();
        bestTime = added.time();
      }
    }
    return best < 0 || apart.test(bestId) ? null : new Match(bestId, bestTime, best);
  }

  @Override
  public void add(long id, long regTime, int[] signature) {
    Document doc = new Document();
    doc.add(new NumericDocValuesField(IndexSchema.ID, id));
    doc.add(new NumericDocValuesField(IndexSchema.REG_TIME, regTime));
    if (signature != null) {
      MinHashSignatures.addFields(doc, signature);
      session.add(new Added(id, regTime, signature));
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
