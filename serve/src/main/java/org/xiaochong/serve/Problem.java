package org.xiaochong.serve;

/**
 * A request of {@link DedupService} answered with an RFC 9457 problem: {@code status}, {@code
 * type}, {@code title} and the message as {@code detail}. Thrown without a stack trace: it is an
 * answer, not a failure of ours.
 */
final class Problem extends RuntimeException {
  final int status;
  final String type;
  final String title;

  Problem(int status, String type, String title, String detail) {
    super(detail, null, false, false);
    this.status = status;
    this.type = type;
    this.title = title;
  }

  /** {@code message} on one line (null: empty), for a detail or a log line. */
  static String oneLine(String message) {
    return message == null ? "" : message.replaceAll("\\s*\\R\\s*", " ").strip();
  }
}
