package org.xiaochong.spark.exact;

import java.nio.ByteBuffer;
import java.util.function.Function;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.xiaochong.index.ExactDocumentMaker;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.spark.read.TableRead;

/**
 * Each record's exact key, computed in the map by the code the single machine indexes with ({@link
 * ExactDocumentMaker#exactKey}: the normalizer and the framed MD5 of {@code fields.exact}), as two
 * longs (the MD5's first and last 8 bytes), beside the record's id, time and row checksum.
 */
public final class ExactKeys {
  public static final StructType SCHEMA =
      new StructType()
          .add("id", DataTypes.LongType, false)
          .add("time", DataTypes.LongType, false)
          .add("crc", DataTypes.LongType, false)
          .add("k1", DataTypes.LongType, false)
          .add("k2", DataTypes.LongType, false);

  private ExactKeys() {}

  /** The row maker of {@link TableRead} for {@link #SCHEMA}. */
  public static TableRead.RowMaker maker() {
    return config -> {
      ExactDocumentMaker keys = new ExactDocumentMaker(config.table());
      return (Function<SourceRecord, Row>)
          record -> {
            ByteBuffer md5 = ByteBuffer.wrap(keys.exactKey(record));
            return RowFactory.create(
                record.id(), record.regTime(), record.rowCrc(), md5.getLong(), md5.getLong());
          };
    };
  }
}
