package org.xiaochong.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.archive.RowsMovedException;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.ConfiguredIndex;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.pass.SampleGroup;
import org.xiaochong.report.ReportWriter;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.run.RunSummary;
import org.xiaochong.run.TableLock;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.TableSpec;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code dedup run}: index, find duplicates, and with --apply archive and delete them. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Brings the index up to date with the table, then finds duplicates among the records of the window",
      "(--since/--until on the time column; their duplicates are looked up in the whole table) and keeps the",
      "record keep.policy prefers in each group (default: the latest). Without --apply it only prints the plan. Without --since/--until/--full it examines",
      "the records indexed (added or changed) since the last applied run with this index (all on the first run)."
    })
public final class RunCommand implements Callable<Integer> {
  @Mixin ExitCodes.MovesRows exitCodes;
  @Mixin ConfigOptions options;
  @Mixin RunOptions run;

  @Option(
      names = "--full",
      description = "Examine every record, not only those indexed since the last applied run.")
  boolean full;

  @Option(
      names = "--rebuild-index",
      description = "Rebuild the index from the table first (after a config change).")
  boolean rebuildIndex;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    DedupRunner.Options runOptions =
        new DedupRunner.Options(
            run.methods(), run.since(), run.until(), run.apply(), rebuildIndex, !full);
    DedupConfig config = options.load();
    runOptions.window(); // fail on a reversed window before starting a database
    try (Database database = ConfigOptions.openDatabase(config);
        TableLock lock =
            TableLock.acquire(database, config.table(), run.apply() ? "run --apply" : "run")
                .onLoss(spec.commandLine().getOut()::println);
        FingerprintIndex index =
            ConfiguredIndex.openHandedOver(
                config, rebuildIndex, spec.commandLine().getErr()::println)) {
      DedupRunner.Outcome outcome =
          ConfigOptions.runner(
                  config,
                  database,
                  index,
                  ConsoleProgress.forThisProcess(),
                  spec.commandLine().getOut()::println)
              .withLockCheck(lock::requireHeld)
              .run(runOptions);
      print(spec.commandLine().getOut(), outcome.summary(), database, config.table());
      if (run.report() != null) {
        writeReport(
            spec.commandLine().getOut(),
            run.report(),
            outcome,
            database,
            config.table(),
            options.config == null
                ? ""
                : "--config "
                    + org.xiaochong.report.HtmlReport.shellQuote(options.config.toString()));
      }
    }
    return ExitCodes.OK;
  }

  /**
   * Writes {@code summary.json}, {@code decisions.jsonl} and {@code report.html} of a run into
   * {@code report} and says where. A report that cannot be written after rows moved is a {@link
   * RowsMovedException} (exit 4: the run is recorded, only the report is missing).
   *
   * @param configOption how the report's commands name the run's database, already quoted for a
   *     shell, or ""
   */
  public static void writeReport(
      PrintWriter out,
      Path report,
      DedupRunner.Outcome outcome,
      Database database,
      TableSpec table,
      String configOption) {
    try {
      ReportWriter.write(report, outcome);
      org.xiaochong.report.HtmlReport.write(
          report.resolve("report.html"),
          outcome.summary(),
          outcome.plan(),
          database,
          table,
          configOption,
          outcome.evidence());
    } catch (RuntimeException e) {
      long moved = outcome.summary().applyTotal().moved();
      if (moved > 0) {
        throw new RowsMovedException(
            String.format(
                "run %d archived and deleted %,d rows (recorded; only the report is missing)",
                outcome.summary().runId(), moved),
            moved,
            e);
      }
      throw e;
    }
    out.println("report: " + report.toAbsolutePath());
  }

  /** Prints the plan (counts and sample groups) and the one-line summary. */
  public static void print(
      PrintWriter out, RunSummary summary, Database database, TableSpec table) {
    out.printf(
        "%s on %s: %,d records in the table, %,d examined%n",
        summary.applied() ? "run " + summary.runId() + " (applied)" : "dry run",
        table.table(),
        summary.recordsRead(),
        summary.recordsExamined());
    if (!summary.resumedRuns().isEmpty()) {
      out.printf(
          "finished interrupted run(s) %s first: %,d rows moved%n",
          summary.resumedRuns(), summary.resumedRowsMoved());
    }
    out.printf(
        "index: %,d added, %,d changed, %,d dropped%n",
        summary.indexAdded(), summary.indexChanged(), summary.indexDeleted());
    if (summary.windowSinceRun() > 0) {
      out.printf("examined: %,d %s%n", summary.recordsExamined(), summary.window());
    } else {
      out.printf("examined: %s%n", summary.window());
    }
    summary
        .reports()
        .forEach(
            (name, report) ->
                out.println(report.consoleLine(summary.removed(name), summary.applied())));
    summary
        .removedByMethod()
        .forEach(
            (rule, removed) -> {
              DeletionPlan.Rule combined = DeletionPlan.Rule.of(rule);
              if (combined.isCombined() && removed > 0) {
                out.printf(
                    "%s: %,d %s copies of rows the %s pass removed, %s in favour of its survivor%n",
                    rule,
                    removed,
                    combined.first(),
                    combined.last(),
                    summary.applied() ? "removed" : "to remove");
              }
            });
    if (summary.prefilter() != null) {
      RunSummary.PrefilterStats p = summary.prefilter();
      out.printf(
          "prefilter: %,d keys asked, %,d index lookups skipped, %,d false positives (%.1f%% of the lookups"
              + " for records without a twin skipped), %,d KB, %,d saturated counters%n",
          p.lookups(),
          p.skipped(),
          p.falsePositives(),
          100 * p.uniqueSkipRate(),
          p.memoryBytes() >> 10,
          p.saturated());
    }
    List<SampleGroup> samples = summary.samples();
    if (!samples.isEmpty()) {
      out.println("sample groups (kept <- removed):");
      String label = table.exactFields().get(0);
      try (Handle handle = database.jdbi().open()) {
        RecordSource source = new RecordSource(database, table);
        for (SampleGroup g : samples) {
          List<String> values = source.readColumns(handle, g.keptId(), List.of(label));
          String text = oneLine(values == null || values.get(0) == null ? "" : values.get(0), 40);
          StringBuilder removed = new StringBuilder();
          for (int i = 0; i < g.removedIds().length; i++) {
            removed
                .append(i == 0 ? "" : ", ")
                .append('#')
                .append(g.removedIds()[i])
                .append(" (")
                .append(time(g.removedTimes()[i]))
                .append(')');
          }
          out.printf(
              "  keep #%d (%s) %s=\"%s\" <- %s%n",
              g.keptId(), time(g.keptTime()), label, text, removed);
        }
      }
    }
    RunSummary.ApartStats apart = summary.apart();
    if (apart.marks() > 0) {
      out.printf(
          "apart: %,d marks (pairs and rows of restored groups), %,d kept apart in this run%s%n",
          apart.marks(),
          apart.honoured(),
          apart.dropped() == 0
              ? ""
              : String.format(
                  " (%,d removals re-pointed to a marked row left out)", apart.dropped()));
    }
    if (summary.decidedAgain() > 0) {
      out.printf(
          "apply: %,d planned rows decided again on what they hold now: they or their kept rows changed"
              + " since the index was built%n",
          summary.decidedAgain());
    }
    if (summary.skippedChanged() > 0) {
      out.printf(
          "apply: %,d planned rows left in place: they or their kept rows changed since the index was built"
              + " (re-indexed as they are now)%n",
          summary.skippedChanged());
    }
    summary.applyCounts().forEach((method, counts) -> out.println(applyLine(method, counts)));
    if (!summary.applied()) {
      out.printf(
          "dry run: nothing was changed; add --apply to archive and delete these %,d records%n",
          summary.removedTotal());
    }
    Map<String, Double> seconds = summary.seconds();
    String stages =
        seconds.entrySet().stream()
            .filter(e -> !e.getKey().equals("total"))
            .map(e -> String.format("%s %.1f s", e.getKey(), e.getValue()))
            .collect(Collectors.joining(", "));
    double total = summary.totalSeconds();
    out.printf(
        "done: %,d records in %.1f s (%s), %,.0f records/s%n",
        summary.recordsRead(), total, stages, total > 0 ? summary.recordsRead() / total : 0.0);
  }

  /**
   * What an apply did with one method's planned rows, e.g. "exact: 600 planned, 557 moved, 40 kept
   * (referenced by other tables), 3 kept (changed since the plan)".
   */
  static String applyLine(String method, RunSummary.ApplyCounts counts) {
    StringBuilder line =
        new StringBuilder(
            String.format(
                "moved %s: %,d planned, %,d moved", method, counts.planned(), counts.moved()));
    if (counts.keptReferenced() > 0) {
      line.append(
          String.format(", %,d kept (referenced by other tables)", counts.keptReferenced()));
    }
    if (counts.keptChanged() > 0) {
      line.append(String.format(", %,d kept (changed since the plan)", counts.keptChanged()));
    }
    if (counts.gone() > 0) {
      line.append(
          String.format(", %,d gone (they or their kept rows left the table)", counts.gone()));
    }
    return line.toString();
  }

  /**
   * A value for a one-line display: at most {@code max} code points (then "…"), line breaks and
   * tabs shown as {@code \n \r \t} and other control chars as {@code \\uXXXX}, so that a repost
   * that differs only there (a whitespace variant) stays on its line and the difference shows.
   */
  static String oneLine(String text, int max) {
    StringBuilder out = new StringBuilder();
    int shown = 0;
    for (int i = 0; i < text.length(); shown++) {
      if (shown == max) {
        return out.append('…').toString();
      }
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      switch (cp) {
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (Character.isISOControl(cp)) {
            out.append(String.format("\\u%04x", cp));
          } else {
            out.appendCodePoint(cp);
          }
        }
      }
    }
    return out.toString();
  }

  private static String time(long millis) {
    LocalDateTime t = RecordSource.fromMillis(millis);
    return t == null ? "no time" : t.toString().replace('T', ' ');
  }
}
