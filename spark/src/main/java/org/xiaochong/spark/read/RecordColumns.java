package org.xiaochong.spark.read;

import java.nio.ByteBuffer;
import java.util.function.Function;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.xiaochong.index.RecordDocumentMaker;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.spark.keep.Keep;

/**
 * The columns every record of a job carries, whatever its methods: what the single machine's record
 * index keeps of a row, computed in the map by the same code ({@link RecordDocumentMaker}). Its id,
 * time and row checksum; its exact key (the normalizer and the framed MD5 of {@code fields.exact},
 * {@link RecordDocumentMaker#exactKey}) as two longs, the MD5's first and last 8 bytes; and its
 * keep rank ({@link RecordDocumentMaker#storedRank}, in the columns of {@link Keep#rankColumns}:
 * none under latest). A method's own columns follow them.
 */
public final class RecordColumns {
  private static final StructType KEYS =
      new StructType()
          .add("id", DataTypes.LongType, false)
          .add("time", DataTypes.LongType, false)
          .add("crc", DataTypes.LongType, false)
          .add("k1", DataTypes.LongType, false)
          .add("k2", DataTypes.LongType, false);

  private RecordColumns() {}

  /** The columns of a record under {@code policy}: id, time, crc, k1, k2, then the rank's. */
  public static StructType schema(KeepPolicy policy) {
    return Keep.withRankColumns(KEYS, policy);
  }

  /** The row maker of {@link TableRead} for {@link #schema}. */
  public static TableRead.RowMaker maker() {
    return config -> {
      RecordDocumentMaker keys = new RecordDocumentMaker(config.table());
      return (Function<SourceRecord, Row>)
          record -> {
            ByteBuffer md5 = ByteBuffer.wrap(keys.exactKey(record));
            long[] rank = keys.storedRank(record);
            if (rank == null) {
              return RowFactory.create(
                  record.id(), record.regTime(), record.rowCrc(), md5.getLong(), md5.getLong());
            }
            Object[] values = new Object[KEYS.size() + rank.length];
            values[0] = record.id();
            values[1] = record.regTime();
            values[2] = record.rowCrc();
            values[3] = md5.getLong();
            values[4] = md5.getLong();
            for (int i = 0; i < rank.length; i++) {
              values[KEYS.size() + i] = rank[i];
            }
            return RowFactory.create(values);
          };
    };
  }
}
