package org.xiaochong.method.near;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.LongFunction;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.util.BitUtil;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.bloom.CountingBloomFilter;
import org.xiaochong.bloom.FilterShape;
import org.xiaochong.index.LongList;
import org.xiaochong.index.TermHolders;
import org.xiaochong.method.near.fingerprint.Fingerprints;
import org.xiaochong.method.near.index.NearSchema;
import org.xiaochong.prefilter.IndexKeyFilter;
import org.xiaochong.prefilter.RecordKeyFilter;

/**
 * The near-key filter: every near key (near_key term) held by a live record of the near index, once
 * (a set: seed 000's "只记录一次", the reference counts are the index's postings). {@code check} asks
 * {@link #mightContain} before each candidate key's term lookup: a zero counter proves no record
 * holds the key. One entry per distinct key instead of one per (record, key) keeps it small (a post
 * has 15-40 keys, most of them shared) and its counters far from saturation. Because it is a set, a
 * key changes only when its last holder leaves or its first holder comes, which only the index's
 * postings can tell; and the number of distinct live keys is only known by a walk of the terms, so
 * a saved file is trusted on its generation tag and checksum rather than on its count.
 */
public final class NearKeyFilter extends IndexKeyFilter {
  /** Opens or rebuilds this kind of filter. */
  public static final Kind<NearKeyFilter> KIND =
      new Kind<>("near", false, NearKeyFilter::build, NearKeyFilter::new);

  private NearKeyFilter(CountingBloomFilter filter, int countersPerKey) {
    super(KIND, filter, countersPerKey);
  }

  private static CountingBloomFilter build(
      DirectoryReader reader, LongFunction<FilterShape> shapeForKeys) {
    long[] keys = distinctLiveKeys(reader);
    CountingBloomFilter filter = new CountingBloomFilter(shapeForKeys.apply(keys.length));
    for (long key : keys) {
      filter.put(key, secondHash(key));
    }
    return filter;
  }

  /**
   * The distinct near keys held by a live record, sorted: each segment's term dictionary walked on
   * its own (a key is one term per segment), then sorted and made unique, which is cheaper than
   * merging the segments' terms while walking them.
   */
  private static long[] distinctLiveKeys(DirectoryReader reader) {
    LongList keys = new LongList();
    try {
      for (LeafReaderContext leaf : reader.leaves()) {
        Terms terms = leaf.reader().terms(NearSchema.KEY);
        if (terms != null) {
          addLiveKeys(terms, leaf.reader().getLiveDocs(), keys);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Fingerprints.sortedDistinct(keys.toArray());
  }

  /** Adds to {@code keys} each key of one segment's {@code terms} held by a live document. */
  private static void addLiveKeys(Terms terms, Bits live, LongList keys) throws IOException {
    TermsEnum termsEnum = terms.iterator();
    PostingsEnum postings = null;
    for (BytesRef term = termsEnum.next(); term != null; term = termsEnum.next()) {
      if (live != null) {
        postings = termsEnum.postings(postings, PostingsEnum.NONE);
        if (!anyLive(postings, live)) {
          continue;
        }
      }
      keys.add((long) BitUtil.VH_BE_LONG.get(term.bytes, term.offset));
    }
  }

  /**
   * Whether a document of {@code postings} is live ({@code live} null: the segment has no
   * deletions).
   */
  private static boolean anyLive(PostingsEnum postings, Bits live) throws IOException {
    for (int doc = postings.nextDoc(); doc != PostingsEnum.NO_MORE_DOCS; doc = postings.nextDoc()) {
      if (live == null || live.get(doc)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The second hash of a 64-bit near key for double hashing (an exact key has two MD5 halves; a
   * near key is one half): MurmurHash3's 64-bit finalizer of the key, so h2 is independent of h1's
   * bits.
   */
  static long secondHash(long key) {
    long h = key;
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }

  /**
   * As {@link RecordKeyFilter#mightContain} for a near key: false means no live record holds it.
   */
  public boolean mightContain(long nearKey) {
    return counted(filter.mightContain(nearKey, secondHash(nearKey)));
  }

  /**
   * A record with this near key entered the index, which {@code keyHolders} (the near keys of a
   * reader taken before) does not show; {@code heldElsewhere} says whether a record added since
   * holds it already. The key is put unless a live record held it: the filter is certain for most
   * keys, the index is asked for the rest.
   */
  public void addedNearKey(long nearKey, TermHolders keyHolders, boolean heldElsewhere) {
    long h2 = secondHash(nearKey);
    if (heldElsewhere
        || filter.mightContain(nearKey, h2) && anyLive(keyHolders, NearSchema.keyBytes(nearKey))) {
      return;
    }
    filter.put(nearKey, h2);
  }

  /** A set: a key changes only when its last holder left or its first holder came. */
  @Override
  protected void followChange(
      DirectoryReader before, DirectoryReader after, long[] leftIds, long[] cameIds) {
    LongList touched = new LongList();
    forEachValue(before, NearSchema.KEYS, leftIds, keysInto(touched));
    forEachValue(after, NearSchema.KEYS, cameIds, keysInto(touched));
    TermHolders beforeHolders = keyHolders(before);
    TermHolders afterHolders = keyHolders(after);
    for (long key : Fingerprints.sortedDistinct(touched.toArray())) {
      BytesRef term = NearSchema.keyBytes(key);
      boolean held = anyLive(beforeHolders, term);
      boolean holds = anyLive(afterHolders, term);
      if (held && !holds) {
        filter.remove(key, secondHash(key));
      } else if (!held && holds) {
        filter.put(key, secondHash(key));
      }
    }
  }

  /** Adds each near key of a record's keys doc value (8 bytes a key) to {@code keys}. */
  private static ValueConsumer keysInto(LongList keys) {
    return (bytes, offset, length) -> {
      for (int at = offset; at + Long.BYTES <= offset + length; at += Long.BYTES) {
        keys.add((long) BitUtil.VH_BE_LONG.get(bytes, at));
      }
    };
  }

  private static TermHolders keyHolders(DirectoryReader reader) {
    try {
      return new TermHolders(reader.leaves(), NearSchema.KEY);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether a live record holds the near key {@code term}. */
  private static boolean anyLive(TermHolders keyHolders, BytesRef term) {
    try {
      return keyHolders.anyLive(term);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
