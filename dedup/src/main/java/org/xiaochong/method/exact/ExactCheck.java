package org.xiaochong.method.exact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.fingerprint.ExactKey;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.index.TermHolders;
import org.xiaochong.method.Excluded;
import org.xiaochong.method.MethodCheck;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.prefilter.FilterFile;
import org.xiaochong.prefilter.PrefilterSettings;
import org.xiaochong.prefilter.RecordKeyFilter;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * The exact method's check: a record repeats the record the keep policy prefers ({@link
 * KeepPolicy}, by the ranks the index keeps) of the record index holding its exact key. The
 * counting filter of the record keys answers "certainly absent" for most new records without a
 * lookup. The record index is the caller's: this check reads it, adds to it, and commits what it
 * added, but does not close it.
 */
final class ExactCheck implements MethodCheck<byte[]> {
  private final FingerprintIndex index;
  private final ExactKey exactKey;
  private final TableSpec spec;
  private final List<String> fields;
  private final KeepPolicy keepPolicy;
  private final RecordKeyFilter filter;
  private final DirectoryReader reader;
  private final TermHolders md5Holders;

  /**
   * Keys added in this stream (the reader does not see them): key → the records added with it, the
   * last one last.
   */
  private final Map<BytesRef, List<Match>> added = new HashMap<>();

  private long lookups;

  /**
   * Opens the check over {@code index} and its saved filter (rebuilt from the index when missing or
   * stale; none when the prefilter is off).
   */
  ExactCheck(
      FingerprintIndex index, TableSpec spec, PrefilterSettings settings, Consumer<String> notes) {
    this.index = index;
    this.exactKey = new ExactKey(spec.exactFields(), spec.phoneFields());
    this.spec = spec;
    this.fields = spec.exactFields();
    this.keepPolicy = spec.keepPolicy();
    this.reader = index.openReader();
    try {
      this.filter =
          settings.enabled()
              ? RecordKeyFilter.KIND.openOrRebuild(
                  filterDir(index),
                  index.commitGeneration(),
                  reader,
                  settings.countersPerKey(),
                  settings.hashes(),
                  notes)
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
    return key(exactKey, fields, record);
  }

  /** An exact key of its own per thread (ExactKey reuses one MessageDigest). */
  @Override
  public java.util.function.Function<Map<String, String>, byte[]> newProber() {
    ExactKey own = new ExactKey(spec.exactFields(), spec.phoneFields());
    return record -> key(own, fields, record);
  }

  private static byte[] key(ExactKey exactKey, List<String> fields, Map<String, String> record) {
    String[] values = new String[fields.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = record.get(fields.get(i));
    }
    return exactKey.compute(values);
  }

  @Override
  public Match find(byte[] md5) {
    return find(md5, Excluded.none());
  }

  /**
   * The record with the key added last in this stream, else the preferred one in the index, never
   * the incoming record itself nor one it is marked apart from.
   */
  @Override
  public Match find(byte[] md5, Excluded excluded) {
    return find(md5, excluded, md5Holders);
  }

  /** A cursor of its own over the same reader (TermHolders is one per thread). */
  @Override
  public Finder<byte[]> newFinder() {
    TermHolders own;
    try {
      own = new TermHolders(reader.leaves(), IndexSchema.MD5);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return (md5, excluded) -> find(md5, excluded, own);
  }

  private Match find(byte[] md5, Excluded excluded, TermHolders md5Holders) {
    BytesRef key = new BytesRef(md5);
    List<Match> sameSession = added.getOrDefault(key, List.of());
    for (int i = sameSession.size() - 1; i >= 0; i--) {
      if (!excluded.selfOrMarked(sameSession.get(i).id())) {
        return sameSession.get(i);
      }
    }
    if (filter != null && !filter.mightContain(md5)) {
      return null;
    }
    lookups++;
    return latestWithKey(key, excluded, md5Holders);
  }

  @Override
  public void add(long id, long regTime, Map<String, String> record, byte[] md5) {
    long[] rank = keepPolicy.rank(regTime, record);
    index.add(id, regTime, keepPolicy.isLatest() ? null : rank, md5);
    if (filter != null) {
      filter.added(md5);
    }
    added.computeIfAbsent(new BytesRef(md5), k -> new ArrayList<>(1)).add(new Match(id, rank, 1.0));
  }

  @Override
  public void commit() {
    index.commit();
  }

  @Override
  public String counters() {
    return String.format(
        "exact keys: %,d index lookups, %,d skipped by the prefilter",
        lookups, filter == null ? 0 : filter.skipped());
  }

  /** The record the keep policy prefers in the index with this key and not excluded, or null. */
  private Match latestWithKey(BytesRef key, Excluded excluded, TermHolders md5Holders) {
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
        if (md5Holders.segment()
            != segment) { // doc values are forward-only: fresh ones per segment
          segment = md5Holders.segment();
          ids = leaves.get(segment).reader().getNumericDocValues(IndexSchema.ID);
          for (int i = 0; i < ranks.length; i++) { // the rank is the time under latest
            ranks[i] =
                leaves
                    .get(segment)
                    .reader()
                    .getNumericDocValues(
                        keepPolicy.isLatest() ? IndexSchema.REG_TIME : IndexSchema.rankField(i));
          }
        }
        int doc = g - leaves.get(segment).docBase;
        if (!ids.advanceExact(doc)) {
          continue;
        }
        for (int i = 0; i < rank.length; i++) {
          rank[i] =
              ranks[i] != null && ranks[i].advanceExact(doc)
                  ? ranks[i].longValue()
                  : SourceRecord.NULL_TIME;
        }
        long id = ids.longValue();
        if (excluded.selfOrMarked(id)) {
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
    return found ? new Match(bestId, bestRank, 1.0) : null;
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
