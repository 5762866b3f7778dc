package org.xiaochong.spark.read;

import java.util.List;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.TableSpec;

/**
 * Writes the columns a run reads (the id, the time, {@link TableSpec#fingerprintColumns()}) to a
 * Parquet export, for {@code dedup-spark run --parquet}: the table read once, in id ranges, from
 * the replica when the config names one ({@link JobConfig#readDb}), then any number of runs or
 * experiments on the snapshot without touching the database. The time is a TIMESTAMP_NTZ (the
 * DATETIME as stored, NULL for NULL and for dates that name no day); values are the server's text.
 */
public final class ParquetExport {
  private ParquetExport() {}

  /**
   * Exports the table to {@code path}, which must not exist.
   *
   * @return the rows written
   * @throws BadInputException when {@code path} exists or the table is empty
   */
  public static long export(SparkSession spark, JobConfig job, String path, int partitions) {
    requireNew(spark, path);
    TableSpec spec = job.config().table();
    List<String> columns = spec.fingerprintColumns();
    StructType schema =
        new StructType()
            .add(spec.idColumn(), DataTypes.LongType, false)
            .add(spec.timeColumn(), DataTypes.TimestampNTZType, true);
    for (String column : columns) {
      schema = schema.add(column, DataTypes.StringType, true);
    }
    long[] idRange;
    try (Database database = Database.open(job.readDb())) {
      RecordSource source = new RecordSource(database, spec);
      source.checkSchema();
      idRange = source.idRange();
    }
    if (idRange == null) {
      throw new BadInputException("table " + spec.table() + " is empty: nothing to export");
    }
    int slices = partitions > 0 ? partitions : IdRanges.defaultCount(idRange, spark);
    var rows =
        TableRead.read(
            spark,
            job,
            IdRanges.split(idRange[0], idRange[1], slices),
            schema,
            config ->
                record -> {
                  Object[] values = new Object[2 + columns.size()];
                  values[0] = record.id();
                  values[1] = RecordSource.fromMillis(record.regTime());
                  String[] text = record.values();
                  System.arraycopy(text, 0, values, 2, text.length);
                  return RowFactory.create(values);
                });
    rows.write().mode(SaveMode.ErrorIfExists).parquet(path);
    return spark.read().parquet(path).count();
  }

  /** Refuses a {@code path} that exists, before the table is read. */
  private static void requireNew(SparkSession spark, String path) {
    org.apache.hadoop.fs.Path folder = new org.apache.hadoop.fs.Path(path);
    boolean exists;
    try {
      exists = folder.getFileSystem(spark.sparkContext().hadoopConfiguration()).exists(folder);
    } catch (java.io.IOException e) {
      throw new BadInputException("--parquet " + path + " cannot be checked: " + e.getMessage(), e);
    }
    if (exists) {
      throw new BadInputException("--parquet " + path + " already exists: name a new folder");
    }
  }
}
