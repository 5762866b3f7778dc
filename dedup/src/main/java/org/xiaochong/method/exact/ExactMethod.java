package org.xiaochong.method.exact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.lucene.index.DirectoryReader;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.fingerprint.FingerprintVersion;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.MethodCheck;
import org.xiaochong.method.MethodContext;
import org.xiaochong.method.MethodReport;
import org.xiaochong.method.MethodRun;
import org.xiaochong.method.RecordIndexRun;
import org.xiaochong.method.RecordKeys;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.SampleGroup;
import org.xiaochong.pass.Window;

/**
 * Exact duplicates: the same MD5 of the normalized {@code fields.exact} ({@link ExactPass}). Its
 * keys are the record index's own, so it indexes nothing else and its prefilter is the record key
 * filter, which the runner keeps in step with the record index.
 */
public final class ExactMethod implements FingerprintMethod {
  /** The method's name, and the rule of its removals. */
  public static final String NAME = "exact";

  /** The rule of the exact pass's removals. */
  public static final DeletionPlan.Rule RULE = DeletionPlan.Rule.of(NAME);

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String formatVersion() {
    return FingerprintVersion.CURRENT.name();
  }

  @Override
  public MethodRun open(MethodContext context) {
    return (RecordIndexRun)
        (records, plan, window) ->
            pass(records, plan, window, context.apart(), context.spec().keepPolicy());
  }

  /** The record index is the caller's, writable or not as it opened it. */
  @Override
  public Optional<MethodCheck<?>> openCheck(MethodContext context, boolean writable) {
    return Optional.of(
        new ExactCheck(
            context.recordIndex(), context.spec(), context.prefilter(), context.notes()));
  }

  private static MethodReport pass(
      RecordKeys records,
      DeletionPlan plan,
      Window window,
      ApartPairs apart,
      org.xiaochong.policy.KeepPolicy keepPolicy) {
    try (DirectoryReader reader = records.index().openReader()) {
      ExactPass pass =
          new ExactPass(new IndexSnapshot(reader, keepPolicy), records.keyFilter(), apart);
      if (plan.size() == 0) {
        return new Report(pass.run(window, plan));
      }
      // After another method: its removals take no part, and removals kept in favour of one are
      // re-pointed.
      DeletionPlan own = new DeletionPlan();
      ExactPass.Result result = pass.run(window, own);
      long[] planned = plan.removedIdsSorted();
      for (int i = 0; i < own.size(); i++) {
        if (Arrays.binarySearch(planned, own.removedId(i)) < 0) {
          plan.add(
              own.removedId(i),
              own.keptId(i),
              own.rule(i),
              own.score(i),
              own.removedState(i),
              own.keptState(i));
        }
      }
      plan.collapseChains();
      return new Report(result);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private record Report(ExactPass.Result result) implements MethodReport {
    @Override
    public long examined() {
      return result.recordsExamined();
    }

    @Override
    public Map<String, Object> json(long removed) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("groups", result.groups());
      json.put("removed", removed);
      json.put("lookups", result.lookups());
      json.put("lookups_skipped", result.lookupsSkipped());
      return json;
    }

    @Override
    public String consoleLine(long removed, boolean applied) {
      return String.format(
          "exact: %,d groups, %,d duplicates %s",
          result.groups(), removed, applied ? "removed" : "to remove");
    }

    @Override
    public List<SampleGroup> samples() {
      return result.samples();
    }

    @Override
    public long recordFilterFalsePositives() {
      return result.lookupsAlone();
    }
  }
}
