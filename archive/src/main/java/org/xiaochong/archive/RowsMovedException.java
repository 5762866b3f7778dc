package org.xiaochong.archive;

/**
 * A command stopped by an error after it had moved rows: some batches were archived and deleted (or
 * restored) and committed before it. Nothing is lost (each batch moved whole or not at all) and the
 * run log says what is left; the message says how many rows moved and how to finish. The CLI exits
 * with its own code, so that a script can tell it from an error that changed nothing.
 */
public final class RowsMovedException extends RuntimeException {
  private final long rows;

  /**
   * @param what what moved, e.g. "run 7 archived and deleted 4,000 rows"
   */
  public RowsMovedException(String what, long rows, RuntimeException cause) {
    super(what + " before it stopped: " + messageOf(cause), cause);
    this.rows = rows;
  }

  /** Rows moved before the error. */
  public long rows() {
    return rows;
  }

  private static String messageOf(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null
        && root.getCause() != root
        && !(root instanceof java.sql.SQLException)) {
      root = root.getCause();
    }
    return String.valueOf(e.getMessage() != null ? e.getMessage() : root.getMessage());
  }
}
