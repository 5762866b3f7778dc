package org.xiaochong.prefilter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.index.IndexSchema;

/**
 * The IMP-CBFilter of seed 000 in front of the fingerprint index: a counting Bloom filter holding
 * every exact key of the index, with the Lucene index as its store. A pass asks it before each term
 * lookup; since the record asking is itself in the index, an estimated count below 2 proves the key
 * has no twin (a counting filter never under-counts), and the lookup is skipped.
 *
 * <p>Persistence: the filter is saved beside the index as {@code prefilter/exact-<generation>.cbf},
 * tagged with the index commit generation it matches. A run loads the file of the current generation;
 * a missing, stale (other generation or shape) or corrupt file is reported in one line and the filter
 * is rebuilt from the index's md5 terms (one pass over the terms: about a second per million keys).
 * Deletes go through {@link #removed}; a saturated counter stays put (never a false negative, only a
 * possible extra lookup) and is reset by the next rebuild. Not thread-safe: one instance per run.
 */
public final class IndexKeyFilter implements GroupPrefilter {
  private static final String PREFIX = "exact-";
  private static final String SUFFIX = ".cbf";

  private final CountingBloomFilter filter;
  private long lookups;
  private long skipped;

  private IndexKeyFilter(CountingBloomFilter filter) {
    this.filter = filter;
  }

  /**
   * Loads the filter saved for {@code generation} or rebuilds it from {@code reader}.
   *
   * @param notes receives one line when the filter had to be rebuilt, saying why
   */
  public static IndexKeyFilter openOrRebuild(Path dir, long generation, DirectoryReader reader, int countersPerKey,
      int hashes, Consumer<String> notes) {
    long capacity = Math.max(1024, reader.numDocs() + reader.numDocs() / 4); // room to grow 25 %
    Path file = dir.resolve(PREFIX + generation + SUFFIX);
    String reason;
    if (Files.exists(file)) {
      try {
        PrefilterSnapshot snapshot = PrefilterSnapshot.read(file);
        CountingBloomFilter loaded = snapshot.filter();
        FilterShape shape = loaded.shape();
        if (shape.hashes() == hashes && shape.counters() >= (long) countersPerKey * reader.numDocs()
            && loaded.netInsertions() == reader.numDocs()) {
          return new IndexKeyFilter(loaded);
        }
        reason = "its shape or count does not fit the index (" + shape + ", " + loaded.netInsertions()
            + " keys for " + reader.numDocs() + " records)";
      } catch (NoSuchFileException e) {
        reason = "no snapshot for this index version";
      } catch (IOException e) {
        reason = e.getMessage();
      }
    } else {
      reason = "no snapshot for this index version";
    }
    notes.accept("prefilter: rebuilt from the index (" + reason + ")");
    return rebuild(reader, FilterShape.fromExpectedInsertions(capacity, countersPerKey, hashes));
  }

  /** Puts every live md5 of the index into a new filter, once per record holding it. */
  static IndexKeyFilter rebuild(DirectoryReader reader, FilterShape shape) {
    CountingBloomFilter filter = new CountingBloomFilter(shape);
    byte[] key = new byte[CountingBloomFilter.KEY_BYTES];
    try {
      PostingsEnum postings = null;
      for (LeafReaderContext leaf : reader.leaves()) {
        Terms terms = leaf.reader().terms(IndexSchema.MD5);
        if (terms == null) {
          continue;
        }
        Bits live = leaf.reader().getLiveDocs();
        TermsEnum termsEnum = terms.iterator();
        for (BytesRef term = termsEnum.next(); term != null; term = termsEnum.next()) {
          System.arraycopy(term.bytes, term.offset, key, 0, key.length);
          postings = termsEnum.postings(postings, PostingsEnum.NONE);
          for (int doc = postings.nextDoc(); doc != PostingsEnum.NO_MORE_DOCS; doc = postings.nextDoc()) {
            if (live == null || live.get(doc)) {
              filter.put(key);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new IndexKeyFilter(filter);
  }

  @Override
  public boolean mightHaveTwin(byte[] md5) {
    lookups++;
    // Depends on the asking record being in the filter itself: its own key counts once.
    if (filter.estimateCount(md5) < 2) {
      skipped++;
      return false;
    }
    return true;
  }

  /**
   * For a key that is not (yet) in the index: false means certainly absent, so the index need not be
   * asked (seed 000's lookup: any counter at zero).
   */
  public boolean mightContain(byte[] md5) {
    lookups++;
    if (!filter.mightContain(md5)) {
      skipped++;
      return false;
    }
    return true;
  }

  /** A record with this key entered the index. */
  public void added(byte[] md5) {
    filter.put(md5);
  }

  /** A record with this key left the index. */
  public void removed(byte[] md5) {
    filter.remove(md5);
  }

  /** Saves the filter for {@code generation} and deletes snapshots of older generations. */
  public void save(Path dir, long generation) {
    try {
      Files.createDirectories(dir);
      try (DirectoryStream<Path> old = Files.newDirectoryStream(dir, PREFIX + "*" + SUFFIX)) {
        for (Path p : old) {
          Files.deleteIfExists(p);
        }
      }
      PrefilterSnapshot.write(dir.resolve(PREFIX + generation + SUFFIX), filter);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot save the prefilter in " + dir, e);
    }
  }

  public long lookups() {
    return lookups;
  }

  public long skipped() {
    return skipped;
  }

  public long memoryBytes() {
    return filter.memoryBytes();
  }

  public long saturated() {
    return filter.saturatedCounters();
  }
}
