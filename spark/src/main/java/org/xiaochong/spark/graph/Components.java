package org.xiaochong.spark.graph;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.least;
import static org.apache.spark.sql.functions.min;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Connected components of an undirected graph given as pairs of record ids, by alternating
 * large-star and small-star (Kiveris, Lattanzi, Mirrokni, Rastogi, Vassilvitskii, "Connected
 * Components in MapReduce and Beyond", SoCC 2014). Each step keeps the components and moves edges
 * towards the smallest id of each: large-star links every neighbour larger than a node to the
 * smallest id of the node's neighbourhood, small-star links a node and its smaller neighbours to
 * the smallest of them. When a round changes no edge, every component is a star around its smallest
 * id. Rounds: O(log n) in practice; every step is a shuffle, never a driver-side structure.
 *
 * <p>GraphFrames (its connectedComponents is this algorithm) has no release for Spark 4 on Maven
 * Central, so the two steps are written here with DataFrames.
 */
public final class Components {
  /** A safety stop: the algorithm converges in O(log^2 n) rounds at worst. */
  private static final int MAX_ROUNDS = 100;

  private Components() {}

  /**
   * The component of every id that is in a pair: rows (id, component), the component being its
   * smallest id.
   *
   * @param pairs rows of two long columns {@code a} and {@code b}, a != b, in either order
   */
  public static Dataset<Row> of(Dataset<Row> pairs) {
    Dataset<Row> edges = symmetric(pairs.select(col("a"), col("b"))).localCheckpoint();
    long count = edges.count();
    for (int round = 0; round < MAX_ROUNDS; round++) {
      // Each step is checkpointed: a step reads its input twice, so without it the plan of round r
      // holds 4^r copies of the first one.
      Dataset<Row> large = symmetric(largeStar(edges)).localCheckpoint();
      Dataset<Row> next = symmetric(smallStar(large)).localCheckpoint();
      long nextCount = next.count();
      boolean same = nextCount == count && next.except(edges).isEmpty();
      edges = next;
      count = nextCount;
      if (same) {
        break;
      }
    }
    return edges.groupBy(col("a").as("id")).agg(least(col("a"), min(col("b"))).as("component"));
  }

  /** Each edge in both directions, once, without loops. */
  private static Dataset<Row> symmetric(Dataset<Row> edges) {
    return edges
        .union(edges.select(col("b").as("a"), col("a").as("b")))
        .filter(col("a").notEqual(col("b")))
        .distinct();
  }

  /** For every node u and neighbour v > u: the edge (v, smallest of u's neighbourhood with u). */
  private static Dataset<Row> largeStar(Dataset<Row> edges) {
    Dataset<Row> smallest =
        edges.groupBy(col("a").as("u")).agg(least(col("a"), min(col("b"))).as("m"));
    return edges
        .filter(col("b").gt(col("a")))
        .join(smallest, col("a").equalTo(col("u")))
        .select(col("b").as("a"), col("m").as("b"));
  }

  /**
   * For every node u with smaller neighbours: each of them and u itself linked to the smallest of
   * them (edges to larger neighbours are left to large-star, which sees them from the other end).
   */
  private static Dataset<Row> smallStar(Dataset<Row> edges) {
    Dataset<Row> smaller = edges.filter(col("b").lt(col("a")));
    Dataset<Row> smallest = smaller.groupBy(col("a").as("u")).agg(min(col("b")).as("m"));
    Dataset<Row> linked =
        smaller
            .join(smallest, col("a").equalTo(col("u")))
            .select(col("b").as("a"), col("m").as("b"));
    return linked.union(smallest.select(col("u").as("a"), col("m").as("b")));
  }
}
