package org.xiaochong.policy;

import java.util.List;
import java.util.Set;
import org.xiaochong.source.TableSpec;

/** A {@link KeepPolicy} as a SQL (MariaDB) condition: see {@link KeepPolicy#sqlPreferred}. */
final class KeepPolicySql {
  private KeepPolicySql() {}

  /** {@link KeepPolicy#sqlPreferred} for the policy's {@code keys} and time column. */
  static String preferred(
      List<KeepPolicy.Key> keys,
      String timeColumn,
      String preferred,
      String other,
      String idColumn,
      Set<String> dateColumns) {
    String condition =
        preferred
            + "."
            + TableSpec.quote(idColumn)
            + " > "
            + other
            + "."
            + TableSpec.quote(idColumn);
    for (int i = keys.size() - 1; i >= 0; i--) {
      KeepPolicy.Key key = keys.get(i);
      boolean date = key.column().equals(timeColumn) || dateColumns.contains(key.column());
      String p = sqlValue(preferred, key.column(), date);
      String o = sqlValue(other, key.column(), date);
      condition =
          "("
              + p
              + (key.descending() ? " > " : " < ")
              + o
              + " OR ("
              + p
              + " IS NOT NULL AND "
              + o
              + " IS NULL)"
              + " OR ("
              + p
              + " <=> "
              + o
              + " AND "
              + condition
              + "))";
    }
    return "(" + condition + " IS TRUE)";
  }

  private static String sqlValue(String alias, String column, boolean date) {
    String value = alias + "." + TableSpec.quote(column);
    return date
        ? "IF(MONTH(" + value + ") = 0 OR DAYOFMONTH(" + value + ") = 0, NULL, " + value + ")"
        : value;
  }
}
