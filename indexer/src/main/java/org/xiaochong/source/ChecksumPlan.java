package org.xiaochong.source;

import java.util.List;
import java.util.stream.Collectors;

/**
 * How the checksums of a table are made: whether the server must cast the values to BINARY (the
 * columns do not share one charset), whether the client may compute them from the values it reads
 * ({@link RowChecksum#clientMayCompute}), and the select list of full rows (id, time, the
 * fingerprint columns, then the server's checksum unless the client computes it).
 */
record ChecksumPlan(boolean castToBinary, boolean onClient, String selectColumns) {

  /** The plan for {@code spec}'s table, from its fingerprint columns' charsets. */
  static ChecksumPlan find(Database database, TableSpec spec) {
    List<String> columns = spec.fingerprintColumns();
    String charset = sharedCharset(database, spec.table(), columns);
    boolean castToBinary = charset == null;
    boolean onClient = RowChecksum.clientMayCompute(charset);
    String select =
        TableSpec.quote(spec.idColumn())
            + ", "
            + TableSpec.quote(spec.timeColumn())
            + columns.stream().map(c -> ", " + TableSpec.quote(c)).collect(Collectors.joining())
            + (onClient ? "" : ", " + RowChecksum.sqlExpression(columns, castToBinary, null));
    return new ChecksumPlan(castToBinary, onClient, select);
  }

  /**
   * The charset every one of {@code columns} is stored in, when all are character columns of one
   * charset and collation; else null.
   */
  private static String sharedCharset(Database database, String table, List<String> columns) {
    return database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COUNT(*), COUNT(character_set_name),"
                            + " COUNT(DISTINCT character_set_name), COUNT(DISTINCT collation_name), MIN(character_set_name)"
                            + " FROM information_schema.columns"
                            + " WHERE table_schema = DATABASE() AND table_name = :table AND column_name IN (<columns>)")
                    .bind("table", table)
                    .bindList("columns", columns)
                    .map(
                        (rs, ctx) ->
                            rs.getLong(1) == columns.size()
                                    && rs.getLong(2) == columns.size()
                                    && rs.getLong(3) == 1
                                    && rs.getLong(4) == 1
                                ? rs.getString(5)
                                : null)
                    .one());
  }
}
