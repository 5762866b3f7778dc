package org.xiaochong.method.near.fingerprint;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongToDoubleFunction;

/**
 * What a record says about the item it offers that a near duplicate must not contradict: the values
 * of its place columns ({@code fields.place}: region, address), the numbers of its number columns
 * ({@code fields.number}: quantity, area, price), the amounts with a unit in its text ("20吨",
 * "2.5元", "2023年") and the grade and size it names ({@link Grades}: 一级, 大果, 70mm); and who offers
 * it, its seller: the digits of its phone columns ({@code fields.phone}) and the values of its
 * seller columns ({@code fields.seller}: a contact name). Each is an item: a slot (which column,
 * {@link #TEXT} for the text's amounts and grades, or below {@link #TEXT} for a seller column), a
 * unit (0: none), a key (its weight is the rule's evidence weight) and a value (NaN: compared by
 * key only). Immutable; thread-safe.
 *
 * <p>{@link #against} is the weight two records' items contradict each other with: an item of one
 * record contradicts the other when the other has items of the same slot and unit and none of them
 * agrees with it: the same key, or numbers within {@link #RELATIVE_TOLERANCE} of each other
 * (exactly equal for calendar units). A record without an item of that slot and unit says nothing
 * either way. The seller items are never evidence against a pair: {@link #sameSeller} reads them,
 * and a pair of one seller may have its amounts lifted ({@code amountsLifted} of {@link #against}
 * and {@link #contradicts}): the near rule decides when (the same seller's repost of one offer at a
 * new price or lot).
 */
public final class Evidence {
  /** No items: a record without place or number columns and without amounts in its text. */
  public static final Evidence NONE =
      new Evidence(new int[0], new int[0], new long[0], new double[0]);

  /**
   * The slot of the amounts found in the text (a place or number column's slot is 1 + its index, a
   * seller column's -1 - its index: phone columns first, then fields.seller).
   */
  public static final int TEXT = 0;

  /**
   * Two numbers of one unit agree when they differ by at most 20 % of the larger: a repost updates
   * its price or stock by a few percent ("约280斤 … 850元" for "约300斤 … 800元"), while another offer of
   * the same product is another lot (20吨 against 100吨). Why: docs/near.md ("Evidence against a
   * pair"); measured in bench/RESULTS.md ("The near method's measurements").
   */
  public static final double RELATIVE_TOLERANCE = 0.2;

  private final int[] slots;
  private final int[] units;
  private final long[] keys;
  private final double[] values;

  /** Items ordered by (slot, unit), as {@link #encode} writes them. */
  private Evidence(int[] slots, int[] units, long[] keys, double[] values) {
    this.slots = slots;
    this.units = units;
    this.keys = keys;
    this.values = values;
  }

  public boolean isEmpty() {
    return slots.length == 0;
  }

  public int size() {
    return slots.length;
  }

  /**
   * The keys of the items of the columns (not the text's amounts), for their document frequencies.
   */
  public long[] columnKeys() {
    long[] out = new long[keys.length];
    int n = 0;
    for (int i = 0; i < keys.length; i++) {
      if (slots[i] > TEXT) {
        out[n++] = keys[i];
      }
    }
    return Arrays.copyOf(out, n);
  }

  /**
   * The total weight of the items of either record that the other contradicts (see the class
   * comment), each counted once: 0 when they agree or have no slot and unit in common.
   */
  public double against(Evidence other, LongToDoubleFunction weight) {
    return against(other, weight, false);
  }

  /**
   * {@link #against}, with {@code amountsLifted} leaving out the amounts (prices, lots: every
   * number but a date's): what the same seller's repost of one offer may change.
   */
  public double against(Evidence other, LongToDoubleFunction weight, boolean amountsLifted) {
    if (slots.length == 0 || other.slots.length == 0) {
      return 0;
    }
    return contradicted(this, other, weight, false, amountsLifted)
        + contradicted(other, this, weight, false, amountsLifted);
  }

  /**
   * Whether the two records are known to come from one seller: the first seller slot (a phone
   * column, then a fields.seller column) where both have a value holds the same key in both. False
   * when no seller slot has a value in both (unknown).
   */
  public boolean sameSeller(Evidence other) {
    // Seller slots are negative and sorted ascending, so the slot closest to TEXT (-1, the first
    // seller column) comes last: walk both from their last seller item down.
    int i = lastSellerItem(this);
    int j = lastSellerItem(other);
    while (i >= 0 && j >= 0) {
      if (slots[i] == other.slots[j]) {
        return keys[i] == other.keys[j];
      }
      if (slots[i] > other.slots[j]) {
        i--; // this record has a seller column the other left empty
      } else {
        j--;
      }
    }
    return false;
  }

  /** The index of the last seller item (the largest negative slot), or -1 when none. */
  private static int lastSellerItem(Evidence e) {
    int last = -1;
    for (int i = 0; i < e.slots.length && e.slots[i] < TEXT; i++) {
      last = i;
    }
    return last;
  }

  /**
   * Two amounts of a unit that is no money contradict outright ({@link #contradicts}) only when
   * they differ by more than 40 % of the larger: a repost may report stock sold down by a quarter
   * ("约12000斤" then "约9000斤"), while another lot of the same offer is usually twice or half the
   * size.
   */
  public static final double LOT_TOLERANCE = 0.4;

  /**
   * Two prices contradict outright ({@link #contradicts}) when they differ by more than 10 % of the
   * larger: on real classified ads, pairs with prices more than 10 % apart were other ads (issue
   * 22); a repost revises a price by a step of a few percent.
   */
  public static final double PRICE_TOLERANCE = 0.1;

  /**
   * Whether either record contradicts an item of the other that is not a date: another place,
   * another grade or size ({@link Grades}), another price (beyond {@link #PRICE_TOLERANCE}) or
   * another lot (beyond {@link #LOT_TOLERANCE}). Such a pair is no near duplicate whatever else
   * they share: the same seller's offer of the same product from another place, of another grade or
   * of another lot shares the phone, the name and the template, which outweigh any one differing
   * value in the similarity (docs/near.md, "Evidence against a pair"). A date counts against the
   * pair in the similarity only: a repost may update the year it names.
   */
  public boolean contradicts(Evidence other) {
    return contradicts(other, false);
  }

  /**
   * {@link #contradicts}, with {@code amountsLifted} leaving out the amounts (see {@link
   * #against(Evidence, LongToDoubleFunction, boolean)}): then only another place or grade
   * contradicts.
   */
  public boolean contradicts(Evidence other, boolean amountsLifted) {
    if (slots.length == 0 || other.slots.length == 0) {
      return false;
    }
    LongToDoubleFunction count = key -> 1;
    return contradicted(this, other, count, true, amountsLifted) > 0
        || contradicted(other, this, count, true, amountsLifted) > 0;
  }

  /**
   * The weight of the items of {@code a} that {@code b} contradicts: in the similarity (dates too,
   * every amount beyond {@link #RELATIVE_TOLERANCE}), or outright ({@code outright}: no dates,
   * prices beyond {@link #PRICE_TOLERANCE}, lots beyond {@link #LOT_TOLERANCE}); seller items
   * never, amounts other than dates not when {@code amountsLifted}.
   */
  private static double contradicted(
      Evidence a,
      Evidence b,
      LongToDoubleFunction weight,
      boolean outright,
      boolean amountsLifted) {
    double sum = 0;
    int from = 0; // first item of b of the current (slot, unit); both are ordered by (slot, unit)
    for (int i = 0; i < a.slots.length; i++) {
      if (a.slots[i] < TEXT
          || amountsLifted && !Double.isNaN(a.values[i]) && !Amount.isCalendar(a.units[i])) {
        continue;
      }
      while (from < b.slots.length
          && compareGroup(b.slots[from], b.units[from], a.slots[i], a.units[i]) < 0) {
        from++;
      }
      boolean any = false;
      boolean agrees = false;
      for (int j = from;
          j < b.slots.length && b.slots[j] == a.slots[i] && b.units[j] == a.units[i] && !agrees;
          j++) {
        any = true;
        agrees =
            a.keys[i] == b.keys[j] || Amount.agree(a.values[i], b.values[j], a.units[i], outright);
      }
      if (any && !agrees && !(outright && Amount.isCalendar(a.units[i]))) {
        sum += weight.applyAsDouble(a.keys[i]);
      }
    }
    return sum;
  }

  private static int compareGroup(int slot, int unit, int otherSlot, int otherUnit) {
    return slot != otherSlot ? Integer.compare(slot, otherSlot) : Integer.compare(unit, otherUnit);
  }

  /**
   * The amounts of a record's text: each number term with a unit ({@link NumericTerms}: "20吨",
   * "2.5元", "2023年") with its key ({@link Fingerprints#high}). Numbers without a unit (ids, street
   * numbers, the parts of a date) are left out: nothing says what they count; so are those with a
   * one-letter Latin unit (3M, 5G: a name or a code as often as a quantity).
   */
  public static Evidence ofText(Fingerprints fingerprints) {
    Builder builder = new Builder();
    builder.addText(fingerprints);
    return builder.build();
  }

  /** Collects the items of one record, in any order. Not thread-safe. */
  public static final class Builder {
    private final List<long[]> items = new ArrayList<>(); // slot, unit, key, value bits

    /** Adds the amounts of the text ({@link #ofText}). */
    public Builder addText(Fingerprints fingerprints) {
      List<String> terms = fingerprints.terms();
      for (int i = 0; i < terms.size(); i++) {
        String term = terms.get(i);
        Amount amount = Amount.parse(term);
        if (amount != null && amount.unit() != 0 && !amount.latinLetter()) {
          add(TEXT, amount.unit(), fingerprints.high(i), amount.value());
        }
      }
      return this;
    }

    /**
     * Adds the grades the near fields' normalized texts name ({@link Grades#of}): per family with
     * one value, an item of the text keyed by the value's text as a word ({@code 一级}, {@code
     * 65mm}), compared by key only, so another value of the family contradicts outright and is no
     * amount the same seller's repost may change.
     */
    public Builder addGrades(Iterable<String> normalizedTexts) {
      Grades.of(normalizedTexts)
          .forEach(
              (family, value) ->
                  add(TEXT, gradeUnit(family), NearTermKeys.key(family.text(value)), Double.NaN));
      return this;
    }

    /**
     * Adds a seller column's value key ({@link TopTermsMd5#evidenceKey}): {@code column} counts the
     * phone columns, then the fields.seller columns; nothing for 0 (empty).
     */
    public Builder addSeller(int column, long key) {
      if (key != 0) {
        add(-1 - column, 0, key, Double.NaN);
      }
      return this;
    }

    /** Adds a place column's value key ({@link TopTermsMd5#evidenceKey}); nothing for 0 (empty). */
    public Builder addPlace(int column, long key) {
      if (key != 0) {
        add(1 + column, 0, key, Double.NaN);
      }
      return this;
    }

    /**
     * Adds the first number of a number column's normalized value (with its unit, as in the text:
     * "2.50元/斤" gives 2.5 元), keyed by {@code keyOf} of its term; nothing when it holds no number.
     */
    public Builder addNumber(
        int column, String normalized, java.util.function.Function<String, Long> keyOf) {
      if (normalized == null || normalized.isEmpty()) {
        return this;
      }
      Map<String, Integer> terms = new LinkedHashMap<>();
      NumericTerms.extract(normalized, terms);
      for (String term : terms.keySet()) {
        Amount amount = Amount.parse(term);
        if (amount != null) {
          add(1 + column, amount.unit(), keyOf.apply(term), amount.value());
          break;
        }
      }
      return this;
    }

    private void add(int slot, int unit, long key, double value) {
      items.add(new long[] {slot, unit, key, Double.doubleToLongBits(value)});
    }

    /**
     * The items, each once: a column's number that the text also states (the price column's
     * "2.50元/斤" and the text's "价格2.50元/斤") is left out, or one change of price would count twice.
     */
    public Evidence build() {
      items.removeIf(
          item ->
              item[0] != TEXT
                  && item[1] != 0
                  && items.stream()
                      .anyMatch(
                          text -> text[0] == TEXT && text[1] == item[1] && text[3] == item[3]));
      if (items.isEmpty()) {
        return NONE;
      }
      items.sort(
          (a, b) ->
              a[0] != b[0]
                  ? Long.compare(a[0], b[0])
                  : a[1] != b[1] ? Long.compare(a[1], b[1]) : Long.compare(a[2], b[2]));
      int n = items.size();
      int[] slots = new int[n];
      int[] units = new int[n];
      long[] keys = new long[n];
      double[] values = new double[n];
      for (int i = 0; i < n; i++) {
        long[] item = items.get(i);
        slots[i] = (int) item[0];
        units[i] = (int) item[1];
        keys[i] = item[2];
        values[i] = Double.longBitsToDouble(item[3]);
      }
      return new Evidence(slots, units, keys, values);
    }
  }

  /**
   * The unit of a grade family's items: no amount's unit (a number term's unit holds no colon), so
   * a grade is compared with the other post's grade of its family only.
   */
  static int gradeUnit(Grades.Family family) {
    return Amount.unitId("grade:" + family.name());
  }

  /** Bytes per item of {@link #encode}: slot, unit (4 each), key and value (8 each). */
  private static final int ITEM_BYTES = 24;

  /** The items as bytes, for the near index (big-endian; decoded by {@link #decode}). */
  public byte[] encode() {
    java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(ITEM_BYTES * slots.length);
    for (int i = 0; i < slots.length; i++) {
      buffer.putInt(slots[i]).putInt(units[i]).putLong(keys[i]).putDouble(values[i]);
    }
    return buffer.array();
  }

  /** Decodes {@link #encode}. */
  public static Evidence decode(byte[] bytes, int offset, int length) {
    int n = length / ITEM_BYTES;
    if (n == 0) {
      return NONE;
    }
    java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(bytes, offset, length);
    int[] slots = new int[n];
    int[] units = new int[n];
    long[] keys = new long[n];
    double[] values = new double[n];
    for (int i = 0; i < n; i++) {
      slots[i] = buffer.getInt();
      units[i] = buffer.getInt();
      keys[i] = buffer.getLong();
      values[i] = buffer.getDouble();
    }
    return new Evidence(slots, units, keys, values);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Evidence e
        && Arrays.equals(slots, e.slots)
        && Arrays.equals(units, e.units)
        && Arrays.equals(keys, e.keys)
        && Arrays.equals(values, e.values);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(keys);
  }

  @Override
  public String toString() {
    return "Evidence" + Arrays.toString(keys);
  }
}
