package org.xiaochong.index;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/**
 * The live holders of a term in one field of an index: per segment, {@code
 * TermsEnum.seekExact(term)}, the postings walked, deleted documents skipped, each holder given as
 * a global doc id (segment doc base + doc). What a TermQuery does underneath, without scoring or
 * collector overhead. A cursor:
 *
 * <pre>{@code
 * TermHolders holders = new TermHolders(reader.leaves(), IndexSchema.MD5);
 * for (int doc = holders.first(md5); doc != TermHolders.NO_MORE_DOCS; doc = holders.next()) { ... }
 * }</pre>
 *
 * Holders come segment by segment, in doc order within a segment. One {@code TermsEnum} and one
 * {@code PostingsEnum} per segment are made once and reused by every lookup (a postings enum can
 * only be reused on the segment that made it), so a lookup allocates nothing: the exact pass makes
 * one per record with a possible twin, hundreds of thousands per run. The caller's term must not
 * change during a walk. Not thread-safe: one instance per thread, over a reader that stays open.
 */
public final class TermHolders {
  /** What {@link #first} and {@link #next} return when there are no more holders. */
  public static final int NO_MORE_DOCS = DocIdSetIterator.NO_MORE_DOCS;

  private final TermsEnum[] termsEnums;
  private final PostingsEnum[] postings;
  private final Bits[] live;
  private final int[] bases;
  private final int[] ends;
  private BytesRef term;
  private int leaf;
  private PostingsEnum current;
  private Bits currentLive;
  private int base;

  /** A cursor over {@code field} of these segments (a reader's {@code leaves()}). */
  public TermHolders(List<LeafReaderContext> leaves, String field) throws IOException {
    int n = leaves.size();
    termsEnums = new TermsEnum[n];
    postings = new PostingsEnum[n];
    live = new Bits[n];
    bases = new int[n];
    ends = new int[n];
    for (int i = 0; i < n; i++) {
      LeafReaderContext context = leaves.get(i);
      Terms terms = context.reader().terms(field);
      termsEnums[i] = terms == null ? null : terms.iterator();
      live[i] = context.reader().getLiveDocs();
      bases[i] = context.docBase;
      ends[i] = context.docBase + context.reader().maxDoc();
    }
    leaf = n;
  }

  /** Starts a walk of the live holders of {@code term}: the first one, or {@link #NO_MORE_DOCS}. */
  public int first(BytesRef term) throws IOException {
    this.term = term;
    leaf = -1;
    current = null;
    return next();
  }

  /**
   * Starts a walk of the live holders of {@code term} from global doc {@code from} on: the first at
   * or after it, or {@link #NO_MORE_DOCS}; {@link #next} goes on from there. Segments that end
   * before {@code from} are not read, and within its segment the postings skip ahead, so the few
   * holders after a point of a long list cost about as much as a short list.
   */
  public int firstFrom(BytesRef term, int from) throws IOException {
    this.term = term;
    current = null;
    leaf = -1;
    while (leaf + 1 < termsEnums.length && ends[leaf + 1] <= from) {
      leaf++;
    }
    if (!seekNextSegment()) {
      return NO_MORE_DOCS;
    }
    int target = from - base;
    if (target > 0) {
      int d = current.advance(target);
      if (d == NO_MORE_DOCS) {
        current = null;
      } else if (currentLive == null || currentLive.get(d)) {
        return base + d;
      }
    }
    return next();
  }

  /** The next live holder of the term of {@link #first}, or {@link #NO_MORE_DOCS}. */
  public int next() throws IOException {
    while (true) {
      if (current != null) {
        for (int d = current.nextDoc(); d != NO_MORE_DOCS; d = current.nextDoc()) {
          if (currentLive == null || currentLive.get(d)) {
            return base + d;
          }
        }
        current = null;
      }
      if (!seekNextSegment()) {
        return NO_MORE_DOCS;
      }
    }
  }

  /**
   * The index in the reader's {@code leaves()} of the segment of the holder last returned: for its
   * per-segment doc values (doc - that leaf's {@code docBase}).
   */
  public int segment() {
    return leaf;
  }

  /** Whether a live document holds {@code term}. */
  public boolean anyLive(BytesRef term) throws IOException {
    return first(term) != NO_MORE_DOCS;
  }

  /**
   * Documents holding {@code term}, summed over segments, deleted ones included (as the term
   * dictionary counts them): cheap, for ranking keys, not for deciding.
   */
  public int docFreq(BytesRef term) throws IOException {
    int frequency = 0;
    for (TermsEnum termsEnum : termsEnums) {
      if (termsEnum != null && termsEnum.seekExact(term)) {
        frequency += termsEnum.docFreq();
      }
    }
    current = null;
    leaf = termsEnums.length;
    return frequency;
  }

  private boolean seekNextSegment() throws IOException {
    while (leaf + 1 < termsEnums.length) {
      leaf++;
      TermsEnum termsEnum = termsEnums[leaf];
      if (termsEnum != null && termsEnum.seekExact(term)) {
        current = termsEnum.postings(postings[leaf], PostingsEnum.NONE);
        postings[leaf] = current;
        currentLive = live[leaf];
        base = bases[leaf];
        return true;
      }
    }
    leaf = termsEnums.length;
    return false;
  }
}
