package org.xiaochong.spark.plan;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.xiaochong.archive.DeletionPlan;

/**
 * The job's decisions as rows: one planned removal each, with the rule, the score and the two rows'
 * states the decision was made on ({@link DeletionPlan.RowState}), as a pass adds them to a {@link
 * DeletionPlan}.
 */
public final class Decisions {
  public static final StructType SCHEMA =
      new StructType()
          .add("removed_id", DataTypes.LongType, false)
          .add("kept_id", DataTypes.LongType, false)
          .add("rule", DataTypes.StringType, false)
          .add("score", DataTypes.DoubleType, false)
          .add("removed_time", DataTypes.LongType, false)
          .add("removed_crc", DataTypes.LongType, false)
          .add("kept_time", DataTypes.LongType, false)
          .add("kept_crc", DataTypes.LongType, false);

  private Decisions() {}

  /** One decision row. */
  public static Row row(
      long removedId,
      long keptId,
      String rule,
      double score,
      long removedTime,
      long removedCrc,
      long keptTime,
      long keptCrc) {
    return RowFactory.create(
        removedId, keptId, rule, score, removedTime, removedCrc, keptTime, keptCrc);
  }

  /** Adds a decision row to {@code plan}. */
  public static void addTo(DeletionPlan plan, Row row) {
    plan.add(
        row.getLong(0),
        row.getLong(1),
        DeletionPlan.Rule.of(row.getString(2)),
        row.getDouble(3),
        new DeletionPlan.RowState(row.getLong(4), row.getLong(5)),
        new DeletionPlan.RowState(row.getLong(6), row.getLong(7)));
  }

  /**
   * The decisions brought to the driver into a plan, in one job (a dry run's: the driver holds the
   * plan anyway, at 48 bytes a removal, and the rows only while they are copied into it).
   */
  public static DeletionPlan collect(Dataset<Row> decisions) {
    DeletionPlan plan = new DeletionPlan();
    for (Row row : decisions.collectAsList()) {
      addTo(plan, row);
    }
    return plan;
  }
}
