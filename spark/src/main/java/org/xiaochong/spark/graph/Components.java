package org.xiaochong.spark.graph;

import static org.apache.spark.sql.functions.col;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.LongAccumulator;

/**
 * Connected components of an undirected graph given as pairs of record ids, by alternating
 * large-star and small-star (Kiveris, Lattanzi, Mirrokni, Rastogi, Vassilvitskii, "Connected
 * Components in MapReduce and Beyond", SoCC 2014). Every step is a shuffle; nothing goes to the
 * driver, and no node's neighbourhood is gathered in a task (a component may be most of the graph).
 *
 * <p>Edges are rows (a, b). A step sends every edge to a node, sorts each node's edges by the other
 * end and streams them: the first is the node's smallest neighbour, so a node's rows are never
 * gathered. With m(u) the smallest of u and its neighbours:
 *
 * <ul>
 *   <li>large-star (over both directions of every edge) links each neighbour v > u to m(u), and u
 *       itself to m(u) when m(u) < u; every edge it gives goes from a larger id to a smaller one;
 *   <li>small-star (over those) links each smaller neighbour of u, and u itself, to the smallest of
 *       them.
 * </ul>
 *
 * Both keep the components and their smallest ids. A round (the two steps) is one Spark job, which
 * also counts the edges small-star moves (an accumulator: a task run again counts again, which does
 * not change whether the count is zero). None moved means that every edge (u, v) of the round's
 * input had m(u) = m(v): small-star found one smaller neighbour per node, which for the larger end
 * v of an edge was both m(u) (large-star's link of v) and m(v) (v's own link). Then m is constant
 * on each component, hence its smallest id, and the round's output is exactly one edge from each
 * node to it: the answer. Rounds: O(log n) in practice, O(log^2 n) at worst.
 *
 * <p>Before the first round each input partition is contracted with a union-find of its own edges
 * (each node linked to the smallest id of its part), which keeps the components, costs no shuffle,
 * and often leaves the rounds little to do.
 *
 * <p>GraphFrames (its connectedComponents is this algorithm) has no release for Spark 4 on Maven
 * Central, so the steps are written here.
 */
public final class Components {
  /** A safety stop: the algorithm converges in O(log^2 n) rounds at worst. */
  private static final int MAX_ROUNDS = 100;

  /** The nodes a partition's union-find holds at once (about 10 MB); then it starts again. */
  private static final int CONTRACT_NODES = 100_000;

  private static final StructType EDGE =
      new StructType().add("a", DataTypes.LongType, false).add("b", DataTypes.LongType, false);

  private Components() {}

  /**
   * The component of every id that is in a pair: rows (id, component), the component being its
   * smallest id. The rows of the last round stay cached (they are what the result reads).
   *
   * @param pairs rows of two long columns {@code a} and {@code b}, a != b, in either order
   * @throws IllegalStateException when {@value #MAX_ROUNDS} rounds did not converge
   */
  public static Dataset<Row> of(Dataset<Row> pairs) {
    return of(pairs, CONTRACT_NODES);
  }

  /** {@link #of(Dataset)} with union-finds of at most about {@code contractNodes} nodes. */
  static Dataset<Row> of(Dataset<Row> pairs, int contractNodes) {
    Encoder<Row> edge = Encoders.row(EDGE);
    Dataset<Row> edges =
        pairs
            .select(col("a"), col("b"))
            .mapPartitions(
                (MapPartitionsFunction<Row, Row>)
                    rows -> new Contraction(rows, contractNodes).iterator(),
                edge);
    Dataset<Row> previous = null;
    for (int round = 1; round <= MAX_ROUNDS; round++) {
      LongAccumulator moved =
          pairs.sparkSession().sparkContext().longAccumulator("components round " + round);
      Dataset<Row> both =
          edges.flatMap(
              (FlatMapFunction<Row, Row>)
                  row -> List.of(row, RowFactory.create(row.getLong(1), row.getLong(0))).iterator(),
              edge);
      Dataset<Row> large =
          byNode(both).mapPartitions((MapPartitionsFunction<Row, Row>) LargeStar::new, edge);
      Dataset<Row> next =
          byNode(large)
              .mapPartitions(
                  (MapPartitionsFunction<Row, Row>) rows -> new SmallStar(rows, moved), edge)
              .persist(StorageLevel.MEMORY_AND_DISK());
      next.count(); // the round's one job; it fills the accumulator
      if (previous != null) {
        previous.unpersist();
      }
      previous = next;
      edges = next;
      if (moved.value() == 0) {
        return edges
            .select(col("a").as("id"), col("b").as("component"))
            .union(edges.select(col("b").as("id"), col("b").as("component")).distinct());
      }
    }
    throw new IllegalStateException(
        "connected components did not converge in " + MAX_ROUNDS + " rounds");
  }

  /** The edges of each node a in one partition, sorted by b. */
  private static Dataset<Row> byNode(Dataset<Row> edges) {
    return edges.repartition(col("a")).sortWithinPartitions("a", "b");
  }

  /** A partition's edges, each node linked to the smallest id of its part of the partition. */
  private static final class Contraction {
    private final Iterator<Row> rows;
    private final int nodes;
    private final Map<Long, Long> parent = new HashMap<>();

    Contraction(Iterator<Row> rows, int nodes) {
      this.rows = rows;
      this.nodes = nodes;
    }

    Iterator<Row> iterator() {
      return new Iterator<>() {
        private Iterator<Row> batch = List.<Row>of().iterator();

        @Override
        public boolean hasNext() {
          while (!batch.hasNext() && rows.hasNext()) {
            batch = nextBatch();
          }
          return batch.hasNext();
        }

        @Override
        public Row next() {
          hasNext();
          return batch.next();
        }
      };
    }

    /** Unions edges until it holds {@link #nodes} nodes or the end, then links each to its root. */
    private Iterator<Row> nextBatch() {
      parent.clear();
      while (rows.hasNext() && parent.size() < nodes) {
        Row row = rows.next();
        long a = root(row.getLong(0));
        long b = root(row.getLong(1));
        parent.put(Math.max(a, b), Math.min(a, b)); // the smaller id stays the root
      }
      List<Row> out = new ArrayList<>(parent.size());
      for (long node : parent.keySet()) {
        long root = root(node);
        if (root != node) {
          out.add(RowFactory.create(node, root));
        }
      }
      return out.iterator();
    }

    /** The root of node's set (added when new), compressing the path to it. */
    private long root(long node) {
      parent.putIfAbsent(node, node);
      long root = node;
      while (parent.get(root) != root) {
        root = parent.get(root);
      }
      for (long at = node; at != root; ) {
        at = parent.put(at, root);
      }
      return root;
    }
  }

  /**
   * A step over a partition of edges sorted by (a, b): {@link #edge} sees them one by one and
   * queues what it gives.
   */
  private abstract static class Step implements Iterator<Row> {
    private final Iterator<Row> rows;
    private final ArrayDeque<Row> out = new ArrayDeque<>();

    Step(Iterator<Row> rows) {
      this.rows = rows;
    }

    abstract void edge(long a, long b);

    final void give(long a, long b) {
      out.add(RowFactory.create(a, b));
    }

    @Override
    public final boolean hasNext() {
      while (out.isEmpty() && rows.hasNext()) {
        Row row = rows.next();
        edge(row.getLong(0), row.getLong(1));
      }
      return !out.isEmpty();
    }

    @Override
    public final Row next() {
      hasNext();
      return out.remove();
    }
  }

  /** Large-star: each neighbour v > u, and u when not the smallest, linked to m(u). */
  private static final class LargeStar extends Step {
    private boolean started;
    private long node;
    private long smallest;
    private long last;

    LargeStar(Iterator<Row> rows) {
      super(rows);
    }

    @Override
    void edge(long a, long b) {
      if (!started || a != node) {
        started = true;
        node = a;
        smallest = Math.min(a, b);
        if (smallest < a) {
          give(a, smallest);
        }
      } else if (b == last) {
        return; // the same edge again
      }
      last = b;
      if (b > a) {
        give(b, smallest);
      }
    }
  }

  /**
   * Small-star: u and each of its (all smaller) neighbours linked to the smallest of them; counts
   * the neighbours it moves.
   */
  private static final class SmallStar extends Step {
    private final LongAccumulator moved;
    private boolean started;
    private long node;
    private long smallest;
    private long last;

    SmallStar(Iterator<Row> rows, LongAccumulator moved) {
      super(rows);
      this.moved = moved;
    }

    @Override
    void edge(long a, long b) {
      if (!started || a != node) {
        started = true;
        node = a;
        smallest = b;
        give(a, b);
      } else if (b != last) {
        give(b, smallest);
        moved.add(1);
      }
      last = b;
    }
  }
}
