package org.xiaochong.cli;

/** The exit codes of every command (listed in each command's --help). */
public final class ExitCodes {
  public static final int OK = 0;
  /** Anything unexpected: a bug, a lost connection, a full disk. Details with --verbose. */
  static final int INTERNAL = 1;
  /** Bad usage or configuration: an unknown option, a config typo, a missing table or column. */
  public static final int USAGE = 2;

  static final String[] HELP = {
    "Exit codes:",
    "  0   success",
    "  1   unexpected error (run with --verbose for the stack trace)",
    "  2   usage or configuration error (the message names it; nothing was deleted)"
  };

  private ExitCodes() {}
}
