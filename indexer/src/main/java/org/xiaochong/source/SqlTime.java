package org.xiaochong.source;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Binds DATETIME parameters as text ("2024-05-01 08:00:00.123456"), which MySQL and MariaDB read
 * with its fractional seconds. Connector/J sends a bound {@link LocalDateTime} without them to a
 * server whose version it takes for older than MySQL 5.6.4, and every MariaDB announces itself as
 * "5.5.5-10.x": a time of 08:00:00.123 would be stored as 08:00:00. Text also avoids {@code
 * java.sql.Timestamp}, an instant in the JVM's zone that the driver would shift to the
 * connection's.
 */
public final class SqlTime {
  private static final DateTimeFormatter TEXT =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS", Locale.ROOT);

  private SqlTime() {}

  /** Binds {@code time} (null: SQL NULL) to parameter {@code index}. */
  public static void bind(PreparedStatement statement, int index, LocalDateTime time)
      throws SQLException {
    if (time == null) {
      statement.setNull(index, Types.TIMESTAMP);
    } else {
      statement.setString(index, text(time));
    }
  }

  /** Binds any parameter, a {@link LocalDateTime} as {@link #bind} does. */
  public static void bindObject(PreparedStatement statement, int index, Object value)
      throws SQLException {
    if (value instanceof LocalDateTime time) {
      bind(statement, index, time);
    } else {
      statement.setObject(index, value);
    }
  }

  /** The text form of a time, as bound. */
  public static String text(LocalDateTime time) {
    return TEXT.format(time);
  }

  /**
   * Appends {@link #text}{@code (time)} to {@code out}. Years 0-9999 (every year a DATETIME holds)
   * are written digit by digit: a plan's LOAD DATA writes two times per row, and the formatter took
   * a fifth of the client's CPU while the 1M benchmark's plan was written (bench/RESULTS.md).
   */
  public static StringBuilder appendText(StringBuilder out, LocalDateTime time) {
    int year = time.getYear();
    if (year < 0 || year > 9999) {
      return out.append(text(time));
    }
    digits(out, year, 4).append('-');
    digits(out, time.getMonthValue(), 2).append('-');
    digits(out, time.getDayOfMonth(), 2).append(' ');
    digits(out, time.getHour(), 2).append(':');
    digits(out, time.getMinute(), 2).append(':');
    digits(out, time.getSecond(), 2).append('.');
    return digits(out, time.getNano() / 1_000, 6);
  }

  /** Appends {@code value} (not negative) zero-padded to {@code width} digits. */
  private static StringBuilder digits(StringBuilder out, int value, int width) {
    int start = out.length();
    for (int i = 0; i < width; i++) {
      out.append('0');
    }
    for (int at = start + width - 1; value > 0 && at >= start; at--, value /= 10) {
      out.setCharAt(at, (char) ('0' + value % 10));
    }
    return out;
  }
}
