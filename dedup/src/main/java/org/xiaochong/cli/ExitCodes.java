package org.xiaochong.cli;

/** The exit codes of every command (listed in each command's --help). */
public final class ExitCodes {
  public static final int OK = 0;
  /** Anything unexpected: a bug, a lost connection, a full disk. Details with --verbose. */
  static final int INTERNAL = 1;
  /**
   * Bad usage or configuration: an unknown option, a config typo, a missing table or column, a table an
   * apply refuses. Nothing was moved.
   */
  public static final int USAGE = 2;
  /**
   * An error stopped {@code run --apply} or {@code restore} after rows had moved: whole batches were
   * archived and deleted (or restored), the message says how many, and running the command again
   * finishes. Codes 1 and 2 promise that the command moved no row.
   */
  public static final int ROWS_MOVED = 4;

  static final String[] HELP = {
    "Exit codes:",
    "  0   success",
    "  1   unexpected error, no row moved (run with --verbose for the stack trace)",
    "  2   usage or configuration error (the message names it; no row moved)",
    "  4   stopped by an error after rows moved (the message says how many; run the command again to finish)"
  };

  private ExitCodes() {}
}
