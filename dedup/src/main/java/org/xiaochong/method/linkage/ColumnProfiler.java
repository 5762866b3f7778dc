package org.xiaochong.method.linkage;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Infers a column's {@link ColumnKind} from its name and a sample of its values, the way a person
 * skimming the table would: dates parse as dates; phones are digits with separators (or a column
 * called phone/tel/电话); quantities have decimals or units (or a column called price/amount/价格);
 * other digit strings are codes; a column with few distinct short values is a category; place names
 * (city, region, 省市县) by their column's name; short mostly-letter values are names; the rest is
 * text. {@code run} prints what it inferred, and {@code linkage.kinds} overrides it per column.
 * Stateless and thread-safe.
 */
final class ColumnProfiler {
  private static final Pattern PHONE_NAME =
      Pattern.compile("(?i).*(phone|tel|mobile|fax|电话|手机|联系方式).*");
  private static final Pattern NUMBER_NAME =
      Pattern.compile(
          "(?i).*(price|amount|cost|area|weight|qty|quantity|salary|价|金额|面积|数量|重量|产量).*");
  private static final Pattern PLACE_NAME =
      Pattern.compile(
          "(?i).*(city|suburb|town|state|province|county|region|district|country|location|place"
              + "|地区|省|市|县|区域|产地|地点|所在地).*");
  private static final Pattern NAME_NAME =
      Pattern.compile(
          "(?i).*(name|surname|author|artist|contact|person|company|org|联系人|姓名|公司|单位).*");
  private static final Pattern PHONE_VALUE = Pattern.compile("^[+(]?[0-9][0-9 ()./-]{5,20}$");
  private static final Pattern DIGITS = Pattern.compile("^[0-9 ./-]+$");

  /** What the sample of one column showed, and the kind inferred from it. */
  record Profile(
      String column, ColumnKind kind, long values, long empty, double topShare, String why) {
    /** One line for the run's output: "surname: name (jaro-winkler; 0 % empty)". */
    String line() {
      return String.format(
          Locale.ROOT,
          "%s: %s (%s; %.0f %% empty%s)",
          column,
          kind.label(),
          why,
          values + empty == 0 ? 100.0 : 100.0 * empty / (values + empty),
          topShare >= 0.5
              ? String.format(Locale.ROOT, ", one value in %.0f %%", 100 * topShare)
              : "");
    }
  }

  private ColumnProfiler() {}

  /** The kind of {@code column} from its sampled raw values (nulls count as empty). */
  static Profile profile(String column, List<String> sample) {
    long empty = 0;
    long dates = 0;
    long phones = 0;
    long separated = 0;
    long quantities = 0;
    long fractional = 0;
    long digits = 0;
    long letters = 0;
    long chars = 0;
    long words = 0;
    Map<String, Integer> distinct = new HashMap<>();
    for (String raw : sample) {
      String canonical = Values.canonical(raw);
      if (canonical.isEmpty()) {
        empty++;
        continue;
      }
      distinct.merge(canonical, 1, Integer::sum);
      String strip = raw.strip();
      if (Values.date(strip) != null) {
        dates++;
      }
      if (PHONE_VALUE.matcher(strip).matches()) {
        int d = Values.digits(strip).length();
        if (d >= 7 && d <= 15) {
          phones++;
          if (!strip.chars().allMatch(Character::isDigit)) {
            separated++;
          }
        }
      }
      Values.Quantity q = Values.quantity(strip);
      if (q != null) {
        quantities++;
        if (strip.contains(".") || !q.unit().isEmpty()) {
          fractional++;
        }
      }
      if (DIGITS.matcher(strip).matches()) {
        digits++;
      }
      chars += canonical.length();
      words += Values.words(canonical).size();
      letters += canonical.codePoints().filter(Character::isLetter).count();
    }
    long values = sample.size() - empty;
    int top = distinct.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    double topShare = values == 0 ? 0 : top / (double) values;
    if (values == 0) {
      return new Profile(column, ColumnKind.TEXT, 0, empty, 0, "no values in the sample");
    }
    double meanChars = chars / (double) values;
    double meanWords = words / (double) values;
    String name = column.toLowerCase(Locale.ROOT);
    ColumnKind kind;
    String why;
    if (dates >= 0.8 * values) {
      kind = ColumnKind.DATE;
      why = "values are dates";
    } else if (phones >= 0.8 * values
        && (PHONE_NAME.matcher(name).matches() || separated >= 0.3 * values)) {
      kind = ColumnKind.PHONE;
      why = "values are phone numbers";
    } else if (quantities >= 0.8 * values
        && (NUMBER_NAME.matcher(name).matches() || fractional >= 0.2 * values)) {
      kind = ColumnKind.NUMBER;
      why = "values are quantities";
    } else if (PHONE_NAME.matcher(name).matches() && digits >= 0.5 * values) {
      kind = ColumnKind.PHONE;
      why = "a phone column";
    } else if (digits >= 0.8 * values) {
      kind = ColumnKind.CODE;
      why = "values are digit codes";
    } else if (values >= 20 && distinct.size() <= Math.max(2, Math.min(50, values / 20))) {
      kind = ColumnKind.CATEGORY;
      why = distinct.size() + " distinct values in the sample";
    } else if (PLACE_NAME.matcher(name).matches() && meanWords <= 4) {
      kind = ColumnKind.PLACE;
      why = "a place column";
    } else if (NAME_NAME.matcher(name).matches() && meanWords <= 6) {
      kind = ColumnKind.NAME;
      why = "a name column";
    } else if (meanChars <= 30 && meanWords <= 4 && letters >= 0.8 * chars) {
      kind = ColumnKind.NAME;
      why = "short values of letters";
    } else {
      kind = ColumnKind.TEXT;
      why = String.format(Locale.ROOT, "text of %.0f words on average", meanWords);
    }
    return new Profile(column, kind, values, empty, topShare, why);
  }
}
