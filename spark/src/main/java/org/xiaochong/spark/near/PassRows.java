package org.xiaochong.spark.near;

import java.io.Serializable;
import org.xiaochong.spark.keep.Keep;

/** The rows the near stage passes between its steps, and the kinds of a lookup. */
final class PassRows {
  private PassRows() {}

  static final int TEL = 0;
  static final int INDEX = 1;
  static final int LOOSE = 2;

  /**
   * A record of the pass: its id, time, checksum, keep rank ({@link Keep}: the first long, the
   * whole rank when it has more) and encoded keys.
   */
  record Member(long id, long time, long crc, long keepRank, long[] keepRanks, byte[] near)
      implements Serializable {
    /** Positive when this record is kept over {@code other}. */
    int compareKeep(Member other) {
      return Keep.compare(keepRank, keepRanks, id, other.keepRank, other.keepRanks, other.id);
    }
  }

  /** A key's holder: a record of the pass, its keep rank, and whether it is phone-blocked. */
  record Holder(long id, long keepRank, long[] keepRanks, boolean loose) implements Serializable {}

  /**
   * One lookup of a record (with its keep rank): its kind, its rank in the record's lookups, the
   * key's holders.
   */
  record Lookup(long id, long keepRank, long[] keepRanks, int kind, int rank, int holders)
      implements Serializable {}

  /** A lookup that found a holder. */
  record Hit(int kind, int rank, int holders, long other, boolean newer) implements Serializable {}

  /** What a record of the window found: its newer near duplicates best first, and its meetings. */
  record Found(long id, long[] near, double[] scores, long[] meets) implements Serializable {}
}
