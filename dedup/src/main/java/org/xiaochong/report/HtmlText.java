package org.xiaochong.report;

import java.util.Locale;

/**
 * The words of the report: texts escaped for HTML, counts and seconds written for people, and the
 * {@code bin/dedup} command lines it prints. Stateless.
 */
final class HtmlText {
  private HtmlText() {}

  /**
   * A command line of bin/dedup: the command, then its options and arguments, leaving out empty
   * ones.
   */
  static String command(String... words) {
    StringBuilder line = new StringBuilder("bin/dedup");
    for (String word : words) {
      if (!word.isEmpty()) {
        line.append(' ').append(word);
      }
    }
    return line.toString();
  }

  /** {@code n} with thousands separators, whatever the JVM's locale: 89,476. */
  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** Seconds for people: "0.35 s", "12.3 s", "4 min 05 s". */
  static String seconds(double s) {
    if (s < 1) {
      return String.format(Locale.ROOT, "%.2f s", s);
    }
    if (s < 60) {
      return String.format(Locale.ROOT, "%.1f s", s);
    }
    long whole = Math.round(s);
    return String.format(Locale.ROOT, "%d min %02d s", whole / 60, whole % 60);
  }

  /** {@code s} escaped for HTML text and attribute values; "" for null. */
  static String escape(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
