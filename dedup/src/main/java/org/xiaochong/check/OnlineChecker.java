package org.xiaochong.check;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.fingerprint.ExactKey;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.policy.KeepLatestPolicy;
import org.xiaochong.prefilter.IndexKeyFilter;
import org.xiaochong.prefilter.PrefilterSettings;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * Checks incoming records against the index before they are stored: the online form of the exact
 * pass, for ingestion. The prefilter answers "certainly new" for most new records without touching the
 * index; the others get a term lookup. With {@link #add} a new record joins the index and the filter,
 * so later records of the same stream are checked against it; the next {@code dedup run} reconciles
 * the index with the table (ids that never reached the table are dropped then).
 *
 * <pre>{@code
 * try (OnlineChecker checker = OnlineChecker.open(index, spec, PrefilterSettings.DEFAULT)) {
 *   OnlineChecker.Verdict v = checker.check(Map.of("title", "供应红富士苹果", "phone", "138 0013 8000"));
 *   if (v.isNew()) checker.add(42L, System.currentTimeMillis(), v);
 * }
 * }</pre>
 *
 * Not thread-safe: one instance per stream. It holds the index's write lock while open.
 */
public final class OnlineChecker implements Closeable {
  /** The answer for one record: {@code new}, or {@code exact} with the id of the record it repeats. */
  public record Verdict(String verdict, Long keptId, double score, byte[] md5) {
    public boolean isNew() {
      return verdict.equals("new");
    }
  }

  private final FingerprintIndex index;
  private final TableSpec spec;
  private final ExactKey exactKey;
  private final IndexKeyFilter filter;
  private final DirectoryReader reader;
  /** Keys added in this session (the reader does not see them): key → (id, time). */
  private final Map<BytesRef, long[]> added = new HashMap<>();
  private long indexLookups;

  private OnlineChecker(FingerprintIndex index, TableSpec spec, IndexKeyFilter filter, DirectoryReader reader) {
    this.index = index;
    this.spec = spec;
    this.exactKey = new ExactKey(spec.exactFields(), spec.phoneFields());
    this.filter = filter;
    this.reader = reader;
  }

  /** Opens a checker over the index (its prefilter snapshot is loaded, or rebuilt from the index). */
  public static OnlineChecker open(FingerprintIndex index, TableSpec spec, PrefilterSettings settings,
      java.util.function.Consumer<String> notes) {
    DirectoryReader reader = index.openReader();
    IndexKeyFilter filter = settings.enabled()
        ? IndexKeyFilter.openOrRebuild(index.path().resolve("prefilter"), index.commitGeneration(), reader,
            settings.countersPerKey(), settings.hashes(), notes)
        : null;
    return new OnlineChecker(index, spec, filter, reader);
  }

  /** Checks one record given as column → value (columns not in fields.exact are ignored). */
  public Verdict check(Map<String, String> fields) {
    List<String> names = spec.exactFields();
    String[] values = new String[names.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = fields.get(names.get(i));
    }
    byte[] md5 = exactKey.compute(values);
    BytesRef key = new BytesRef(md5);
    long[] sameSession = added.get(key);
    if (sameSession != null) {
      return new Verdict("exact", sameSession[0], 1.0, md5);
    }
    if (filter != null && !filter.mightContain(md5)) {
      return new Verdict("new", null, 0.0, md5);
    }
    indexLookups++;
    Long kept = latestWithKey(key);
    return kept == null ? new Verdict("new", null, 0.0, md5) : new Verdict("exact", kept, 1.0, md5);
  }

  /** Adds a record judged new to the index and the filter. */
  public void add(long id, long regTime, Verdict verdict) {
    index.add(id, regTime, verdict.md5());
    if (filter != null) {
      filter.added(verdict.md5());
    }
    added.put(new BytesRef(verdict.md5()), new long[] {id, regTime});
  }

  /** The id of the latest record (KeepLatestPolicy) in the index with this key, or null. */
  private Long latestWithKey(BytesRef key) {
    long bestId = 0;
    long bestTime = 0;
    boolean found = false;
    try {
      for (LeafReaderContext leaf : reader.leaves()) {
        Terms terms = leaf.reader().terms(IndexSchema.MD5);
        if (terms == null) {
          continue;
        }
        TermsEnum termsEnum = terms.iterator();
        if (!termsEnum.seekExact(key)) {
          continue;
        }
        Bits live = leaf.reader().getLiveDocs();
        NumericDocValues ids = leaf.reader().getNumericDocValues(IndexSchema.ID);
        NumericDocValues times = leaf.reader().getNumericDocValues(IndexSchema.REG_TIME);
        PostingsEnum postings = termsEnum.postings(null, PostingsEnum.NONE);
        for (int doc = postings.nextDoc(); doc != PostingsEnum.NO_MORE_DOCS; doc = postings.nextDoc()) {
          if (live != null && !live.get(doc) || !ids.advanceExact(doc)) {
            continue;
          }
          long time = times.advanceExact(doc) ? times.longValue() : SourceRecord.NULL_TIME;
          long id = ids.longValue();
          if (!found || KeepLatestPolicy.isPreferred(time, id, bestTime, bestId)) {
            bestId = id;
            bestTime = time;
            found = true;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found ? bestId : null;
  }

  public long indexLookups() {
    return indexLookups;
  }

  public long filterSkipped() {
    return filter == null ? 0 : filter.skipped();
  }

  /** Commits added records (and saves the filter for the new index generation). */
  @Override
  public void close() {
    try {
      if (!added.isEmpty()) {
        index.commit();
        if (filter != null) {
          filter.save(index.path().resolve("prefilter"), index.commitGeneration());
        }
      }
      reader.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
