package org.xiaochong.spark.linkage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.xiaochong.method.linkage.FrozenLinkage;

/**
 * One record's candidates from the holders of its blocking keys, chosen as the single machine's
 * lookup in the linkage index chooses them ({@code CandidateFinder}): the keys held by at most
 * {@code maxHolders} records walked rarest first (ties by the key's UTF-8 bytes, as the index
 * orders terms) while a budget of {@link FrozenLinkage#POSTINGS_PER_RECORD} postings lasts, each
 * adding log(1 + n / holders) to every other holder's score, in single precision and in the same
 * order; then each common key's {@link FrozenLinkage#NEIGHBOURS} holders after the record by id, in
 * the order the record lists its keys; at most {@code limit} candidates, by score then id. Not
 * thread-safe: one per partition.
 */
final class CandidateChoice {
  /**
   * A key of the record and the holders it gives.
   *
   * @param position where the record lists the key among its keys
   * @param holders every holder of a rare key, the record itself left out; a common key's
   *     neighbours
   */
  record Key(String key, int position, int frequency, boolean rare, long[] holders) {}

  private static final Comparator<Key> RAREST_FIRST =
      Comparator.comparingInt(Key::frequency).thenComparing(Key::key, CandidateChoice::utf8Order);

  private final double docCount;
  private final int maxHolders;
  private final int limit;
  private final Map<Long, float[]> score = new HashMap<>();
  private final List<Long> touched = new ArrayList<>();
  private long postings;

  /**
   * @param docCount the records of the index (the table's records)
   */
  CandidateChoice(long docCount, int maxHolders, int limit) {
    this.docCount = Math.max(1, docCount);
    this.maxHolders = maxHolders;
    this.limit = limit;
  }

  /** Postings the choices so far read, as the single machine's lookups count them. */
  long postings() {
    return postings;
  }

  /** The candidates of a record with these keys: by score, then id, or by id when all fit. */
  long[] choose(List<Key> keys) {
    List<Key> rare = new ArrayList<>();
    List<Key> common = new ArrayList<>();
    for (Key key : keys) {
      (key.rare() ? rare : common).add(key);
    }
    rare.sort(RAREST_FIRST);
    common.sort(Comparator.comparingInt(Key::position));
    long budget = FrozenLinkage.POSTINGS_PER_RECORD;
    for (Key key : rare) {
      if (budget < key.frequency()) {
        break;
      }
      int held = key.frequency();
      postings += held;
      budget -= held;
      float weight = (float) Math.log(1 + docCount / held);
      for (long holder : key.holders()) {
        add(holder, weight);
      }
    }
    for (Key key : common) {
      for (long holder : key.holders()) {
        postings++;
        add(holder, (float) Math.log(1 + docCount / maxHolders));
      }
    }
    Long[] order = touched.toArray(new Long[0]);
    int n = Math.min(limit, order.length);
    if (order.length > n) {
      Arrays.sort(
          order,
          (a, b) -> {
            int byScore = Float.compare(score.get(b)[0], score.get(a)[0]);
            return byScore != 0 ? byScore : Long.compare(a, b);
          });
      order = Arrays.copyOf(order, n);
    }
    Arrays.sort(order);
    score.clear();
    touched.clear();
    return Arrays.stream(order).mapToLong(Long::longValue).toArray();
  }

  private void add(long holder, float weight) {
    float[] sum = score.get(holder);
    if (sum == null) {
      sum = new float[1];
      score.put(holder, sum);
      touched.add(holder);
    }
    sum[0] += weight;
  }

  /** Unsigned UTF-8 byte order, the order of the index's terms. */
  private static int utf8Order(String a, String b) {
    return Arrays.compareUnsigned(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }
}
