package org.xiaochong.archive;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.lucene.util.IOUtils;
import org.xiaochong.index.RecordDocumentMaker;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * Decides again, on what two rows hold now, whether a planned removal still stands. The apply asks
 * it, while it holds the row locks, for every planned row whose removed or kept row no longer has
 * the time and checksum the pass decided on, so a row edited, re-dated or replaced after the index
 * was built is never removed for what it used to hold.
 *
 * <p>A removal stands when the kept row is still preferred by the keep policy ({@link KeepPolicy},
 * ranked on the rows as they are now: the policy's columns are read with the fingerprint columns)
 * and the two rows are still duplicates: the same exact key (as the index computes it), or by the
 * rule of one of the methods whose removals the plan holds ({@link PairCheck}). Any of those, not
 * only the rule that found the pair: when a later method removed the kept row of an earlier
 * removal, the plan re-pointed that removal to the later method's survivor, so the pair is one of
 * that later method. A method outside the plan never decides: in an exact-only run a row that is no
 * longer an exact copy stays.
 *
 * <p>Not thread-safe (the key makers keep buffers): one per apply worker.
 */
final class DecisionCheck implements AutoCloseable {
  private final RecordDocumentMaker exact;
  private final KeepPolicy keepPolicy;
  private final List<String> columns;
  private final List<String> planRules;
  private final PairCheck.Factory factory;

  /** The pair checks of {@link #planRules}, opened when first needed. */
  private final Map<String, PairCheck> opened = new HashMap<>();

  /**
   * @param factory the methods' pair checks
   * @param planRules the rules of the plan's removals (method names, or two joined by '+')
   */
  DecisionCheck(TableSpec spec, PairCheck.Factory factory, Collection<String> planRules) {
    this.exact = new RecordDocumentMaker(spec);
    this.keepPolicy = spec.keepPolicy();
    this.columns = spec.fingerprintColumns();
    this.factory = factory;
    // A combined rule (exact+near) names the methods whose decisions removed the row: each may
    // decide.
    TreeSet<String> methods = new TreeSet<>();
    planRules.forEach(rule -> methods.addAll(DeletionPlan.Rule.of(rule).methods()));
    this.planRules = List.copyOf(methods);
  }

  /**
   * True when {@code removed} may still be removed in favour of {@code kept}.
   *
   * @param keptKey the exact key of {@code kept} ({@link #exactKey}; a kept row is shared by many)
   */
  boolean stillHolds(SourceRecord removed, SourceRecord kept, byte[] keptKey) {
    if (!KeepPolicy.isPreferred(
        keepPolicy.rank(kept, columns),
        kept.id(),
        keepPolicy.rank(removed, columns),
        removed.id())) {
      return false;
    }
    if (Arrays.equals(exact.exactKey(removed), keptKey)) {
      return true;
    }
    for (String rule : planRules) {
      PairCheck check = opened.computeIfAbsent(rule, factory::open);
      if (check.duplicates(removed, kept)) {
        return true;
      }
    }
    return false;
  }

  /** The exact key of a row, as the index computes it (a new array). */
  byte[] exactKey(SourceRecord row) {
    return exact.exactKey(row);
  }

  /**
   * Reads a row laid out as {@link #columns}: its id, its time, then {@link
   * TableSpec#fingerprintColumns()}, from column {@code first} on; as the UTF-8 bytes the server
   * sent when {@code utf8} (see {@link RecordSource#columnsAreUtf8}), as the indexing does.
   */
  static SourceRecord read(ResultSet rs, int first, int fingerprintColumns, boolean utf8)
      throws SQLException {
    long id = rs.getLong(first);
    long time = RecordSource.toMillis(RecordSource.readTime(rs, first + 1));
    if (utf8) {
      byte[][] values = new byte[fingerprintColumns][];
      for (int i = 0; i < values.length; i++) {
        values[i] = rs.getBytes(first + 2 + i);
      }
      return SourceRecord.ofUtf8(id, time, values);
    }
    String[] values = new String[fingerprintColumns];
    for (int i = 0; i < values.length; i++) {
      values[i] = rs.getString(first + 2 + i);
    }
    return new SourceRecord(id, time, values);
  }

  /** The select list {@link #read} expects, for the table alias {@code alias}. */
  static String columns(TableSpec spec, String alias) {
    StringBuilder select = new StringBuilder();
    select.append(alias).append('.').append(TableSpec.quote(spec.idColumn()));
    select.append(", ").append(alias).append('.').append(TableSpec.quote(spec.timeColumn()));
    for (String column : spec.fingerprintColumns()) {
      select.append(", ").append(alias).append('.').append(TableSpec.quote(column));
    }
    return select.toString();
  }

  /** Closes the pair checks opened, the first failure thrown after all were tried. */
  @Override
  public void close() {
    try {
      IOUtils.close(opened.values());
    } catch (IOException e) { // the checks throw none: Lucene's close declares it
      throw new UncheckedIOException(e);
    }
  }
}
