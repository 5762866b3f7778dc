package org.xiaochong.policy;

import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.xiaochong.source.BadInputException;

/**
 * A keep.policy column's value as a long, for {@link KeepPolicy#rank}: integers as they are (a
 * BigInteger clamped to the long range), booleans as 0 and 1, dates and times as epoch milliseconds
 * read as UTC, text as the server prints these. NULL and dates that name no day are null.
 * Stateless.
 */
final class RankValues {
  private static final Pattern DATE_TIME =
      Pattern.compile(
          "(\\d{4})-(\\d{2})-(\\d{2})(?:[ T](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?)?");
  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  private RankValues() {}

  /**
   * A column value as a long (ints as they are, dates as epoch ms read as UTC); null for NULL and
   * dates that name no day.
   */
  static Long value(String column, Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof Boolean b) {
      return b ? 1L : 0L;
    } else if (value instanceof Byte
        || value instanceof Short
        || value instanceof Integer
        || value instanceof Long) {
      return ((Number) value).longValue();
    } else if (value instanceof BigInteger big) {
      return big.max(LONG_MIN).min(LONG_MAX).longValue();
    } else if (value instanceof LocalDateTime time) {
      return time.toInstant(ZoneOffset.UTC).toEpochMilli();
    } else if (value instanceof LocalDate date) {
      return date.atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli();
    } else if (value instanceof java.sql.Timestamp time) {
      return value(column, time.toLocalDateTime());
    } else if (value instanceof java.sql.Date date) {
      return value(column, date.toLocalDate());
    } else if (value instanceof CharSequence text) {
      return parseValue(column, text.toString().strip());
    }
    throw new BadInputException(
        "keep.policy column "
            + column
            + " has value '"
            + value
            + "', which is neither an integer nor a date/time");
  }

  private static Long parseValue(String column, String text) {
    if (text.isEmpty()) {
      return null;
    }
    Matcher m = DATE_TIME.matcher(text);
    if (m.matches()) {
      int month = Integer.parseInt(m.group(2));
      int day = Integer.parseInt(m.group(3));
      if (month == 0 || day == 0) {
        return null; // the zero date and dates that name no day, as for the time column
      }
      String fraction = m.group(7) == null ? "0" : (m.group(7) + "00").substring(0, 3);
      try {
        return LocalDateTime.of(
                Integer.parseInt(m.group(1)),
                month,
                day,
                m.group(4) == null ? 0 : Integer.parseInt(m.group(4)),
                m.group(5) == null ? 0 : Integer.parseInt(m.group(5)),
                m.group(6) == null ? 0 : Integer.parseInt(m.group(6)),
                Integer.parseInt(fraction) * 1_000_000)
            .toInstant(ZoneOffset.UTC)
            .toEpochMilli();
      } catch (java.time.DateTimeException e) {
        throw new BadInputException(
            "keep.policy column " + column + " has value '" + text + "', not a valid date", e);
      }
    }
    try {
      return value(column, new BigInteger(text));
    } catch (NumberFormatException e) {
      throw new BadInputException(
          "keep.policy column "
              + column
              + " has value '"
              + text
              + "', which is neither an integer nor a date/time",
          e);
    }
  }
}
