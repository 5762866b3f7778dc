package org.xiaochong.run;

import java.util.List;
import java.util.function.Consumer;
import org.xiaochong.archive.ArchiveTables;
import org.xiaochong.archive.PlanMover;
import org.xiaochong.archive.ReferencedRows;
import org.xiaochong.archive.TableEngines;
import org.xiaochong.method.FingerprintMethods;
import org.xiaochong.method.MethodContext;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;

/**
 * What a run ({@link DedupRunner}) settles about its apply before the passes: with {@code --apply},
 * the checks that refuse a table before any row moves; in a dry run, notes that say what {@code
 * --apply} would refuse. Shared with the Spark job, whose apply is this one.
 */
public final class ApplyStart {
  private ApplyStart() {}

  /**
   * The mover of an applied run, once the table passed the checks. Foreign keys, triggers and
   * engines are checked before anything moves, an interrupted run's rows included: a refused table
   * stops here, with no run started.
   *
   * @param columns the source table's columns, as its schema check read them
   * @param methods the context of the methods whose rules decide changed rows again
   * @throws org.xiaochong.source.BadInputException naming what the table's owner must choose or fix
   */
  public static PlanMover mover(
      Database database,
      TableSpec spec,
      List<String> columns,
      ReferencedRows.Settings references,
      MethodContext methods) {
    ReferencedRows referenced = ReferencedRows.check(database, spec, references);
    return new PlanMover(
        ArchiveTables.ensure(database, spec, columns),
        FingerprintMethods.pairChecks(methods),
        referenced);
  }

  /** Notes for a dry run on a table that {@code --apply} would refuse, and why. */
  public static void dryRunNotes(
      Database database,
      TableSpec spec,
      ReferencedRows.Settings references,
      Consumer<String> notes) {
    TableEngines.problem(database, spec)
        .ifPresent(
            problem ->
                notes.accept(
                    "note: "
                        + problem
                        + "; --apply and restore refuse such a table, this dry run works as it is"));
    String refusal = ReferencedRows.refusal(database, spec, references);
    if (refusal != null) {
      notes.accept("note: " + refusal);
    }
  }
}
