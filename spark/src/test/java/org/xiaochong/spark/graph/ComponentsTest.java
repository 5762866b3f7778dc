package org.xiaochong.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.xiaochong.spark.cli.Sessions;

/**
 * Large-star/small-star against union-find on random graphs: long chains (the worst case of label
 * propagation) and graphs of several shapes.
 */
class ComponentsTest {
  @Test
  void of_randomGraphWithChains_givesUnionFindsComponentsLabelledBySmallestId() {
    Random random = new Random(7);
    List<long[]> pairs = new ArrayList<>();
    for (long chain = 0; chain < 20; chain++) { // chains of 12, ids shuffled
      long[] ids = random.longs(12, 0, 1_000_000).toArray();
      for (int i = 1; i < ids.length; i++) {
        if (ids[i] != ids[i - 1]) {
          pairs.add(new long[] {ids[i - 1], ids[i]});
        }
      }
    }
    assertSameAsUnionFind(pairs, Components.of(frame(pairs)));
  }

  /**
   * Several shapes at once, ids drawn at random: long paths (which need the most rounds), one along
   * increasing ids, chains, stars, cliques, sparse random pieces and lone pairs; edges in either
   * direction, some twice. The input in one partition (the union-find does it all), in many, and in
   * the default ones with union-finds of a few nodes only.
   */
  @Test
  void of_randomShapes_givesUnionFindsComponents() {
    for (int seed = 1; seed <= 3; seed++) {
      Random random = new Random(seed);
      List<long[]> pairs = shapes(random);
      Dataset<Row> frame = frame(pairs);
      Dataset<Row> components =
          switch (seed) {
            case 1 -> Components.of(frame.coalesce(1));
            case 2 -> Components.of(frame.repartition(16));
            default -> Components.of(frame, 5);
          };
      assertSameAsUnionFind(pairs, components);
    }
  }

  private static List<long[]> shapes(Random random) {
    List<Long> ids = new ArrayList<>();
    Set<Long> drawn = new HashSet<>();
    while (ids.size() < 4_000) {
      long id = random.nextLong(1, Long.MAX_VALUE);
      if (drawn.add(id)) {
        ids.add(id);
      }
    }
    Iterator<Long> next = ids.iterator();
    List<long[]> pairs = new ArrayList<>();
    for (int path = 0; path < 2; path++) {
      chain(next, 300 + random.nextInt(300), pairs);
    }
    // A path along increasing ids: after large-star each node has one smaller neighbour, which is
    // not yet the path's smallest id.
    List<Long> increasing = new ArrayList<>();
    for (int i = 200 + random.nextInt(100); i > 0; i--) {
      increasing.add(next.next());
    }
    Collections.sort(increasing);
    chain(increasing.iterator(), increasing.size(), pairs);
    for (int chain = 0; chain < 30; chain++) {
      chain(next, 2 + random.nextInt(20), pairs);
    }
    for (int star = 0; star < 20; star++) {
      long centre = next.next();
      for (int leaf = 1 + random.nextInt(25); leaf > 0; leaf--) {
        pairs.add(new long[] {centre, next.next()});
      }
    }
    for (int clique = 0; clique < 10; clique++) {
      long[] members = new long[2 + random.nextInt(6)];
      for (int i = 0; i < members.length; i++) {
        members[i] = next.next();
        for (int j = 0; j < i; j++) {
          pairs.add(new long[] {members[j], members[i]});
        }
      }
    }
    for (int piece = 0; piece < 10; piece++) {
      long[] nodes = new long[5 + random.nextInt(40)];
      for (int i = 0; i < nodes.length; i++) {
        nodes[i] = next.next();
      }
      for (int edge = nodes.length * 3 / 4; edge > 0; edge--) {
        long a = nodes[random.nextInt(nodes.length)];
        long b = nodes[random.nextInt(nodes.length)];
        if (a != b) {
          pairs.add(new long[] {a, b});
        }
      }
    }
    for (int pair = 0; pair < 50; pair++) {
      pairs.add(new long[] {next.next(), next.next()});
    }
    List<long[]> shuffled = new ArrayList<>();
    for (long[] pair : pairs) {
      shuffled.add(random.nextBoolean() ? pair : new long[] {pair[1], pair[0]});
      if (random.nextInt(10) == 0) {
        shuffled.add(pair);
      }
    }
    Collections.shuffle(shuffled, random);
    return shuffled;
  }

  /** A path through {@code length} fresh ids. */
  private static void chain(Iterator<Long> ids, int length, List<long[]> pairs) {
    long previous = ids.next();
    for (int i = 1; i < length; i++) {
      long id = ids.next();
      pairs.add(new long[] {previous, id});
      previous = id;
    }
  }

  private static Dataset<Row> frame(List<long[]> pairs) {
    List<Row> rows = new ArrayList<>();
    pairs.forEach(pair -> rows.add(RowFactory.create(pair[0], pair[1])));
    return Sessions.open("local[2]")
        .createDataFrame(
            rows, new StructType().add("a", DataTypes.LongType).add("b", DataTypes.LongType));
  }

  private static void assertSameAsUnionFind(List<long[]> pairs, Dataset<Row> components) {
    Map<Long, Long> parent = new HashMap<>();
    pairs.forEach(pair -> union(parent, pair[0], pair[1]));
    Map<Long, Long> smallest = new HashMap<>();
    parent.keySet().forEach(id -> smallest.merge(find(parent, id), id, Math::min));
    Map<Long, Long> expected = new HashMap<>();
    parent.keySet().forEach(id -> expected.put(id, smallest.get(find(parent, id))));
    Map<Long, Long> actual = new HashMap<>();
    List<Row> rows = components.collectAsList();
    rows.forEach(row -> actual.put(row.getLong(0), row.getLong(1)));
    assertThat(rows).as("one row per id").hasSize(actual.size());
    assertThat(actual).isEqualTo(expected);
  }

  private static long find(Map<Long, Long> parent, long id) {
    parent.putIfAbsent(id, id);
    long root = id;
    while (parent.get(root) != root) {
      root = parent.get(root);
    }
    return root;
  }

  private static void union(Map<Long, Long> parent, long a, long b) {
    parent.put(find(parent, a), find(parent, b));
  }
}
