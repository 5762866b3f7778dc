package org.xiaochong.method.near.fingerprint;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.xiaochong.normalize.TextNormalizer;

/**
 * Takes numbers and phone numbers out of normalized text before smartcn sees it, because smartcn
 * splits them badly ("2.5" becomes 2 / 5, "138-0013-8000" becomes 138 / 0013 / 8000) and they are
 * strong signals of a post. Stateless and thread-safe.
 *
 * <p>Terms produced:
 *
 * <ul>
 *   <li>{@code tel:<digits>} for a phone number: one run of 7+ digits ("13800138000", also QQ-like
 *       ids) without a unit right after it ("1017882吨" is a quantity), or digit groups joined by
 *       '-', ' ', '(', ')', '+' whose digits, after {@link TextNormalizer#normalizePhone} (drops a
 *       leading 86 / 0086), form a mobile number (1[3-9] + 9 digits) or a land line with area code
 *       (0 + 9-11 digits): "138 0013 8000", "+86 138-0013-8000", "(0535)6212345".
 *   <li>a number with an optional fraction and thousands commas removed ("3,000" → "3000", "2.50" →
 *       "2.5"), with a unit that directly follows it attached ("2.5元", "1000斤", "5kg"). Groups that
 *       are not a phone ("2023-05-01", "1000-2000斤") become one number term each; the unit attaches
 *       to the last one.
 * </ul>
 *
 * The text is returned with every taken span replaced by one space, which smartcn treats as a
 * break.
 */
final class NumericTerms {

  static final String PHONE_PREFIX = "tel:";

  /** Units kept with a preceding number; longest first so "公斤" wins over "斤". */
  private static final String[] UNITS = {
    "万元", "万斤", "万株", "万只", "万头", "公斤", "千克", "厘米", "毫米", "平方", "立方", "kg", "cm", "mm", "ml", "元",
    "块", "角", "斤", "克", "吨", "亩", "头", "只", "箱", "件", "袋", "个", "株", "棵", "米", "条", "尾", "枚", "粒",
    "瓶", "包", "盒", "筐", "车", "台", "桶", "罐", "羽", "匹", "套", "担", "年", "月", "日", "号", "天", "万", "亿",
    "%", "g", "m", "t", "l"
  };

  private static final String PHONE_SEPARATORS = "-() +";
  private static final int MIN_PHONE_DIGITS = 7;

  private NumericTerms() {}

  /**
   * Adds the numeric terms of {@code text} to {@code counts} (term → count) and returns the rest of
   * the text for segmentation.
   */
  static String extract(String text, Map<String, Integer> counts) {
    StringBuilder rest = null;
    int copiedUpTo = 0;
    int length = text.length();
    List<String> atoms = null;
    for (int i = 0; i < length; ) {
      if (!isDigit(text.charAt(i))) {
        i++;
        continue;
      }
      if (rest == null) {
        rest = new StringBuilder(length);
        atoms = new ArrayList<>(4);
      }
      rest.append(text, copiedUpTo, i).append(' ');
      atoms.clear();
      int next = i;
      int j = i; // end of the run
      while (true) {
        int atomStart = next;
        int atomEnd = skipDigits(text, next);
        boolean decorated = false;
        while (atomEnd + 3 < length
            && text.charAt(atomEnd) == ','
            && isDigit(text.charAt(atomEnd + 1))
            && isDigit(text.charAt(atomEnd + 2))
            && isDigit(text.charAt(atomEnd + 3))
            && (atomEnd + 4 == length || !isDigit(text.charAt(atomEnd + 4)))) {
          atomEnd += 4;
          decorated = true;
        }
        if (atomEnd + 1 < length
            && text.charAt(atomEnd) == '.'
            && isDigit(text.charAt(atomEnd + 1))) {
          atomEnd = skipDigits(text, atomEnd + 1);
          decorated = true;
        }
        if (decorated && !atoms.isEmpty()) {
          break; // "8000 2.5": a decorated number starts its own run; j stays before the separator
        }
        atoms.add(text.substring(atomStart, atomEnd));
        j = atomEnd;
        if (decorated) {
          break; // and is never joined to what follows
        }
        int k = j;
        while (k < length && k - j < 2 && PHONE_SEPARATORS.indexOf(text.charAt(k)) >= 0) {
          k++;
        }
        if (k > j && k < length && isDigit(text.charAt(k))) {
          next = k;
          continue;
        }
        break;
      }
      String unit = unitAt(text, j);
      if (addTerms(atoms, unit, counts) && unit != null) {
        j += unit.length();
      }
      i = j;
      copiedUpTo = j;
    }
    if (rest == null) {
      return text;
    }
    return rest.append(text, copiedUpTo, length).toString();
  }

  /**
   * Adds the terms of one run of digit groups: at each group, the longest sequence of groups that
   * is a phone number becomes one phone term ("138 0013 8000 100" gives tel:13800138000 and 100); a
   * group that starts no phone is a number. Returns whether {@code unit} was attached to the last
   * group.
   */
  private static boolean addTerms(List<String> atoms, String unit, Map<String, Integer> counts) {
    int size = atoms.size();
    for (int start = 0; start < size; ) {
      int end = size;
      String phone = phoneOf(atoms.subList(start, end), end == size && unit != null);
      while (phone == null && end > start + 1) {
        end--;
        phone = phoneOf(atoms.subList(start, end), false);
      }
      if (phone != null) {
        counts.merge(PHONE_PREFIX + phone, 1, Integer::sum);
        start = end;
        continue;
      }
      String number = canonicalNumber(atoms.get(start));
      boolean last = start == size - 1;
      counts.merge(last && unit != null ? number + unit : number, 1, Integer::sum);
      if (last) {
        return unit != null;
      }
      start++;
    }
    return false;
  }

  /**
   * The phone digits if the groups form a phone number, else null. Decorated groups never do, nor
   * does one group with a unit right after it: "1017882吨" is a quantity, not a QQ-like id.
   */
  private static String phoneOf(List<String> atoms, boolean unitFollows) {
    for (String atom : atoms) {
      if (!isPlainDigits(atom)) {
        return null;
      }
    }
    if (atoms.size() == 1) {
      String digits = atoms.get(0);
      return digits.length() >= MIN_PHONE_DIGITS && !unitFollows
          ? TextNormalizer.normalizePhone(digits)
          : null;
    }
    String digits = TextNormalizer.normalizePhone(String.join("", atoms));
    return isMobile(digits) || isLandLine(digits) ? digits : null;
  }

  static boolean isMobile(String digits) {
    return digits.length() == 11 && digits.charAt(0) == '1' && digits.charAt(1) >= '3';
  }

  static boolean isLandLine(String digits) {
    return digits.length() >= 10
        && digits.length() <= 12
        && digits.charAt(0) == '0'
        && digits.charAt(1) != '0';
  }

  /** Removes thousands commas and trailing fraction zeros: "3,000.50" → "3000.5", "2.0" → "2". */
  static String canonicalNumber(String atom) {
    String number = atom.indexOf(',') >= 0 ? atom.replace(",", "") : atom;
    int dot = number.indexOf('.');
    if (dot < 0) {
      return number;
    }
    int end = number.length();
    while (end > dot + 1 && number.charAt(end - 1) == '0') {
      end--;
    }
    if (end == dot + 1) {
      end = dot;
    }
    return number.substring(0, end);
  }

  private static String unitAt(String text, int position) {
    for (String unit : UNITS) {
      if (text.startsWith(unit, position)) {
        int after = position + unit.length();
        boolean latin = unit.charAt(0) < 0x80 && Character.isLetter(unit.charAt(0));
        if (latin && after < text.length() && isAsciiLetter(text.charAt(after))) {
          continue; // "5mobile" is not 5 m
        }
        return unit;
      }
    }
    return null;
  }

  private static int skipDigits(String text, int from) {
    int j = from;
    while (j < text.length() && isDigit(text.charAt(j))) {
      j++;
    }
    return j;
  }

  private static boolean isPlainDigits(String atom) {
    for (int i = 0; i < atom.length(); i++) {
      if (!isDigit(atom.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isAsciiLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }
}
