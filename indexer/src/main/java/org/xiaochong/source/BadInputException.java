package org.xiaochong.source;

/**
 * A problem with what the user gave us (config, table, column, password, data), as opposed to a
 * bug. Its message is one line that names the problem and, where there is one, the fix. The CLI
 * prints the message alone and exits with code 2; nothing has been deleted when it is thrown.
 */
public class BadInputException extends RuntimeException {
  public BadInputException(String message) {
    super(message);
  }

  public BadInputException(String message, Throwable cause) {
    super(message, cause);
  }
}
