package org.xiaochong.method.near;

import java.io.IOException;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.index.IntArrays;
import org.xiaochong.method.near.fingerprint.NearOutcome;
import org.xiaochong.method.near.index.NearSchema;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.policy.KeepPolicy;

/**
 * The documents of one near pass, read once per document: the records taking part (live, not
 * removed by the exact pass, with fingerprints) in the newest-first order, each one's mask of
 * present fields and whether all its fields are short, and the counts of the window's records.
 * Records whose fingerprint set is empty (see {@link NearOutcome}) are counted per reason and kept
 * out of the pass: only the exact pass can remove them.
 *
 * @param order the docs of the records taking part in {@code [0, records)}, newest first
 * @param records how many records take part
 * @param present {@link NearSchema#PRESENT} per doc, 0 when unknown
 * @param allShort the docs whose fields are all short ({@link #allFieldsShort})
 * @param examined live records of the window
 * @param skippedExact records of the window the exact pass had already removed
 * @param truncated records of the window cut to near.max-chars (still fingerprinted)
 * @param empty records of the window without fingerprints, per reason
 */
record PassDocuments(
    int[] order,
    int records,
    int[] present,
    FixedBitSet allShort,
    long examined,
    long skippedExact,
    long truncated,
    Map<NearOutcome, Long> empty) {

  /**
   * Reads the documents of {@code snapshot}.
   *
   * @param inWindow the docs of the window
   * @param exactRemoved ids the exact pass removed, ascending (they take no part)
   */
  static PassDocuments read(IndexSnapshot snapshot, FixedBitSet inWindow, long[] exactRemoved)
      throws IOException {
    int maxDoc = Math.max(1, snapshot.maxDoc());
    Map<NearOutcome, Long> empty = new EnumMap<>(NearOutcome.class);
    long examined = 0;
    long skippedExact = 0;
    long truncated = 0;
    int[] present = new int[maxDoc]; // NearSchema.PRESENT per doc, read once
    FixedBitSet allShort = new FixedBitSet(maxDoc); // allFieldsShort per doc
    int[] order = new int[snapshot.maxDoc()];
    int n = 0;
    for (LeafReaderContext leaf : snapshot.leaves()) {
      Bits live = leaf.reader().getLiveDocs();
      NumericDocValues outcomes = leaf.reader().getNumericDocValues(NearSchema.OUTCOME);
      NumericDocValues presentFields = leaf.reader().getNumericDocValues(NearSchema.PRESENT);
      NumericDocValues shortFields = leaf.reader().getNumericDocValues(NearSchema.SHORT);
      for (int d = 0; d < leaf.reader().maxDoc(); d++) {
        if (live != null && !live.get(d)) {
          continue;
        }
        int doc = leaf.docBase + d;
        boolean inside = inWindow.get(doc);
        if (inside) {
          examined++;
        }
        if (Arrays.binarySearch(exactRemoved, snapshot.id(doc)) >= 0) {
          if (inside) {
            skippedExact++;
          }
          continue;
        }
        long stored =
            outcomes != null && outcomes.advanceExact(d)
                ? outcomes.longValue()
                : NearOutcome.EMPTY_AFTER_NORMALIZE.ordinal();
        NearOutcome outcome = NearSchema.outcome(stored);
        if (NearSchema.truncated(stored) && inside) {
          truncated++;
        }
        if (outcome != NearOutcome.OK) {
          if (inside) {
            empty.merge(outcome, 1L, Long::sum);
          }
          continue;
        }
        if (presentFields != null && presentFields.advanceExact(d)) {
          present[doc] = (int) presentFields.longValue();
          if (shortFields != null
              && shortFields.advanceExact(d)
              && allFieldsShort(present[doc], (int) shortFields.longValue())) {
            allShort.set(doc);
          }
        }
        order[n++] = doc;
      }
    }
    IntArrays.sort(order, 0, n, (a, b) -> compareNewestFirst(snapshot, a, b));
    return new PassDocuments(order, n, present, allShort, examined, skippedExact, truncated, empty);
  }

  /**
   * True when every field that gave the record a key is short ({@link NearRule.Keys#shortFields}: a
   * name, a code, a street): a record of such fields varies by typos, so two variants of one
   * original can be further apart than each is from it. Records with text fields are left to the
   * greedy pass: on them, average linkage joined different citations through a citation the greedy
   * pass had already joined wrongly (cora's precision fell from 0.992 to 0.973; docs/near.md,
   * "Groups and the record kept").
   */
  static boolean allFieldsShort(NearRule.Keys record) {
    return allFieldsShort(record.presentFields(), record.shortFields());
  }

  static boolean allFieldsShort(int presentFields, int shortFields) {
    return presentFields != 0 && (presentFields & ~shortFields) == 0;
  }

  /**
   * Negative when doc {@code a} is kept over doc {@code b}: the newest-first order ({@link
   * KeepPolicy}: rank desc, id desc).
   */
  static int compareNewestFirst(IndexSnapshot snapshot, int a, int b) {
    return KeepPolicy.compare(snapshot.rank(b), snapshot.id(b), snapshot.rank(a), snapshot.id(a));
  }
}
