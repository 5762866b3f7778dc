package org.xiaochong.spark.keep;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.xiaochong.policy.KeepPolicy;

class KeepTest {
  private static final StructType BASE =
      new StructType().add("id", DataTypes.LongType).add("time", DataTypes.LongType);

  private static Row row(StructType schema, Object... values) {
    return new GenericRowWithSchema(values, schema);
  }

  @Test
  void rankColumns_latestHasNone_othersOnePerColumn() {
    assertThat(Keep.rankColumns(KeepPolicy.latest("reg_time"))).isEmpty();
    assertThat(Keep.rankColumns(KeepPolicy.parse("earliest", "reg_time"))).containsExactly("rank");
    assertThat(Keep.rankColumns(KeepPolicy.parse("paid desc, score asc, reg_time", "reg_time")))
        .containsExactly("rank", "rank_1", "rank_2");
  }

  @Test
  void columns_underLatest_compareTheTimeThenTheId() {
    Keep.Columns keep = Keep.Columns.of(BASE);
    Row older = row(BASE, 9L, 1_000L);
    Row newer = row(BASE, 1L, 2_000L);
    Row twin = row(BASE, 2L, 2_000L);
    assertThat(keep.compare(newer, older)).isPositive();
    assertThat(keep.compare(twin, newer)).as("the same time: the larger id").isPositive();
    assertThat(keep.rank(newer)).isEqualTo(2_000L);
    assertThat(keep.ranks(newer)).isNull();
  }

  @Test
  void columns_underTwoColumns_compareAsTheKeepPolicy() {
    KeepPolicy policy = KeepPolicy.parse("paid desc, reg_time desc", "reg_time");
    StructType schema = Keep.withRankColumns(BASE, policy);
    Keep.Columns keep = Keep.Columns.of(schema);
    long[] paidOld = policy.rank(1_000L, Map.of("paid", 1));
    long[] unpaidNew = policy.rank(2_000L, Map.of("paid", 0));
    long[] nullNewest = policy.rank(3_000L, Map.of());
    long[] unpaidNewer = policy.rank(2_500L, Map.of("paid", 0));
    Row a = row(schema, 1L, 1_000L, paidOld[0], paidOld[1]);
    Row b = row(schema, 2L, 2_000L, unpaidNew[0], unpaidNew[1]);
    Row c = row(schema, 3L, 3_000L, nullNewest[0], nullNewest[1]);
    Row d = row(schema, 0L, 2_500L, unpaidNewer[0], unpaidNewer[1]);
    assertThat(keep.compare(a, b)).as("paid before the time").isPositive();
    assertThat(keep.compare(b, c)).as("NULL paid never wins").isPositive();
    assertThat(keep.compare(d, b))
        .as("the same paid: the later time, whatever the id")
        .isPositive();
    assertThat(keep.ranks(a)).containsExactly(paidOld);
    for (Row x : new Row[] {a, b, c, d}) {
      for (Row y : new Row[] {a, b, c, d}) {
        assertThat(Integer.signum(keep.compare(x, y)))
            .isEqualTo(
                Integer.signum(
                    KeepPolicy.compare(keep.ranks(x), x.getLong(0), keep.ranks(y), y.getLong(0))));
        assertThat(
                Integer.signum(
                    Keep.compare(
                        keep.rank(x),
                        keep.ranks(x),
                        x.getLong(0),
                        keep.rank(y),
                        keep.ranks(y),
                        y.getLong(0))))
            .isEqualTo(Integer.signum(keep.compare(x, y)));
      }
    }
  }
}
