package org.xiaochong.method.exact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.archive.ApartClusters;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.index.IntArrays;
import org.xiaochong.index.TermHolders;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.SampleGroup;
import org.xiaochong.pass.Window;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.prefilter.GroupPrefilter;

/**
 * The exact pass (seed 002, 第一步 ④-⑧): for each record of the window, look up every record of the
 * whole index with the same MD5 key; in each group of two or more keep the preferred record (see
 * {@link KeepPolicy}) and plan the others for removal with rule {@code exact} and score 1.
 *
 * <p>The seed runs a Lucene TermQuery per record. We do what a TermQuery does underneath, without
 * scoring or collector overhead ({@link TermHolders}: per segment, {@code TermsEnum.seekExact(md5)}
 * and the postings, skipping deleted docs). Every member of a resolved group is marked, so a group
 * is looked up once, not once per member. The {@link GroupPrefilter} is asked before each lookup.
 * Pairs marked apart ({@link ApartPairs}) are never removed one for the other ({@link #decide}).
 *
 * <p>Not thread-safe: one instance per run.
 */
final class ExactPass {
  /** How many groups the result keeps as samples for the dry-run plan and the report. */
  static final int SAMPLE_GROUPS = 10;

  /**
   * What the pass found.
   *
   * @param lookups term lookups made (after the prefilter)
   * @param lookupsSkipped lookups the prefilter proved needless
   * @param lookupsAlone lookups that found the record alone: the prefilter's false positives
   */
  public record Result(
      long recordsExamined,
      long groups,
      long lookups,
      long lookupsSkipped,
      long lookupsAlone,
      List<SampleGroup> samples) {}

  private final IndexSnapshot snapshot;
  private final GroupPrefilter prefilter;
  private final ApartPairs apart;

  public ExactPass(IndexSnapshot snapshot, GroupPrefilter prefilter) {
    this(snapshot, prefilter, ApartPairs.NONE);
  }

  /**
   * @param apart pairs marked as not duplicates: neither is removed in favour of the other
   */
  public ExactPass(IndexSnapshot snapshot, GroupPrefilter prefilter, ApartPairs apart) {
    this.snapshot = snapshot;
    this.prefilter = prefilter;
    this.apart = apart;
  }

  /** Runs the pass over the window and adds its decisions to {@code plan}. */
  public Result run(Window window, DeletionPlan plan) {
    try {
      return doRun(window, plan);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Result doRun(Window window, DeletionPlan plan) throws IOException {
    List<LeafReaderContext> leaves = snapshot.leaves();
    FixedBitSet inWindow = snapshot.windowDocs(window);
    FixedBitSet resolved = new FixedBitSet(Math.max(1, snapshot.maxDoc()));
    TermHolders holders = new TermHolders(leaves, IndexSchema.MD5);
    int[] group = new int[16];
    long examined = 0;
    long groups = 0;
    long lookups = 0;
    long skipped = 0;
    long alone = 0;
    List<SampleGroup> samples = new ArrayList<>();

    for (LeafReaderContext leaf : leaves) {
      BinaryDocValues md5s = leaf.reader().getBinaryDocValues(IndexSchema.MD5);
      int end = leaf.docBase + leaf.reader().maxDoc();
      for (int doc = nextSet(inWindow, leaf.docBase, end);
          doc < end;
          doc = nextSet(inWindow, doc + 1, end)) {
        examined++;
        if (resolved.get(doc) || md5s == null || !md5s.advanceExact(doc - leaf.docBase)) {
          continue;
        }
        BytesRef key = BytesRef.deepCopyOf(md5s.binaryValue());
        if (!prefilter.mightHaveTwin(key.bytes)) {
          skipped++;
          continue;
        }
        lookups++;
        int size = 0;
        for (int d = holders.first(key); d != TermHolders.NO_MORE_DOCS; d = holders.next()) {
          if (size == group.length) {
            group = Arrays.copyOf(group, size * 2);
          }
          group[size++] = d;
        }
        for (int i = 0; i < size; i++) {
          resolved.set(group[i]);
        }
        if (size > 1) {
          groups++;
          decide(group, size, plan, samples);
        } else {
          alone++;
        }
      }
    }
    return new Result(examined, groups, lookups, skipped, alone, samples);
  }

  /**
   * Decides one group. Without marks, the preferred record ({@link KeepPolicy}) is kept and the
   * others are removed in favour of it. With marks ({@link ApartPairs}), the members are taken in
   * preference order and decided by {@link ApartClusters}: each is removed in favour of the first
   * record kept so far whose cluster (it and the records removed for it) holds none it is marked
   * apart from, or kept when every cluster holds one. No record is removed in favour of one it is
   * marked apart from, nor ends beside one in the archive's cluster of a kept row; the order (keep
   * rank desc, id desc: total, since ids are unique) makes the result the same on every run. In a
   * group of three where only the two most preferred are marked, both stay and the third is removed
   * for the first.
   */
  private void decide(int[] group, int size, DeletionPlan plan, List<SampleGroup> samples) {
    if (apart.isEmpty()) { // only the preferred record must come first: one scan instead of a sort
      int best = 0;
      for (int i = 1; i < size; i++) {
        if (KeepPolicy.isPreferred(
            snapshot.rank(group[i]),
            snapshot.id(group[i]),
            snapshot.rank(group[best]),
            snapshot.id(group[best]))) {
          best = i;
        }
      }
      int first = group[0];
      group[0] = group[best];
      group[best] = first;
    } else {
      IntArrays.sort(
          group,
          0,
          size,
          (a, b) ->
              KeepPolicy.compare(
                  snapshot.rank(b), snapshot.id(b), snapshot.rank(a), snapshot.id(a)));
    }
    int kept = group[0];
    long keptId = snapshot.id(kept);
    int[] into = null; // with marks: the member each is removed for (ApartClusters), -1 kept
    if (!apart.isEmpty()) {
      long[] ids = new long[size];
      for (int i = 0; i < size; i++) {
        ids[i] = snapshot.id(group[i]);
      }
      into = ApartClusters.removedFor(ids, apart);
    }
    long[] removed = new long[size - 1];
    long[] removedTimes = new long[size - 1];
    int r = 0;
    for (int i = 1; i < size; i++) {
      int d = group[i];
      if (into != null && into[i] < 0) {
        continue; // marked apart from every cluster: it stays
      }
      int keptDoc = into == null ? kept : group[into[i]];
      plan.add(
          snapshot.id(d),
          snapshot.id(keptDoc),
          ExactMethod.RULE,
          1.0,
          snapshot.state(d),
          snapshot.state(keptDoc));
      if (keptDoc == kept) {
        removed[r] = snapshot.id(d);
        removedTimes[r++] = snapshot.time(d);
      }
    }
    removed = Arrays.copyOf(removed, r);
    removedTimes = Arrays.copyOf(removedTimes, r);
    // The samples are the groups with the smallest kept ids, not the first found: the order of the
    // index's segments (which indexing thread finished first) must not change what a run prints. A
    // group whose records all stay (marked apart) shows nothing to remove, so it is no sample.
    if (r > 0
        && (samples.size() < SAMPLE_GROUPS || keptId < samples.get(samples.size() - 1).keptId())) {
      int at = 0;
      while (at < samples.size() && samples.get(at).keptId() < keptId) {
        at++;
      }
      samples.add(at, new SampleGroup(keptId, snapshot.time(kept), removed, removedTimes));
      if (samples.size() > SAMPLE_GROUPS) {
        samples.remove(SAMPLE_GROUPS);
      }
    }
  }

  private static int nextSet(FixedBitSet bits, int from, int end) {
    if (from >= end) {
      return end;
    }
    int next = bits.nextSetBit(from);
    return next == org.apache.lucene.search.DocIdSetIterator.NO_MORE_DOCS || next >= end
        ? end
        : next;
  }
}
