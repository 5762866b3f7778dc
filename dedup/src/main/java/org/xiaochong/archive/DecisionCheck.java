package org.xiaochong.archive;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import org.xiaochong.fingerprint.NearConfig;
import org.xiaochong.fingerprint.TopTermsMd5;
import org.xiaochong.index.ExactDocumentMaker;
import org.xiaochong.index.NearDocumentMaker;
import org.xiaochong.pass.NearRule;
import org.xiaochong.policy.KeepLatestPolicy;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * Decides again, on what two rows hold now, whether a planned removal still stands. The apply asks
 * it, while it holds the row locks, for every planned row whose removed or kept row no longer has
 * the time and checksum the pass decided on, so a row edited, re-dated or replaced after the index
 * was built is never removed for what it used to hold.
 *
 * <p>A removal stands when the kept row is still preferred by the keep policy ({@link
 * KeepLatestPolicy}: later time, then larger id) and the two rows are still duplicates by the rule
 * that found them, computed with the indexing code: the same exact key, or, for the near rule, the
 * near rule ({@link NearRule#isNearDuplicate}) on fresh fingerprints (an exact copy is a near
 * duplicate too). An exact removal stands on the near rule only in a run that had a near pass: when
 * that pass removed its kept row, the plan re-pointed it to that row's near survivor, which holds
 * another exact key. In an exact-only run a row that is no longer an exact copy stays.
 *
 * <p>Not thread-safe (the key makers keep buffers): one per apply worker.
 */
final class DecisionCheck implements AutoCloseable {
  private final TableSpec spec;
  private final NearConfig nearConfig;
  private final boolean nearRuleForExact;
  private final ExactDocumentMaker exact;
  private TopTermsMd5 fingerprinter;
  private NearDocumentMaker near;

  /**
   * @param nearConfig the near rule's settings (the near fingerprinter loads only when a near row is checked)
   * @param runHadNearPass whether the run's plan has near removals, so that exact removals may have
   *     been re-pointed to a near survivor
   */
  DecisionCheck(TableSpec spec, NearConfig nearConfig, boolean runHadNearPass) {
    this.spec = spec;
    this.nearConfig = nearConfig;
    this.nearRuleForExact = runHadNearPass;
    this.exact = new ExactDocumentMaker(spec);
  }

  /**
   * True when {@code removed} may still be removed in favour of {@code kept} under {@code rule}.
   *
   * @param keptKey the exact key of {@code kept} ({@link #exactKey}; a kept row is shared by many)
   */
  boolean stillHolds(DeletionPlan.Rule rule, SourceRecord removed, SourceRecord kept, byte[] keptKey) {
    if (!KeepLatestPolicy.isPreferred(kept.regTime(), kept.id(), removed.regTime(), removed.id())) {
      return false;
    }
    if (Arrays.equals(exact.exactKey(removed), keptKey)) {
      return true;
    }
    boolean nearRuleApplies = rule == DeletionPlan.Rule.NEAR || nearRuleForExact;
    return nearRuleApplies && !spec.nearFields().isEmpty() && nearDuplicates(removed, kept);
  }

  /** The exact key of a row, as the index computes it (a new array). */
  byte[] exactKey(SourceRecord row) {
    return exact.exactKey(row);
  }

  private boolean nearDuplicates(SourceRecord removed, SourceRecord kept) {
    if (near == null) {
      fingerprinter = new TopTermsMd5(nearConfig);
      near = new NearDocumentMaker(spec, fingerprinter);
    }
    NearRule.Stored removedKeys = NearRule.Stored.of(near.fingerprint(removed), nearConfig.pre(), near.matchKeys(removed));
    NearRule.Stored keptKeys = NearRule.Stored.of(near.fingerprint(kept), nearConfig.pre(), near.matchKeys(kept));
    return NearRule.isNearDuplicate(removedKeys, keptKeys, nearConfig);
  }

  /**
   * Reads a row laid out as {@link #columns}: its id, its time, then {@link
   * TableSpec#fingerprintColumns()}, from column {@code first} on; as the UTF-8 bytes the server sent
   * when {@code utf8} (see {@link RecordSource#columnsAreUtf8}), as the indexing does.
   */
  static SourceRecord read(ResultSet rs, int first, int fingerprintColumns, boolean utf8) throws SQLException {
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

  @Override
  public void close() {
    if (fingerprinter != null) {
      fingerprinter.close();
    }
  }
}
