package org.xiaochong.cli;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.FingerprintMethods;
import picocli.CommandLine.Option;

/**
 * The options of a run that {@code dedup run} and {@code dedup-spark run} share, declared once: the
 * methods, the window, apply or not, the report folder. A command mixes them in with {@code @Mixin
 * RunOptions run;}.
 */
public final class RunOptions {
  @Option(
      names = "--method",
      defaultValue = FingerprintMethods.DEFAULT,
      paramLabel = "METHOD[,METHOD…]",
      description =
          "Fingerprint methods, run in the order given (default ${DEFAULT-VALUE}): exact (same MD5 of the"
              + " normalized fields), near (the near-duplicate pass), simhash, linkage (field-aware"
              + " matching, docs/linkage.md); both = exact,near.")
  String method;

  @Option(
      names = "--since",
      converter = TimeArgument.class,
      paramLabel = "TIME",
      description = "Examine records with time >= TIME (e.g. 2024-05-01 or 2024-05-01T08:00).")
  LocalDateTime since;

  @Option(
      names = "--until",
      converter = TimeArgument.class,
      paramLabel = "TIME",
      description = "Examine records with time <= TIME.")
  LocalDateTime until;

  @Option(
      names = "--apply",
      description = "Archive the duplicates in <table>_removed and delete them (default: dry run).")
  boolean apply;

  @Option(
      names = "--report",
      paramLabel = "DIR",
      description = "Write summary.json, decisions.jsonl and report.html into DIR.")
  Path report;

  /**
   * The methods of {@code --method}.
   *
   * @throws org.xiaochong.source.BadInputException naming an unknown method
   */
  public List<FingerprintMethod> methods() {
    return ConfigOptions.methods(method);
  }

  public LocalDateTime since() {
    return since;
  }

  public LocalDateTime until() {
    return until;
  }

  public boolean apply() {
    return apply;
  }

  /** The report folder, or null for none. */
  public Path report() {
    return report;
  }
}
