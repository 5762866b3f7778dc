package org.xiaochong.archive;

import org.xiaochong.source.Database;

/**
 * Moves the marks {@code restore} made as pairs (one {@code dedup_apart} row per pair of rows it
 * put back, reason {@code restore}) into groups ({@code dedup_apart_group}, {@code
 * dedup_apart_member}): a restored group of n rows had made n(n + 1)/2 pairs, and becomes one group
 * of n + 1 rows. Manual pairs stay pairs.
 *
 * <p>The pairs of one run's restore are disjoint cliques (a row is removed for one kept row per
 * run, so each clique is a kept row and the rows removed for it), and a row's clique is named by
 * its smallest id: the smaller of the row and its partners. Groups are made by (table, run, that
 * id), the unique key of a group, so repeating the migration after an interruption makes nothing
 * twice; the pairs are deleted in the same transaction as the groups are written. The pairs do not
 * say which row of a clique had been kept, so every row of a migrated group counts as kept: a row a
 * later run keeps for any of them joins the group ({@link ApartTable#followRemovals}), which errs
 * on the side of the undo.
 */
final class ApartMigration {
  /**
   * Each row of a restore's pairs with its run and the smallest id of its clique (no temporary
   * table: MySQL with GTIDs refuses one in a transaction).
   */
  private static final String ROWS =
      "(SELECT source_table, run_id, row_id, LEAST(row_id, MIN(partner)) AS anchor_id,"
          + " MIN(created_at) AS created_at FROM ("
          + " SELECT source_table, run_id, id_a AS row_id, id_b AS partner, created_at"
          + " FROM dedup_apart WHERE reason = 'restore' AND run_id IS NOT NULL"
          + " UNION ALL"
          + " SELECT source_table, run_id, id_b, id_a, created_at"
          + " FROM dedup_apart WHERE reason = 'restore' AND run_id IS NOT NULL"
          + ") pairs GROUP BY source_table, run_id, row_id)";

  private ApartMigration() {}

  static void migrate(Database database) {
    database
        .jdbi()
        .useTransaction(
            h -> {
              boolean any =
                  h.createQuery("SELECT 1 FROM dedup_apart WHERE reason = 'restore' LIMIT 1")
                      .mapTo(Integer.class)
                      .findOne()
                      .isPresent();
              if (!any) {
                return;
              }
              h.execute(
                  "INSERT INTO dedup_apart_group (source_table, reason, run_id, anchor_id, created_at)"
                      + " SELECT source_table, 'restore', run_id, anchor_id, MIN(created_at) FROM "
                      + ROWS
                      + " r GROUP BY source_table, run_id, anchor_id"
                      + " ON DUPLICATE KEY UPDATE anchor_id = dedup_apart_group.anchor_id");
              h.execute(
                  "INSERT INTO dedup_apart_member (group_id, source_table, row_id, role)"
                      + " SELECT g.id, r.source_table, r.row_id, 'kept' FROM "
                      + ROWS
                      + " r JOIN dedup_apart_group g ON g.source_table = r.source_table"
                      + " AND g.run_id = r.run_id AND g.anchor_id = r.anchor_id"
                      + " ON DUPLICATE KEY UPDATE row_id = dedup_apart_member.row_id");
              h.execute("DELETE FROM dedup_apart WHERE reason = 'restore'");
            });
  }
}
