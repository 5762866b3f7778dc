package org.xiaochong.zone;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Cuts an RFC 1035 master file into logical entries (one record or one directive each), so a bad
 * entry can be skipped and the next one parsed: dnsjava's {@code Master} stops at the first error
 * (its tokenizer is closed and has no way to find the next record), so each entry gets its own.
 *
 * <p>An entry is one line, or several when a '(' is open at the end of a line (RFC 1035 §5.1).
 * Quotes ("...", with backslash escapes) and comments (';' to the end of the line, outside quotes)
 * are tracked only to find the parentheses that count; the entry's text is passed on unchanged
 * (lines joined by '\n'), and dnsjava reads the comments and parentheses itself.
 *
 * <p>Resync: an entry dnsjava rejects is skipped whole, unless a line inside it starts in column 0
 * (a new owner name: the '(' above it was never closed); then only its first line is skipped and
 * reading starts again at its second. A quote still open at the end of a line, a ')' without '(',
 * or a '(' still open after {@value #MAX_LINES} lines or at the end of the file makes the entry's
 * first line a bad entry, and reading starts again at its second line, so an unclosed '(' costs one
 * line, not the file.
 *
 * <p>The reader must decode ISO-8859-1, so every byte is one char and raw UTF-8 labels reach
 * dnsjava (which reads bytes) unchanged. Not thread-safe.
 */
final class ZoneLines {

  /** Most physical lines one parenthesized entry may span. */
  static final int MAX_LINES = 200;

  /** One logical entry: its first line number, text, and the error that makes it bad (or null). */
  record Entry(int line, String text, String error, List<Line> lines) {
    boolean blankOwner() {
      return !text.isEmpty() && (text.charAt(0) == ' ' || text.charAt(0) == '\t');
    }

    /**
     * The line where a new record seems to start inside this entry (a continuation line beginning
     * in column 0 with an owner name: a '(' left open above it), or -1. Continuation lines of a
     * real multi-line record are indented or start with ')'.
     */
    int swallowedLine() {
      for (int i = 1; i < lines.size(); i++) {
        String text = lines.get(i).text();
        if (!text.isEmpty() && " \t);".indexOf(text.charAt(0)) < 0) {
          return lines.get(i).number();
        }
      }
      return -1;
    }
  }

  record Line(int number, String text) {}

  private final BufferedReader reader;
  private final Deque<Line> pushedBack = new ArrayDeque<>();
  private int lineNumber;

  ZoneLines(BufferedReader reader) {
    this.reader = reader;
  }

  /** The next non-blank entry, or null at the end. */
  Entry next() throws IOException {
    while (true) {
      Line first = nextLine();
      if (first == null) {
        return null;
      }
      List<Line> lines = new ArrayList<>();
      lines.add(first);
      Scan scan = new Scan();
      String error = scan.line(first.text());
      while (error == null && scan.depth > 0) {
        Line more = lines.size() < MAX_LINES ? nextLine() : null;
        if (more == null) {
          error =
              lines.size() < MAX_LINES
                  ? "'(' not closed before the end of the file"
                  : "'(' not closed within " + MAX_LINES + " lines";
          break;
        }
        lines.add(more);
        error = scan.line(more.text());
      }
      if (error != null) {
        for (int i = lines.size() - 1; i >= 1; i--) {
          pushedBack.push(lines.get(i)); // resync at the line after the bad one
        }
        return new Entry(first.number(), first.text(), error, List.of(first));
      }
      if (!scan.content) {
        continue; // blank or comment-only
      }
      StringBuilder text = new StringBuilder(first.text());
      for (int i = 1; i < lines.size(); i++) {
        text.append('\n').append(lines.get(i).text());
      }
      return new Entry(first.number(), text.toString(), null, lines);
    }
  }

  /** Reads the lines after {@code entry}'s first one again (the entry was bad). */
  void resyncAfterFirstLine(Entry entry) {
    for (int i = entry.lines().size() - 1; i >= 1; i--) {
      pushedBack.push(entry.lines().get(i));
    }
  }

  private Line nextLine() throws IOException {
    if (!pushedBack.isEmpty()) {
      return pushedBack.pop();
    }
    String text = reader.readLine();
    if (text == null) {
      return null;
    }
    return new Line(++lineNumber, text);
  }

  /** Parenthesis depth across the lines of one entry. */
  private static final class Scan {
    int depth;
    boolean content;

    /** Scans one physical line; returns an error or null. */
    String line(String text) {
      boolean quoted = false;
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c == '\\') {
          i++; // escaped character (\; \( \" \DDD): never special
          content = true;
        } else if (quoted) {
          quoted = c != '"';
        } else if (c == '"') {
          quoted = true;
          content = true;
        } else if (c == ';') {
          break;
        } else if (c == '(') {
          depth++;
        } else if (c == ')') {
          if (--depth < 0) {
            return "')' without '('";
          }
        } else if (c != ' ' && c != '\t') {
          content = true;
        }
      }
      return quoted ? "quoted string not closed on its line" : null;
    }
  }
}
