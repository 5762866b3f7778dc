package org.xiaochong.spark.keep;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.xiaochong.policy.KeepPolicy;

/**
 * The keep policy as the Spark job asks it: every keep comparison of the job goes through here, so
 * the job and the single machine's passes keep the same record ({@link KeepPolicy}, the one
 * definition of the rule).
 *
 * <p>Each record carries its keep rank ({@link KeepPolicy#rank}), computed in the map from the
 * record as read, by the code the single machine indexes with. In the job's rows: under {@code
 * latest} the rank is the time, which every row has anyway, and no column is added; under another
 * policy the column {@code rank} holds the rank's first long and {@code rank_1}, {@code rank_2} …
 * the others ({@link #rankColumns}). In the stages' objects: the first long as a plain long, and
 * the whole rank as an array only when the policy has more than one column (null otherwise), so a
 * one-column policy, {@code latest} among them, compares plain longs.
 */
public final class Keep {
  private Keep() {}

  /** The columns that hold the rank of {@code policy} beside the time: none under latest. */
  public static List<String> rankColumns(KeepPolicy policy) {
    List<String> columns = new ArrayList<>();
    if (!policy.isLatest()) {
      for (int i = 0; i < policy.width(); i++) {
        columns.add(i == 0 ? "rank" : "rank_" + i);
      }
    }
    return columns;
  }

  /** The rank columns of {@code schema} ({@link #rankColumns}), to carry in a select. */
  public static String[] rankColumnsIn(StructType schema) {
    List<String> names = Arrays.asList(schema.fieldNames());
    List<String> columns = new ArrayList<>();
    if (names.contains("rank")) {
      columns.add("rank");
      for (int i = 1; names.contains("rank_" + i); i++) {
        columns.add("rank_" + i);
      }
    }
    return columns.toArray(new String[0]);
  }

  /** {@code schema} with the rank columns of {@code policy} appended ({@link #rankColumns}). */
  public static StructType withRankColumns(StructType schema, KeepPolicy policy) {
    for (String column : rankColumns(policy)) {
      schema = schema.add(column, DataTypes.LongType, false);
    }
    return schema;
  }

  /**
   * Positive when record A is kept over record B, negative when B is kept over A ({@link
   * KeepPolicy#compare}).
   *
   * @param rankA the first long of A's rank
   * @param ranksA A's whole rank when the policy has more than one column, else null
   */
  public static int compare(
      long rankA, long[] ranksA, long idA, long rankB, long[] ranksB, long idB) {
    return ranksA == null
        ? KeepPolicy.compare(rankA, idA, rankB, idB)
        : KeepPolicy.compare(ranksA, idA, ranksB, idB);
  }

  /** Where a schema's rows keep their id and rank: read the rank of a row, compare two rows. */
  public static final class Columns implements Serializable {
    private static final long serialVersionUID = 1L;

    private final int id;
    private final int[] rank;

    private Columns(int id, int[] rank) {
      this.id = id;
      this.rank = rank;
    }

    /**
     * The columns of {@code schema}: {@code id}, and the rank columns ({@link #rankColumns}), or
     * {@code time} when it has none (latest).
     */
    public static Columns of(StructType schema) {
      String[] names = rankColumnsIn(schema);
      int[] rank =
          names.length == 0
              ? new int[] {schema.fieldIndex("time")}
              : Arrays.stream(names).mapToInt(schema::fieldIndex).toArray();
      return new Columns(schema.fieldIndex("id"), rank);
    }

    /** The first long of the row's rank. */
    public long rank(Row row) {
      return row.getLong(rank[0]);
    }

    /** The row's whole rank when the policy has more than one column, else null. */
    public long[] ranks(Row row) {
      if (rank.length == 1) {
        return null;
      }
      long[] ranks = new long[rank.length];
      for (int i = 0; i < ranks.length; i++) {
        ranks[i] = row.getLong(rank[i]);
      }
      return ranks;
    }

    /** Positive when row A is kept over row B, negative when B is kept over A. */
    public int compare(Row a, Row b) {
      if (rank.length == 1) {
        return KeepPolicy.compare(
            a.getLong(rank[0]), a.getLong(id), b.getLong(rank[0]), b.getLong(id));
      }
      return KeepPolicy.compare(ranks(a), a.getLong(id), ranks(b), b.getLong(id));
    }
  }
}
