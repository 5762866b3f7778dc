package org.xiaochong.source;

/**
 * Where the next sync's look for changed rows starts (source.updated-column): the column's largest
 * value now, minus how long the oldest transaction open on the server has been running, as DATETIME
 * text ({@link RecordSource#forEachRowStateUpdatedSince} takes it back); null when no row has a
 * value.
 *
 * <p>Why the column's own values and not the server's clock: the application writes the column in
 * its session's time zone, which may be west of this tool's (UTC) or east, and a DATETIME keeps no
 * zone; its largest value is in the writers' zone, whatever it is. A value more than 14 hours ahead
 * of UTC (no zone is) is a wrong clock, not a watermark, and is left out. Why the open
 * transactions: a row edited in a transaction that has not committed yet holds an earlier time than
 * rows committed meanwhile, and appears only when it commits; the watermark goes back to the start
 * of the oldest one. Reading them needs the PROCESS privilege; without it the reader's fixed margin
 * is all there is.
 */
final class UpdatedWatermark {
  private UpdatedWatermark() {}

  /** The watermark of {@code updatedColumn} in {@code table}, or null when no row has a value. */
  static String find(Database database, String table, String updatedColumn) {
    long openSeconds = oldestOpenTransactionSeconds(database);
    String column = TableSpec.quote(updatedColumn);
    return database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT CAST(MAX("
                            + column
                            + ") - INTERVAL "
                            + openSeconds
                            + " SECOND AS CHAR) FROM "
                            + TableSpec.quote(table)
                            + " WHERE "
                            + column
                            + " <= NOW(6) + INTERVAL 14 HOUR")
                    .mapTo(String.class)
                    .findOne()
                    .orElse(null));
  }

  /**
   * How long the oldest transaction open on the server has been running, in seconds; 0 when none is
   * or the user may not see them. {@code information_schema.innodb_trx} gives its start in the
   * server's system time zone, so it is compared with NOW() in that zone.
   */
  private static long oldestOpenTransactionSeconds(Database database) {
    try {
      return database
          .jdbi()
          .withHandle(
              h -> {
                h.execute("SET SESSION time_zone = 'SYSTEM'");
                Long seconds =
                    h.createQuery(
                            "SELECT TIMESTAMPDIFF(SECOND, MIN(trx_started), NOW()) FROM"
                                + " information_schema.innodb_trx")
                        .mapTo(Long.class)
                        .findOne()
                        .orElse(null);
                return seconds == null ? 0L : Math.max(0L, seconds);
              });
    } catch (RuntimeException e) {
      return 0; // no PROCESS privilege
    }
  }
}
