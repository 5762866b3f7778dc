package org.xiaochong.archive;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class ApartClustersTest {
  @Test
  void removedFor_noMarks_allRemovedForTheFirst() {
    assertThat(ApartClusters.removedFor(new long[] {5, 3, 9}, ApartPairs.of(1, 2)))
        .containsExactly(-1, 0, 0);
  }

  @Test
  void removedFor_restoredGroupOfTwentyThousand_allStayInLinearTime() {
    int n = 20_001;
    long[] ids = LongStream.rangeClosed(1, n).toArray();
    long[] members = new long[2 * n];
    for (int i = 0; i < n; i++) {
      members[2 * i] = i + 1;
      members[2 * i + 1] = 42; // one group
    }
    ApartPairs marks = ApartPairs.of(new long[0], members);

    int[] into = ApartClusters.removedFor(ids, marks);

    assertThat(into).containsOnly(-1); // every row stays: no pair of the group is asked
    assertThat(marks.honoured()).isEqualTo(n);
  }

  @Test
  void removedFor_laterTwinOfTheRestoredFromRow_restoredRowsStayApartFromIt() {
    // 10 (the row 11 and 12 had been removed for) and the restored 11, 12 are group 1; the newer
    // twin 20 comes first: 10 is removed for it, 11 and 12 stay (else 20's cluster would hold 10
    // and 11, which a person told apart).
    ApartPairs marks = ApartPairs.of(new long[0], new long[] {10, 1, 11, 1, 12, 1});

    int[] into = ApartClusters.removedFor(new long[] {20, 10, 11, 12, 30}, marks);

    assertThat(into).containsExactly(-1, 0, -1, -1, 0);
  }

  @Test
  void removedFor_pairMarkedWithARemovedRow_keptRowRefusesIt() {
    // 3 is marked apart from 2; 2 is removed for 1 first, so 3 stays out of 1's cluster.
    int[] into = ApartClusters.removedFor(new long[] {1, 2, 3}, ApartPairs.of(3, 2));

    assertThat(into).containsExactly(-1, 0, -1);
  }
}
