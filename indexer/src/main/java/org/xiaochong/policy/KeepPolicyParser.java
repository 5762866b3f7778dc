package org.xiaochong.policy;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.TableSpec;

/** Parses the text of {@code keep.policy}: see {@link KeepPolicy#parse}. Stateless. */
final class KeepPolicyParser {

  private static final Pattern TERM =
      Pattern.compile("([A-Za-z_][A-Za-z0-9_$]*)(?:\\s+(asc|desc))?", Pattern.CASE_INSENSITIVE);

  private KeepPolicyParser() {}

  /** See {@link KeepPolicy#parse}. */
  static KeepPolicy parse(String text, String timeColumn) {
    String value = text == null ? "" : text.strip();
    if (value.equalsIgnoreCase(KeepPolicy.LATEST)) {
      return KeepPolicy.latest(timeColumn);
    }
    if (value.equalsIgnoreCase(KeepPolicy.EARLIEST)) {
      return new KeepPolicy(timeColumn, List.of(new KeepPolicy.Key(timeColumn, false)));
    }
    if (value.isEmpty()) {
      throw new BadInputException(
          "keep.policy is empty: use latest, earliest or columns with directions"
              + " (e.g. paid desc, reg_time desc)");
    }
    List<KeepPolicy.Key> keys = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (String term : value.split(",", -1)) {
      Matcher m = TERM.matcher(term.strip());
      if (!m.matches()) {
        throw new BadInputException(
            "keep.policy '"
                + value
                + "': '"
                + term.strip()
                + "' is not 'column',"
                + " 'column asc' or 'column desc' (or use latest or earliest)");
      }
      String column = m.group(1);
      try {
        TableSpec.quote(column); // validates the identifier
      } catch (BadInputException e) {
        throw new BadInputException(
            "keep.policy names '"
                + column
                + "', which is not a valid SQL identifier (letters, digits, _ and $, at most 64)",
            e);
      }
      if (!seen.add(column.toLowerCase(Locale.ROOT))) {
        throw new BadInputException(
            "keep.policy '" + value + "' names column '" + column + "' twice");
      }
      keys.add(
          new KeepPolicy.Key(
              column.equalsIgnoreCase(timeColumn) ? timeColumn : column,
              m.group(2) == null || m.group(2).equalsIgnoreCase("desc")));
    }
    return new KeepPolicy(timeColumn, keys);
  }
}
