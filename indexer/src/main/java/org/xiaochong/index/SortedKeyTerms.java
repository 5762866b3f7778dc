package org.xiaochong.index;

import static org.xiaochong.index.KeyOrder.KEY_BYTES;

import org.apache.lucene.index.BaseTermsEnum;
import org.apache.lucene.index.ImpactsEnum;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;

/**
 * The md5 terms of {@link RecordSegmentReader}'s documents, read straight from the key array: the
 * documents are sorted once by (key, doc) ({@link KeyOrder}), a term is a run of equal keys and its
 * postings the run's docs. Only walked in order, as {@code IndexWriter.addIndexes} does; no
 * frequencies, positions, offsets or payloads. Immutable once made; each iterator is used by one
 * thread.
 */
final class SortedKeyTerms extends Terms {
  private final byte[] keys;
  private final int maxDoc;

  /**
   * Doc numbers in (key, doc) order: a term is a run of equal keys, its postings the run's docs.
   */
  private final int[] docsByKey;

  /** Positions in docsByKey where a new key (term) starts. */
  private final FixedBitSet termStarts;

  private final int termCount;

  /**
   * @param keys 16-byte MD5 keys, document d at {@code [16d, 16d + 16)}
   * @param size documents: the first {@code size} keys
   */
  SortedKeyTerms(byte[] keys, int size) {
    this.keys = keys;
    this.maxDoc = size;
    this.docsByKey = KeyOrder.docsInKeyOrder(keys, size);
    this.termStarts = new FixedBitSet(size + 1);
    for (int i = 0; i < size; i++) {
      if (i == 0 || KeyOrder.compareKeys(keys, docsByKey[i - 1], docsByKey[i]) != 0) {
        termStarts.set(i);
      }
    }
    termStarts.set(size); // the end of the last term
    this.termCount = termStarts.cardinality() - 1;
  }

  @Override
  public TermsEnum iterator() {
    return new KeyTermsEnum();
  }

  @Override
  public long size() {
    return termCount;
  }

  @Override
  public long getSumTotalTermFreq() {
    return maxDoc;
  }

  @Override
  public long getSumDocFreq() {
    return maxDoc;
  }

  @Override
  public int getDocCount() {
    return maxDoc;
  }

  @Override
  public boolean hasFreqs() {
    return false;
  }

  @Override
  public boolean hasOffsets() {
    return false;
  }

  @Override
  public boolean hasPositions() {
    return false;
  }

  @Override
  public boolean hasPayloads() {
    return false;
  }

  /**
   * Walks the terms in order (all a merge needs): a term is the run docsByKey[start, end) of one
   * key.
   */
  private final class KeyTermsEnum extends BaseTermsEnum {
    private int start;
    private int end;
    private long ord = -1;
    private final BytesRef term = new BytesRef(keys, 0, KEY_BYTES);

    @Override
    public BytesRef next() {
      start = end;
      if (start >= maxDoc) {
        return null;
      }
      end = termStarts.nextSetBit(start + 1);
      ord++;
      term.offset = KEY_BYTES * docsByKey[start];
      return term;
    }

    @Override
    public SeekStatus seekCeil(BytesRef text) {
      throw new UnsupportedOperationException("only walked in order, by addIndexes");
    }

    @Override
    public void seekExact(long ord) {
      throw new UnsupportedOperationException("only walked in order, by addIndexes");
    }

    @Override
    public BytesRef term() {
      return term;
    }

    @Override
    public long ord() {
      return ord;
    }

    @Override
    public int docFreq() {
      return end - start;
    }

    @Override
    public long totalTermFreq() {
      return end - start;
    }

    @Override
    public PostingsEnum postings(PostingsEnum reuse, int flags) {
      return new RunPostings(start, end);
    }

    @Override
    public ImpactsEnum impacts(int flags) {
      throw new UnsupportedOperationException("only walked in order, by addIndexes");
    }
  }

  /** The docs docsByKey[from, to) of one term, increasing (the sort breaks key ties by doc). */
  private final class RunPostings extends PostingsEnum {
    private final int to;
    private int next;
    private int doc = -1;

    RunPostings(int from, int to) {
      this.next = from;
      this.to = to;
    }

    @Override
    public int freq() {
      return 1;
    }

    @Override
    public int nextPosition() {
      return -1;
    }

    @Override
    public int startOffset() {
      return -1;
    }

    @Override
    public int endOffset() {
      return -1;
    }

    @Override
    public BytesRef getPayload() {
      return null;
    }

    @Override
    public int docID() {
      return doc;
    }

    @Override
    public int nextDoc() {
      return doc = next < to ? docsByKey[next++] : NO_MORE_DOCS;
    }

    @Override
    public int advance(int target) {
      int d = nextDoc();
      while (d < target) {
        d = nextDoc();
      }
      return d;
    }

    @Override
    public long cost() {
      return to - next;
    }
  }
}
