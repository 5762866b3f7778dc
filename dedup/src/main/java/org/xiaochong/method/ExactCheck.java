package org.xiaochong.method;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.fingerprint.ExactKey;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.index.TermHolders;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.prefilter.ExactKeyFilter;
import org.xiaochong.prefilter.FilterFile;
import org.xiaochong.prefilter.PrefilterSettings;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * The exact method's check: a record repeats the record the keep policy prefers ({@link KeepPolicy},
 * by the ranks the index keeps) of the record index holding its exact key. The counting filter of the record keys answers "certainly
 * absent" for most new records without a lookup. The record index is the caller's: this check reads
 * it, adds to it, and commits what it added, but does not close it.
 */
final class ExactCheck implements MethodCheck<byte[]> {
  private final FingerprintIndex index;
  private final ExactKey exactKey;
  private final List<String> fields;
  private final KeepPolicy keepPolicy;
  private final ExactKeyFilter filter;
  private final DirectoryReader reader;
  private final TermHolders md5Holders;
  /** Keys added in this stream (the reader does not see them): key → id. */
  private final Map<BytesRef, Long> added = new HashMap<>();
  private long lookups;

  /**
   * Opens the check over {@code index} and its saved filter (rebuilt from the index when missing or
   * stale; none when the prefilter is off).
   */
  ExactCheck(FingerprintIndex index, TableSpec spec, PrefilterSettings settings, Consumer<String> notes) {
    this.index = index;
    this.exactKey = new ExactKey(spec.exactFields(), spec.phoneFields());
    this.fields = spec.exactFields();
    this.keepPolicy = spec.keepPolicy();
    this.reader = index.openReader();
    try {
      this.filter = settings.enabled()
          ? ExactKeyFilter.KIND.openOrRebuild(filterDir(index), index.commitGeneration(), reader,
              settings.countersPerKey(), settings.hashes(), notes)
          : null;
      this.md5Holders = new TermHolders(reader.leaves(), IndexSchema.MD5);
    } catch (IOException | RuntimeException e) {
      closeReader();
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
  }

  /** Where the filters of an index and of the methods' own indexes are saved. */
  static Path filterDir(FingerprintIndex recordIndex) {
    return recordIndex.path().resolve(FilterFile.DIR);
  }

  @Override
  public String name() {
    return "exact";
  }

  @Override
  public byte[] probe(Map<String, String> record) {
    String[] values = new String[fields.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = record.get(fields.get(i));
    }
    return exactKey.compute(values);
  }

  @Override
  public Match find(byte[] md5) {
    return find(md5, id -> false);
  }

  /** The preferred record with the key that the incoming one is not marked apart from. */
  @Override
  public Match find(byte[] md5, LongPredicate apart) {
    BytesRef key = new BytesRef(md5);
    Long sameSession = added.get(key);
    if (sameSession != null && !apart.test(sameSession)) {
      return new Match(sameSession, 1.0);
    }
    if (filter != null && !filter.mightContain(md5)) {
      return null;
    }
    lookups++;
    Long kept = latestWithKey(key, apart);
    return kept == null ? null : new Match(kept, 1.0);
  }

  @Override
  public void add(long id, long regTime, Map<String, String> record, byte[] md5) {
    index.add(id, regTime, keepPolicy.isLatest() ? null : keepPolicy.rank(regTime, record), md5);
    if (filter != null) {
      filter.added(md5);
    }
    added.put(new BytesRef(md5), id);
  }

  @Override
  public String counters() {
    return String.format("exact keys: %,d index lookups, %,d skipped by the prefilter", lookups,
        filter == null ? 0 : filter.skipped());
  }

  /** The id of the record the keep policy prefers in the index with this key and not {@code apart}, or null. */
  private Long latestWithKey(BytesRef key, LongPredicate apart) {
    long bestId = 0;
    long[] bestRank = new long[keepPolicy.width()];
    long[] rank = new long[keepPolicy.width()];
    boolean found = false;
    try {
      List<LeafReaderContext> leaves = reader.leaves();
      int segment = -1;
      NumericDocValues ids = null;
      NumericDocValues[] ranks = new NumericDocValues[rank.length];
      for (int g = md5Holders.first(key); g != TermHolders.NO_MORE_DOCS; g = md5Holders.next()) {
        if (md5Holders.segment() != segment) { // doc values are forward-only: fresh ones per segment
          segment = md5Holders.segment();
          ids = leaves.get(segment).reader().getNumericDocValues(IndexSchema.ID);
          for (int i = 0; i < ranks.length; i++) { // the rank is the time under latest
            ranks[i] = leaves.get(segment).reader().getNumericDocValues(
                keepPolicy.isLatest() ? IndexSchema.REG_TIME : IndexSchema.rankField(i));
          }
        }
        int doc = g - leaves.get(segment).docBase;
        if (!ids.advanceExact(doc)) {
          continue;
        }
        for (int i = 0; i < rank.length; i++) {
          rank[i] = ranks[i] != null && ranks[i].advanceExact(doc) ? ranks[i].longValue() : SourceRecord.NULL_TIME;
        }
        long id = ids.longValue();
        if (apart.test(id)) {
          continue;
        }
        if (!found || KeepPolicy.isPreferred(rank, id, bestRank, bestId)) {
          bestId = id;
          System.arraycopy(rank, 0, bestRank, 0, rank.length);
          found = true;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found ? bestId : null;
  }

  @Override
  public void close() {
    try {
      if (!added.isEmpty()) {
        index.commit();
        if (filter != null) {
          filter.save(filterDir(index), index.commitGeneration());
        }
      }
    } finally {
      closeReader();
    }
  }

  private void closeReader() {
    try {
      reader.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
