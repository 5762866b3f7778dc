package org.xiaochong.archive;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;

/**
 * The storage engines of the tables an apply or a restore writes, checked to have transactions.
 *
 * <p>Every promise of the apply rests on transactions: a row is copied into the archive and deleted
 * from the table in one transaction, a failed batch is rolled back, row locks keep a concurrent
 * edit out. MyISAM, Aria, MEMORY and the like ({@code information_schema.ENGINES.TRANSACTIONS}
 * other than YES) have none: a process killed in the middle of a batch leaves rows in both tables
 * or in neither, and a rollback undoes nothing. So {@code run --apply} and {@code restore} refuse
 * such a table with the statement that converts it; a dry run only reads and works on any engine.
 *
 * <p>Stateless.
 */
public final class TableEngines {
  private TableEngines() {}

  /**
   * Throws a {@link BadInputException} naming each existing table among the source, its archive and
   * the bookkeeping tables whose engine has no transactions, with the {@code ALTER TABLE …
   * ENGINE=InnoDB} that fixes it.
   *
   * @param command what refuses, for the message ("--apply and restore")
   */
  public static void requireTransactional(Database database, TableSpec spec, String command) {
    problem(database, spec)
        .ifPresent(
            problem -> {
              throw new BadInputException(
                  command
                      + " need transactions (a row is archived and deleted in one): "
                      + problem
                      + "; nothing was changed");
            });
  }

  /**
   * What {@link #requireTransactional} refuses, as a one-line description with the fix; empty when
   * every table has transactions.
   */
  public static Optional<String> problem(Database database, TableSpec spec) {
    List<String> tables =
        List.of(spec.table(), spec.removedTable(), "dedup_run", "dedup_plan", "dedup_repoint");
    List<String> found = new ArrayList<>();
    List<String> fixes = new ArrayList<>();
    database
        .jdbi()
        .useHandle(
            handle -> {
              for (String table : tables) {
                engineWithoutTransactions(handle, table)
                    .ifPresent(
                        engine -> {
                          found.add(table + " uses " + engine);
                          fixes.add("ALTER TABLE " + TableSpec.quote(table) + " ENGINE=InnoDB");
                        });
              }
            });
    if (found.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        String.join(", ", found)
            + (found.size() == 1 ? ", an engine" : ", engines")
            + " without transactions (convert "
            + (found.size() == 1 ? "it" : "them")
            + ": "
            + String.join("; ", fixes)
            + ")");
  }

  /**
   * The engine of a table of the current schema when it has no transactions; empty for a view or a
   * missing table.
   */
  private static Optional<String> engineWithoutTransactions(Handle handle, String table) {
    return handle
        .createQuery(
            "SELECT t.engine FROM information_schema.tables t LEFT JOIN information_schema.engines e"
                + " ON e.engine = t.engine WHERE t.table_schema = DATABASE() AND t.table_name = ? AND t.engine IS NOT NULL"
                + " AND COALESCE(e.transactions, 'NO') <> 'YES'")
        .bind(0, table)
        .mapTo(String.class)
        .findFirst();
  }
}
