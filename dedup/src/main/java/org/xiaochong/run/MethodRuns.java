package org.xiaochong.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.lucene.util.IOUtils;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.FingerprintMethods;
import org.xiaochong.method.MethodContext;
import org.xiaochong.method.MethodReport;
import org.xiaochong.method.MethodRun;
import org.xiaochong.method.RecordKeys;
import org.xiaochong.pass.Window;
import org.xiaochong.source.RecordSource;

/**
 * The methods' parts of one run: those the run selected, whose passes run in the order given, and
 * (for an applied run or a restore) the other methods' built indexes, which only follow the rows
 * removed or put back. Closes them all. Not thread-safe: one instance per run.
 */
final class MethodRuns implements AutoCloseable {
  private final Map<FingerprintMethod, MethodRun> selected = new LinkedHashMap<>();
  private final Map<FingerprintMethod, MethodRun> kept = new LinkedHashMap<>();

  private MethodRuns() {}

  /**
   * Opens the selected methods and, when {@code keepOthersInStep}, the other known methods' built
   * indexes. Closes what it opened if one fails.
   */
  static MethodRuns open(
      List<FingerprintMethod> methods, boolean keepOthersInStep, MethodContext context) {
    MethodRuns runs = new MethodRuns();
    try {
      for (FingerprintMethod method : methods) {
        runs.selected.put(method, method.open(context));
      }
      if (keepOthersInStep) {
        for (FingerprintMethod method : FingerprintMethods.known()) {
          if (!runs.selected.containsKey(method)) {
            method.openIfBuilt(context).ifPresent(run -> runs.kept.put(method, run));
          }
        }
      }
      return runs;
    } catch (RuntimeException e) {
      try {
        runs.close();
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** Every method's built index, to follow the rows a restore puts back. */
  static MethodRuns openBuilt(List<FingerprintMethod> methods, MethodContext context) {
    MethodRuns runs = new MethodRuns();
    try {
      for (FingerprintMethod method : methods) {
        Optional<MethodRun> run = method.openIfBuilt(context);
        run.ifPresent(r -> runs.kept.put(method, r));
      }
      return runs;
    } catch (RuntimeException e) {
      runs.close();
      throw e;
    }
  }

  /** The first selected method whose own index was new when opened; null when none. */
  String newIndexOf() {
    return selected.entrySet().stream()
        .filter(e -> e.getValue().ownsIndex() && e.getValue().indexIsNew())
        .map(e -> e.getKey().name())
        .findFirst()
        .orElse(null);
  }

  /**
   * Runs each selected method in turn: syncs its own index (stage {@code <name>_index}), leaving
   * out the rows the earlier passes removed, then its pass (stage {@code <name>}). Returns the
   * reports by method name, in run order.
   */
  Map<String, MethodReport> passes(
      RecordSource source, RecordKeys records, DeletionPlan plan, Window window, StageClock clock) {
    Map<String, MethodReport> reports = new LinkedHashMap<>();
    for (Map.Entry<FingerprintMethod, MethodRun> e : selected.entrySet()) {
      String name = e.getKey().name();
      MethodRun run = e.getValue();
      long t = System.nanoTime();
      if (run.ownsIndex()) {
        run.sync(source, plan.removedIdsSorted());
        clock.ended(name + "_index", t);
        t = System.nanoTime();
      }
      reports.put(name, run.pass(records, plan, window));
      clock.ended(name, t);
    }
    return reports;
  }

  private List<MethodRun> all() {
    List<MethodRun> all = new ArrayList<>(selected.values());
    all.addAll(kept.values());
    return all;
  }

  /** Drops these ids (ascending) from every own index and its filter. */
  void delete(long[] idsSorted) {
    all().forEach(run -> run.delete(idsSorted));
  }

  /** Saves every own filter. */
  void save() {
    all().forEach(MethodRun::save);
  }

  /** Brings every own index up to date with the table (nothing left out), then saves its filter. */
  void syncAndSave(RecordSource source) {
    for (MethodRun run : all()) {
      run.sync(source, new long[0]);
      run.save();
    }
  }

  /** The own filters' work, by method name, for {@code summary.json}. */
  Map<String, Map<String, Object>> prefilterJson() {
    Map<String, Map<String, Object>> json = new LinkedHashMap<>();
    selected.forEach((method, run) -> put(json, method, run));
    kept.forEach((method, run) -> put(json, method, run));
    return json;
  }

  private static void put(
      Map<String, Map<String, Object>> json, FingerprintMethod method, MethodRun run) {
    Map<String, Object> stats = run.prefilterJson();
    if (stats != null) {
      json.put(method.name(), stats);
    }
  }

  /** Closes every run, the first failure thrown after all were tried. */
  @Override
  public void close() {
    try {
      IOUtils.close(all());
    } catch (IOException e) { // the runs throw none: Lucene's close declares it
      throw new UncheckedIOException(e);
    }
  }
}
