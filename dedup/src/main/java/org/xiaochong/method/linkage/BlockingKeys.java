package org.xiaochong.method.linkage;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.commons.codec.language.DoubleMetaphone;

/**
 * The candidate keys of one record, per column and made to survive typos, the way blocking keys are
 * chosen in record linkage: the whole value; for names the Double Metaphone code of each Latin word
 * (Smith and Smyth share SM0) and each word; for codes and dates every variant with one character
 * deleted (any two values one substitution, insertion, deletion or swap apart share a variant: the
 * symmetric-delete idea of SymSpell); for phones the last seven digits; for places and text their
 * words (with neighbouring ideographs). Two records are candidates when they share a key held by
 * few enough records ({@code linkage.max-holders}); numbers and categories make no keys (a price or
 * a state says little about identity on its own).
 *
 * <p>Keys are prefixed with their column's position, so values of two columns never meet. Stateless
 * apart from the encoder; one instance per thread.
 */
final class BlockingKeys {
  /** Codes and dates longer than this get no deletion variants (their count grows with length). */
  private static final int MAX_VARIANT_LENGTH = 12;

  private final List<ColumnKind> kinds;
  private final DoubleMetaphone metaphone = new DoubleMetaphone();

  BlockingKeys(List<ColumnKind> kinds) {
    this.kinds = kinds;
  }

  /** The keys of a record whose columns hold these canonical values ("" when empty). */
  Set<String> keys(String[] values) {
    Set<String> keys = new LinkedHashSet<>();
    for (int c = 0; c < kinds.size(); c++) {
      String value = values[c];
      if (value == null || value.isEmpty()) {
        continue;
      }
      String p = c + ":";
      switch (kinds.get(c)) {
        case NAME -> {
          keys.add(p + "v:" + value);
          for (String word : Values.words(value)) {
            keys.add(p + "w:" + word);
            if (word.length() >= 2
                && word.chars().allMatch(ch -> ch < 0x80 && Character.isLetter(ch))) {
              keys.add(p + "m:" + metaphone.doubleMetaphone(word));
            }
          }
        }
        case CODE, DATE -> {
          java.time.LocalDate date = kinds.get(c) == ColumnKind.DATE ? Values.date(value) : null;
          String code =
              date != null ? Values.compact(date) : Values.canonical(value).replace(" ", "");
          keys.add(p + "v:" + code);
          if (code.length() >= 4 && code.length() <= MAX_VARIANT_LENGTH) {
            for (int i = 0; i < code.length(); i++) {
              keys.add(p + "d:" + code.substring(0, i) + code.substring(i + 1));
            }
          }
        }
        case PHONE -> {
          String digits = Values.digits(value);
          keys.add(p + "v:" + (digits.isEmpty() ? value : digits));
          if (digits.length() > 7) {
            keys.add(p + "l:" + digits.substring(digits.length() - 7));
          }
        }
        case PLACE, TEXT -> {
          keys.add(p + "v:" + value);
          for (String token : Values.tokens(value)) {
            keys.add(p + "w:" + token);
          }
        }
        case NUMBER, CATEGORY -> {}
      }
    }
    return keys;
  }
}
