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

  /** The incident id of a failure of ours (its cause is in the log under it), else null. */
  final String incident;

  Problem(int status, String type, String title, String detail) {
    this(status, type, title, detail, null);
  }

  Problem(int status, String type, String title, String detail, String incident) {
    super(detail, null, false, false);
    this.status = status;
    this.type = type;
    this.title = title;
    this.incident = incident;
  }

  /** What a client sent, on one line and at most 100 characters, to quote it in a detail. */
  static String clipped(String sent) {
    String line = oneLine(sent);
    return line.length() <= 100 ? line : line.substring(0, 100) + "…";
  }

  /** {@code message} on one line (null: empty), for a detail or a log line. */
  static String oneLine(String message) {
    return message == null ? "" : message.replaceAll("\\s*\\R\\s*", " ").strip();
  }
}
