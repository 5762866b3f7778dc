package org.xiaochong.archive;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import org.xiaochong.source.SourceRecord;

/**
 * The decisions of a run: which record is removed in favour of which kept record, by which rule and
 * with what score, and what the index held of both rows when it decided ({@link RowState}).
 * Parallel primitive arrays (48 bytes per removal) rather than objects: a large table can plan
 * millions of removals. Not thread-safe.
 *
 * <p>Over 300 lines because the algorithms that rewrite the plan in place ({@link #collapseChains},
 * {@link #dropApart}) work on its private arrays, and {@link Rule} is named {@code
 * DeletionPlan.Rule} by every pass, the Spark job and the CLI.
 */
public final class DeletionPlan {
  /**
   * What the index held of a row when the pass decided: its time and row checksum ({@link
   * org.xiaochong.source.RowChecksum}). The apply moves a row without deciding again when both rows
   * still have the state the decision was made on; {@link #UNKNOWN} makes it decide again.
   */
  public record RowState(long time, long crc) {
    public static final RowState UNKNOWN =
        new RowState(SourceRecord.NULL_TIME, SourceRecord.UNKNOWN_CRC);

    /**
     * Whether a row now holding {@code time} and {@code crc} is still in this state (never when
     * unknown).
     */
    public boolean matches(long time, long crc) {
      return this.crc != SourceRecord.UNKNOWN_CRC && this.crc == crc && this.time == time;
    }
  }

  /**
   * The rule that found a duplicate: the name of the fingerprint method whose pass planned it,
   * stored in {@code dedup_rule} and {@code dedup_plan.rule}; or, for a removal {@link
   * #collapseChains} re-pointed, the method that first removed the row and the one whose decision
   * picked its final survivor, joined by '+' ({@code exact+near}: an exact twin of a row the near
   * pass then removed). Instances are interned, one per label, so {@code ==} compares rules. A plan
   * holds at most {@link #MAX_RULES} distinct rules.
   */
  public static final class Rule {
    /**
     * Labels are lower-case identifiers, or two joined by '+', short enough for the 16-character
     * rule columns ({@code dedup_rule}, {@code dedup_plan.rule}, {@code dedup_run_removed.method}).
     */
    private static final java.util.regex.Pattern LABEL =
        java.util.regex.Pattern.compile("(?=.{1,16}$)[a-z][a-z0-9_]*(\\+[a-z][a-z0-9_]*)?");

    /** The longest method name: two of them and the '+' fit the 16-character rule columns. */
    public static final int MAX_METHOD_NAME = 7;

    private static final int MAX_RULES = 127; // ids are stored in a byte per removal
    private static final java.util.Map<String, Rule> BY_LABEL =
        new java.util.concurrent.ConcurrentHashMap<>();
    private static final java.util.List<Rule> BY_ID =
        new java.util.concurrent.CopyOnWriteArrayList<>();

    public final String label;
    private final byte id;

    private Rule(String label, int id) {
      this.label = label;
      this.id = (byte) id;
    }

    /**
     * The rule named {@code label} (as stored in {@code dedup_rule} or {@code dedup_plan.rule}).
     *
     * @throws IllegalArgumentException if the label is not a lower-case identifier, or two joined
     *     by '+', of at most 16 characters
     */
    public static Rule of(String label) {
      Rule known = BY_LABEL.get(label);
      if (known != null) {
        return known;
      }
      if (!LABEL.matcher(label).matches()) {
        throw new IllegalArgumentException("rule '" + label + "' must match " + LABEL.pattern());
      }
      synchronized (BY_ID) {
        return BY_LABEL.computeIfAbsent(
            label,
            l -> {
              if (BY_ID.size() == MAX_RULES) {
                throw new IllegalStateException("more than " + MAX_RULES + " rules");
              }
              Rule rule = new Rule(l, BY_ID.size());
              BY_ID.add(rule);
              return rule;
            });
      }
    }

    /** The method that first removed the row (the whole label unless {@link #isCombined}). */
    public String first() {
      int plus = label.indexOf('+');
      return plus < 0 ? label : label.substring(0, plus);
    }

    /**
     * The method whose decision picked the row's survivor (the whole label unless {@link
     * #isCombined}).
     */
    public String last() {
      int plus = label.indexOf('+');
      return plus < 0 ? label : label.substring(plus + 1);
    }

    /** Whether two methods removed the row: {@code exact+near}. */
    public boolean isCombined() {
      return label.indexOf('+') >= 0;
    }

    /** The methods of the rule: one, or {@link #first} and {@link #last}. */
    public java.util.List<String> methods() {
      return isCombined() ? java.util.List.of(first(), last()) : java.util.List.of(label);
    }

    /**
     * The rule of a removal by this rule whose kept row {@code decided} then removed: this rule's
     * first method and {@code decided}'s last, or this rule when they are the same method.
     */
    public Rule then(Rule decided) {
      return first().equals(decided.last()) ? of(first()) : of(first() + "+" + decided.last());
    }

    private static Rule byId(byte id) {
      return BY_ID.get(id);
    }

    /** The label in upper case, as the rule constants are named ({@code EXACT}). */
    @Override
    public String toString() {
      return label.toUpperCase(java.util.Locale.ROOT);
    }
  }

  private long[] removedIds = new long[1024];
  private long[] keptIds = new long[1024];
  private byte[] rules = new byte[1024];
  private float[] scores = new float[1024];
  private long[] removedTimes = new long[1024];
  private long[] removedCrcs = new long[1024];
  private long[] keptTimes = new long[1024];
  private long[] keptCrcs = new long[1024];
  private int size;

  /** A removal whose rows' indexed states are not known: the apply decides it again on the rows. */
  public void add(long removedId, long keptId, Rule rule, double score) {
    add(removedId, keptId, rule, score, RowState.UNKNOWN, RowState.UNKNOWN);
  }

  /**
   * @param removed what the index held of the removed row when the pass decided
   * @param kept what it held of the kept row
   */
  public void add(
      long removedId, long keptId, Rule rule, double score, RowState removed, RowState kept) {
    if (removedId == keptId) {
      throw new IllegalArgumentException(
          "record " + removedId + " cannot be removed in favour of itself");
    }
    if (size == removedIds.length) {
      int capacity = size * 2;
      removedIds = Arrays.copyOf(removedIds, capacity);
      keptIds = Arrays.copyOf(keptIds, capacity);
      rules = Arrays.copyOf(rules, capacity);
      scores = Arrays.copyOf(scores, capacity);
      removedTimes = Arrays.copyOf(removedTimes, capacity);
      removedCrcs = Arrays.copyOf(removedCrcs, capacity);
      keptTimes = Arrays.copyOf(keptTimes, capacity);
      keptCrcs = Arrays.copyOf(keptCrcs, capacity);
    }
    removedIds[size] = removedId;
    keptIds[size] = keptId;
    rules[size] = rule.id;
    scores[size] = (float) score;
    removedTimes[size] = removed.time();
    removedCrcs[size] = removed.crc();
    keptTimes[size] = kept.time();
    keptCrcs[size] = kept.crc();
    size++;
  }

  public int size() {
    return size;
  }

  public long removedId(int i) {
    return removedIds[i];
  }

  public long keptId(int i) {
    return keptIds[i];
  }

  public Rule rule(int i) {
    return Rule.byId(rules[i]);
  }

  public double score(int i) {
    return scores[i];
  }

  public RowState removedState(int i) {
    return new RowState(removedTimes[i], removedCrcs[i]);
  }

  public RowState keptState(int i) {
    return new RowState(keptTimes[i], keptCrcs[i]);
  }

  /** The rules of its removals (method names). */
  public Set<String> rules() {
    boolean[] seen = new boolean[256];
    Set<String> labels = new TreeSet<>();
    for (int i = 0; i < size; i++) {
      if (!seen[rules[i] & 0xff]) {
        seen[rules[i] & 0xff] = true;
        labels.add(rule(i).label);
      }
    }
    return labels;
  }

  public long count(Rule rule) {
    long n = 0;
    for (int i = 0; i < size; i++) {
      if (rules[i] == rule.id) {
        n++;
      }
    }
    return n;
  }

  /**
   * Positions of the plan ordered by removed id. Writing the plan in this order makes the archive
   * inserts and source deletes walk both primary keys in order instead of jumping around.
   */
  public int[] orderByRemovedId() {
    Integer[] order = new Integer[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Long.compare(removedIds[a], removedIds[b]));
    int[] result = new int[size];
    for (int i = 0; i < size; i++) {
      result[i] = order[i];
    }
    return result;
  }

  /**
   * Points every removal whose kept record is itself planned for removal (an exact twin of a record
   * the near pass then removed) to the record that finally stays, so the archive never points to a
   * removed row and no chain is left. Its rule becomes {@link Rule#then} the chain's last removal
   * ({@code exact+near}), so the archive says why the row went, and its score that removal's: the
   * row is an exact copy of a row the near pass removed, and joins the survivor with that decision.
   * The state of both rows stays: the removed row's own, and the final kept row's as the last
   * removal of the chain recorded it. The decision rests on what the index held of the rows in
   * between (the twin had the removed row's key when the near pass joined it to the final row), not
   * on what they hold now, so the apply decides again exactly when the removed row or the final
   * kept row changed. Returns how many removals were re-pointed.
   *
   * @throws IllegalStateException if the plan has a cycle (a bug in a pass)
   */
  public int collapseChains() {
    int[] order = orderByRemovedId();
    long[] sortedRemoved = new long[size];
    for (int i = 0; i < size; i++) {
      sortedRemoved[i] = removedIds[order[i]];
    }
    int repointed = 0;
    for (int i = 0; i < size; i++) {
      long kept = keptIds[i];
      int last = -1; // the chain's last removal: its kept row stays
      int steps = 0;
      int at;
      while ((at = Arrays.binarySearch(sortedRemoved, kept)) >= 0) {
        last = order[at];
        kept = keptIds[last];
        if (++steps > size) {
          throw new IllegalStateException("the plan has a cycle through record " + removedIds[i]);
        }
      }
      if (last >= 0) {
        Rule rule = rule(i).then(rule(last));
        if (rule != rule(i)) {
          rules[i] = rule.id;
          scores[i] = scores[last];
        }
        keptIds[i] = kept;
        keptTimes[i] = keptTimes[last];
        keptCrcs[i] = keptCrcs[last];
        repointed++;
      }
    }
    return repointed;
  }

  /**
   * Drops every removal whose removed and kept rows are marked apart ({@link ApartPairs}): the
   * removed row stays. Call it after the chains are collapsed: then no removal is kept in favour of
   * a removed row, so dropping one leaves no removal pointing to a row that stays for another
   * reason. Returns how many were dropped.
   *
   * <p>Pairwise, as the near and simhash passes honour the marks: the exact pass keeps two rows
   * marked apart out of one cluster ({@link ApartClusters}), but a cluster of the near pass may
   * still hold a row and a row it is marked apart from when both were removed for a third. Doing
   * more here changes which rows the near pass removes and so which rows a later restore marks.
   */
  public int dropApart(ApartPairs apart) {
    if (apart.isEmpty()) {
      return 0;
    }
    int kept = 0;
    for (int i = 0; i < size; i++) {
      if (apart.isMarked(removedIds[i]) && apart.keepsApart(removedIds[i], keptIds[i])) {
        continue;
      }
      removedIds[kept] = removedIds[i];
      keptIds[kept] = keptIds[i];
      rules[kept] = rules[i];
      scores[kept] = scores[i];
      removedTimes[kept] = removedTimes[i];
      removedCrcs[kept] = removedCrcs[i];
      keptTimes[kept] = keptTimes[i];
      keptCrcs[kept] = keptCrcs[i];
      kept++;
    }
    int dropped = size - kept;
    size = kept;
    return dropped;
  }

  /**
   * A row the plan both removes and keeps another row for, or -1 when there is none: a plan whose
   * chains are collapsed has none, and applying one that had would archive a row in favour of a row
   * it also archives. A distributed run checks its merged plan with it before the apply.
   */
  public long keptAndRemoved() {
    long[] removed = removedIdsSorted();
    for (int i = 0; i < size; i++) {
      if (Arrays.binarySearch(removed, keptIds[i]) >= 0) {
        return keptIds[i];
      }
    }
    return -1;
  }

  /** The ids removed by one rule, sorted. */
  public long[] removedIdsSorted(Rule rule) {
    long[] ids = new long[size];
    int n = 0;
    for (int i = 0; i < size; i++) {
      if (rules[i] == rule.id) {
        ids[n++] = removedIds[i];
      }
    }
    ids = Arrays.copyOf(ids, n);
    Arrays.sort(ids);
    return ids;
  }

  /** The removed ids, sorted (for index deletes). */
  public long[] removedIdsSorted() {
    long[] ids = Arrays.copyOf(removedIds, size);
    Arrays.sort(ids);
    return ids;
  }
}
