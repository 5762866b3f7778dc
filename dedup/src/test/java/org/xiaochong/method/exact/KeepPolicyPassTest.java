package org.xiaochong.method.exact;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.commons.codec.digest.DigestUtils;
import org.apache.lucene.index.DirectoryReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.index.RecordSegmentIndexer;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.Window;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.prefilter.GroupPrefilter;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/** The exact pass under keep policies other than latest: the rank the index keeps decides. */
class KeepPolicyPassTest {
  private static final long NULL = SourceRecord.NULL_TIME;
  @TempDir Path dir;

  /**
   * One group of exact twins (ids 1..n), each with a time and a value of column paid (null: NULL);
   * the kept id.
   */
  private long keptOfTwins(KeepPolicy policy, long[] times, Long[] paid) throws Exception {
    try (FingerprintIndex index =
        FingerprintIndex.open(dir.resolve("twins" + System.nanoTime()), "test", true)) {
      byte[] key = DigestUtils.md5("one post");
      for (int i = 0; i < times.length; i++) {
        Map<String, Object> values = new HashMap<>();
        values.put("paid", paid == null ? null : paid[i]);
        index.add(i + 1, times[i], policy.isLatest() ? null : policy.rank(times[i], values), key);
      }
      index.commit();
      try (DirectoryReader reader = index.openReader()) {
        DeletionPlan plan = new DeletionPlan();
        new ExactPass(new IndexSnapshot(reader, policy), GroupPrefilter.NONE)
            .run(Window.of(null, null), plan);
        assertThat(plan.size()).isEqualTo(times.length - 1);
        return plan.keptId(0);
      }
    }
  }

  @Test
  void earliest_keepsTheOldest_notANullTime_tiesByLargerId() throws Exception {
    KeepPolicy earliest = KeepPolicy.parse("earliest", "reg_time");
    assertThat(keptOfTwins(earliest, new long[] {3000, 1000, 2000}, null)).isEqualTo(2);
    assertThat(keptOfTwins(earliest, new long[] {NULL, 5000, NULL}, null)).isEqualTo(2);
    assertThat(keptOfTwins(earliest, new long[] {1000, 1000, 4000}, null)).isEqualTo(2);
    assertThat(keptOfTwins(earliest, new long[] {NULL, NULL}, null)).isEqualTo(2);
    // the same twins under latest: the newest
    assertThat(keptOfTwins(KeepPolicy.latest("reg_time"), new long[] {3000, 1000, 2000}, null))
        .isEqualTo(1);
  }

  @Test
  void paidThenLatest_paidWins_nullPaidIsNotPaid_thenTime_thenId() throws Exception {
    KeepPolicy paid = KeepPolicy.parse("paid desc, reg_time desc", "reg_time");
    assertThat(keptOfTwins(paid, new long[] {1000, 9000, 5000}, new Long[] {1L, 0L, null}))
        .isEqualTo(1);
    assertThat(keptOfTwins(paid, new long[] {1000, 9000, 5000}, new Long[] {null, 0L, null}))
        .isEqualTo(2);
    assertThat(keptOfTwins(paid, new long[] {1000, 9000, 5000}, new Long[] {null, null, null}))
        .isEqualTo(2);
    assertThat(keptOfTwins(paid, new long[] {7000, 7000, NULL}, new Long[] {1L, 1L, 1L}))
        .isEqualTo(2);
  }

  /**
   * Under a policy of two columns the snapshot's one long per document is its position among the
   * distinct ranks: it must order any two documents as the whole ranks do (many ties and NULLs, two
   * segments).
   */
  @Test
  void snapshotRank_ofTwoColumns_ordersDocumentsAsTheWholeRanks() throws Exception {
    KeepPolicy policy = KeepPolicy.parse("paid desc, reg_time asc", "reg_time");
    Random random = new Random(26);
    List<long[]> ranks = new ArrayList<>();
    try (FingerprintIndex index = FingerprintIndex.open(dir.resolve("positions"), "test", true)) {
      for (int id = 1; id <= 400; id++) {
        long time = random.nextInt(5) == 0 ? NULL : random.nextInt(6) * 1000L;
        Map<String, Object> values = new HashMap<>();
        values.put("paid", random.nextInt(4) == 0 ? null : (long) random.nextInt(3));
        long[] rank = policy.rank(time, values);
        ranks.add(rank);
        index.add(id, time, rank, DigestUtils.md5("post " + id));
        if (id == 200) {
          index.commit();
        }
      }
      index.commit();
      try (DirectoryReader reader = index.openReader()) {
        IndexSnapshot snapshot = new IndexSnapshot(reader, policy);
        for (int a = 0; a < snapshot.maxDoc(); a++) {
          for (int b = 0; b < snapshot.maxDoc(); b++) {
            int byPosition =
                KeepPolicy.compare(
                    snapshot.rank(a), snapshot.id(a), snapshot.rank(b), snapshot.id(b));
            int byRank =
                KeepPolicy.compare(
                    ranks.get((int) snapshot.id(a) - 1),
                    snapshot.id(a),
                    ranks.get((int) snapshot.id(b) - 1),
                    snapshot.id(b));
            assertThat(Integer.signum(byPosition)).isEqualTo(Integer.signum(byRank));
          }
        }
      }
    }
  }

  /**
   * The segment indexer (a sync's bulk path) keeps the rank of each record, computed from its
   * columns.
   */
  @Test
  void segmentIndexer_keepsTheRankOfEachRecord() throws Exception {
    KeepPolicy policy = KeepPolicy.parse("paid desc, reg_time desc", "reg_time");
    TableSpec spec =
        new TableSpec("t", "id", "reg_time", List.of("title"), List.of()).withKeepPolicy(policy);
    assertThat(spec.fingerprintColumns()).containsExactly("title", "paid");
    try (FingerprintIndex index = FingerprintIndex.open(dir.resolve("segments"), "test", true)) {
      RecordSegmentIndexer indexer = new RecordSegmentIndexer(index, spec);
      indexer.add(new SourceRecord(1, 5000, new String[] {"same", "0"}));
      indexer.add(new SourceRecord(2, 1000, new String[] {"same", "1"}));
      indexer.add(new SourceRecord(3, 9000, new String[] {"same", null}));
      indexer.finish();
      index.commit();
      try (DirectoryReader reader = index.openReader()) {
        for (int doc = 0; doc < 3; doc++) {
          long id = IndexSchema.id(reader.leaves(), doc);
          long[] expected =
              id == 1
                  ? new long[] {0, 5000}
                  : id == 2 ? new long[] {1, 1000} : new long[] {Long.MIN_VALUE, 9000};
          assertThat(IndexSchema.rank(reader.leaves(), doc, policy)).containsExactly(expected);
        }
        DeletionPlan plan = new DeletionPlan();
        new ExactPass(new IndexSnapshot(reader, policy), GroupPrefilter.NONE)
            .run(Window.of(null, null), plan);
        assertThat(plan.keptId(0)).isEqualTo(2); // paid, though the oldest
      }
    }
  }
}
