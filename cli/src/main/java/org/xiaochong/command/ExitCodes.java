package org.xiaochong.command;

import picocli.CommandLine.Command;

/**
 * The exit codes of every command of {@code bin/dedup}, defined once, and the lists of them that
 * each command's {@code --help} ends with. A command mixes in the list of the codes it can end
 * with: {@code @Mixin ExitCodes.Help exitCodes;} (0, 1, 2), {@link SkipsInput} (and 3) or {@link
 * MovesRows} (and 4). Codes 1 and 2 promise that the command moved no row.
 */
public final class ExitCodes {
  public static final int OK = 0;

  /** Anything unexpected: a bug, a lost connection, a full disk. Details with --verbose. */
  public static final int INTERNAL = 1;

  /**
   * Bad usage or configuration: an unknown option, a config typo, a missing file, table or column,
   * a table an apply refuses. Nothing was moved.
   */
  public static final int USAGE = 2;

  /**
   * Finished, but some input was skipped (a line of {@code check} or {@code urls}, an entry of a
   * zone file), each named on stderr or in its verdict; the rest was handled.
   */
  public static final int SKIPPED_INPUT = 3;

  /**
   * An error stopped {@code run --apply} or {@code restore} after rows had moved: whole batches
   * were archived and deleted (or restored), the message says how many, and running the command
   * again finishes.
   */
  public static final int ROWS_MOVED = 4;

  // The lines of --help, in picocli's "code:meaning" form.
  private static final String HEADING = "Exit codes:%n";
  private static final String OK_LINE = "0:success";
  private static final String INTERNAL_LINE =
      "1:unexpected error, no row moved (details with --verbose)";
  private static final String USAGE_LINE =
      "2:usage or configuration error (the message names it; no row moved)";
  private static final String SKIPPED_INPUT_LINE =
      "3:finished, but some input was skipped (each one named)";
  private static final String ROWS_MOVED_LINE =
      "4:stopped by an error after rows moved (the message says how many; run the command again to finish)";

  private ExitCodes() {}

  /** The exit codes of a command that ends with 0, 1 or 2. */
  @Command(
      exitCodeListHeading = HEADING,
      exitCodeList = {OK_LINE, INTERNAL_LINE, USAGE_LINE})
  public static final class Help {}

  /** The exit codes of a command that may skip some of its input: 0, 1, 2 or 3. */
  @Command(
      exitCodeListHeading = HEADING,
      exitCodeList = {OK_LINE, INTERNAL_LINE, USAGE_LINE, SKIPPED_INPUT_LINE})
  public static final class SkipsInput {}

  /** The exit codes of a command that moves rows: 0, 1, 2 or 4. */
  @Command(
      exitCodeListHeading = HEADING,
      exitCodeList = {OK_LINE, INTERNAL_LINE, USAGE_LINE, ROWS_MOVED_LINE})
  public static final class MovesRows {}
}
