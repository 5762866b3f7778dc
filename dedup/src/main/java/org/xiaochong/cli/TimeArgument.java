package org.xiaochong.cli;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import picocli.CommandLine;

/**
 * Parses --since/--until: {@code 2024-05-01}, {@code 2024-05-01T08:30}, {@code 2024-05-01
 * 08:30:00}.
 */
public final class TimeArgument implements CommandLine.ITypeConverter<LocalDateTime> {
  @Override
  public LocalDateTime convert(String value) {
    String v = value.strip().replace(' ', 'T');
    try {
      return v.length() == 10 ? LocalDate.parse(v).atStartOfDay() : LocalDateTime.parse(v);
    } catch (DateTimeParseException e) {
      throw new CommandLine.TypeConversionException(
          "'"
              + value
              + "' is not a time: use 2024-05-01, 2024-05-01T08:30 or '2024-05-01 08:30:00'");
    }
  }
}
