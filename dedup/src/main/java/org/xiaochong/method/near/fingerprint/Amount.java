package org.xiaochong.method.near.fingerprint;

import java.util.List;

/**
 * A number term split into its value and unit ("2.5元" → 2.5, 元); null for a phone or a word. {@code
 * latinLetter}: the unit is one Latin letter (m, g, t, l), which in Latin text is as often a name
 * or a code as a quantity ("3M", "5G", "4T"), so the text's such terms are no amounts.
 */
record Amount(double value, int unit, boolean latinLetter) {
  /** Units of a date: their numbers agree only when equal (2023年 and 2024年 are another year). */
  private static final int[] CALENDAR_UNITS =
      List.of("年", "月", "日", "号").stream().mapToInt(Amount::unitId).toArray();

  /** Units of money: their amounts contradict outright beyond {@link Evidence#PRICE_TOLERANCE}. */
  private static final int[] MONEY_UNITS =
      List.of("元", "万元", "块", "角").stream().mapToInt(Amount::unitId).toArray();

  /**
   * Whether two numbers of {@code unit} agree: dates only when equal, else within {@link
   * Evidence#RELATIVE_TOLERANCE} of the larger, or when {@code outright}, prices within {@link
   * Evidence#PRICE_TOLERANCE} and lots within {@link Evidence#LOT_TOLERANCE}; NaN (compared by key
   * only) never.
   */
  static boolean agree(double a, double b, int unit, boolean outright) {
    if (Double.isNaN(a) || Double.isNaN(b)) {
      return false; // compared by key only, and the keys differ
    }
    if (Amount.isCalendar(unit)) {
      return a == b;
    }
    double tolerance =
        !outright || unit == 0
            ? Evidence.RELATIVE_TOLERANCE
            : isMoney(unit) ? Evidence.PRICE_TOLERANCE : Evidence.LOT_TOLERANCE;
    return Math.abs(a - b) <= tolerance * Math.max(Math.abs(a), Math.abs(b));
  }

  /** Whether {@code unit} is one of money. */
  private static boolean isMoney(int unit) {
    return contains(MONEY_UNITS, unit);
  }

  /** Whether {@code unit} is one of a date. */
  static boolean isCalendar(int unit) {
    return contains(CALENDAR_UNITS, unit);
  }

  private static boolean contains(int[] units, int unit) {
    for (int u : units) {
      if (u == unit) {
        return true;
      }
    }
    return false;
  }

  /** The id of a unit: a hash of its text, never 0 (0 is "no unit"). */
  static int unitId(String unit) {
    if (unit == null || unit.isEmpty()) {
      return 0;
    }
    int h = unit.hashCode();
    return h == 0 ? 1 : h;
  }

  /** The amount of a number term, or null when it is none. */
  static Amount parse(String term) {
    int end = 0;
    while (end < term.length()
        && (Character.isDigit(term.charAt(end)) && term.charAt(end) < 0x80
            || term.charAt(end) == '.')) {
      end++;
    }
    if (end == 0) {
      return null;
    }
    try {
      String unit = term.substring(end);
      boolean latinLetter =
          unit.length() == 1 && unit.charAt(0) < 0x80 && Character.isLetter(unit.charAt(0));
      return new Amount(Double.parseDouble(term.substring(0, end)), unitId(unit), latinLetter);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
