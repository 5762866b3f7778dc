package org.xiaochong.spark.count;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.LongAccumulator;
import org.junit.jupiter.api.Test;
import org.xiaochong.spark.cli.Sessions;

/** A count that a partition computed again does not inflate, where Spark's accumulator does. */
class PartitionCounterTest {
  @Test
  void value_partitionsComputedTwice_countsEachOnce() {
    SparkSession spark = Sessions.open("local[2]");
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    PartitionCounter counter = PartitionCounter.create(spark.sparkContext(), "test rows");
    LongAccumulator accumulator = spark.sparkContext().longAccumulator("test rows (Spark's)");
    List<Integer> values = IntStream.range(0, 1_000).boxed().toList();
    JavaRDD<Integer> counted =
        context
            .parallelize(values, 7)
            .map(
                v -> {
                  counter.add(1);
                  accumulator.add(1);
                  return v;
                });

    assertThat(counted.count()).isEqualTo(1_000);
    assertThat(counted.filter(v -> v % 2 == 0).count()).isEqualTo(500); // computed again

    assertThat(accumulator.value()).as("Spark's accumulator adds the second time").isEqualTo(2_000);
    assertThat(counter.value()).isEqualTo(1_000);
    counter.add(5); // on the driver
    assertThat(counter.value()).isEqualTo(1_005);
  }
}
