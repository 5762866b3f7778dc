package org.xiaochong.archive;

import org.xiaochong.source.Database;

/** The source table's average row length, which sizes the batches of an apply and a restore. */
final class AverageRowBytes {
  private AverageRowBytes() {}

  /**
   * The table's average row length as the server estimates it ({@code information_schema}), 0 if
   * unknown.
   */
  static long of(Database database, String table) {
    return database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COALESCE(avg_row_length, 0) FROM"
                            + " information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?")
                    .bind(0, table)
                    .mapTo(Long.class)
                    .findOne()
                    .orElse(0L));
  }
}
