package org.xiaochong.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.xiaochong.spark.cli.Sessions;

/**
 * Large-star/small-star against union-find on random graphs with long chains (the worst case of
 * label propagation).
 */
class ComponentsTest {
  @Test
  void of_randomGraphWithChains_givesUnionFindsComponentsLabelledBySmallestId() {
    SparkSession spark = Sessions.open("local[2]");
    Random random = new Random(7);
    List<Row> pairs = new ArrayList<>();
    Map<Long, Long> parent = new HashMap<>();
    for (long chain = 0; chain < 20; chain++) { // chains of 12, ids shuffled
      long[] ids = random.longs(12, 0, 1_000_000).toArray();
      for (int i = 1; i < ids.length; i++) {
        if (ids[i] != ids[i - 1]) {
          pairs.add(RowFactory.create(ids[i - 1], ids[i]));
          union(parent, ids[i - 1], ids[i]);
        }
      }
    }
    List<Row> rows =
        Components.of(
                spark.createDataFrame(
                    pairs,
                    new StructType().add("a", DataTypes.LongType).add("b", DataTypes.LongType)))
            .collectAsList();
    Map<Long, Long> smallest = new HashMap<>();
    parent.keySet().forEach(id -> smallest.merge(find(parent, id), id, Math::min));
    assertThat(rows).hasSize(parent.size());
    for (Row row : rows) {
      assertThat(row.getLong(1))
          .as("component of %d", row.getLong(0))
          .isEqualTo(smallest.get(find(parent, row.getLong(0))));
    }
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
