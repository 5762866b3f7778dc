package org.xiaochong.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.cli.ConfigOptions;
import org.xiaochong.config.ConfiguredIndex;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.eval.EvalDatasets;
import org.xiaochong.eval.LostPairs;
import org.xiaochong.eval.Truth;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.method.linkage.LinkageExplain;
import org.xiaochong.method.linkage.LinkageMethod;
import org.xiaochong.method.near.NearMethod;
import org.xiaochong.method.near.NearSettings;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;

/**
 * The runs of {@code dedup eval}: one method on a fresh copy of a data set's table with a fresh
 * index, as a dry run, scored against the truth and printed as one row of the data set's table. Not
 * thread-safe.
 */
final class EvalRuns {
  /** Most reasons printed per data set. */
  private static final int TOP_REASONS = 6;

  private final Path dataDir;
  private final Map<String, String> overrides;

  /** Lines the runs add under the table of the data set (loss reasons, recall per kind). */
  private final List<String> extra = new ArrayList<>();

  /**
   * @param dataDir folder of the runs' indexes
   * @param overrides settings applied to every run on top of the default config (eval --set)
   */
  EvalRuns(Path dataDir, Map<String, String> overrides) {
    this.dataDir = dataDir;
    this.overrides = overrides;
  }

  /**
   * Up to five wrong removals of a plan, the lowest removed ids first (the plan's own order follows
   * the index's documents, which the indexing threads order), each with both rows' compared values,
   * for diagnosis.
   */
  private static List<String> wrongRemovals(
      Database database, String table, EvalDatasets.Loaded loaded, DeletionPlan plan) {
    List<String> lines = new ArrayList<>();
    for (int i : plan.orderByRemovedId()) {
      if (lines.size() == 5) {
        break;
      }
      long removed = plan.removedId(i);
      long kept = plan.keptId(i);
      if (loaded.truth().sameCluster(removed, kept)) {
        continue;
      }
      String columns = String.join(",", loaded.exact().stream().map(TableSpec::quote).toList());
      List<String> rows =
          database
              .jdbi()
              .withHandle(
                  h ->
                      h.createQuery(
                              "SELECT CONCAT_WS(' | ', "
                                  + columns
                                  + ") FROM "
                                  + TableSpec.quote(table)
                                  + " WHERE id IN (?, ?) ORDER BY id = ? DESC")
                          .bind(0, removed)
                          .bind(1, kept)
                          .bind(2, removed)
                          .mapTo(String.class)
                          .list());
      lines.add(
          String.format(
              java.util.Locale.ROOT,
              "wrong removal (p %.3f): %s  <=>  %s",
              plan.score(i),
              rows.isEmpty() ? "?" : rows.get(0),
              rows.size() < 2 ? "?" : rows.get(1)));
    }
    return lines;
  }

  /** The true pairs a linkage run lost, by first reason ({@link LinkageExplain}). */
  private static List<String> linkageLosses(
      DedupConfig config, EvalDatasets.Loaded loaded, DeletionPlan plan) {
    List<long[]> lost = LostPairs.lost(loaded, plan);
    try (LinkageExplain explain =
        LinkageExplain.open(
                config.indexDir().resolve(LinkageMethod.NAME),
                config.table(),
                config.methodSettings())
            .orElse(null)) {
      if (explain == null) {
        return List.of();
      }
      return List.of(
          LostPairs.line("method 5", lost.size(), loaded, explain.reasons(lost), TOP_REASONS));
    }
  }

  /** The lines the runs added since the last call, to print under the table. */
  List<String> takeNotes() {
    List<String> notes = List.copyOf(extra);
    extra.clear();
    return notes;
  }

  DedupRunner.Outcome run(
      Database database, EvalDatasets.Loaded loaded, String[] method, PrintWriter out)
      throws IOException {
    return run(database, loaded, method, out, Map.of());
  }

  /**
   * Runs one method with the data set's fields and {@code settings} on top of the default config.
   */
  DedupRunner.Outcome run(
      Database database,
      EvalDatasets.Loaded loaded,
      String[] method,
      PrintWriter out,
      Map<String, String> settings)
      throws IOException {
    String copy = loaded.table() + "_" + method[0];
    database
        .jdbi()
        .useHandle(
            h -> {
              h.execute("DROP TABLE IF EXISTS " + TableSpec.quote(copy));
              h.execute(
                  "CREATE TABLE "
                      + TableSpec.quote(copy)
                      + " LIKE "
                      + TableSpec.quote(loaded.table()));
              h.execute(
                  "INSERT INTO "
                      + TableSpec.quote(copy)
                      + " SELECT * FROM "
                      + TableSpec.quote(loaded.table()));
            });
    Path indexDir = dataDir.resolve("index").resolve(copy);
    EvalCommand.deleteTree(indexDir);
    Properties props = new Properties();
    props.setProperty("data.dir", dataDir.toString());
    props.setProperty("source.table", copy);
    props.setProperty("index.dir", indexDir.toString());
    props.setProperty("fields.exact", String.join(",", loaded.exact()));
    props.setProperty("fields.near", String.join(",", loaded.near()));
    overrides.forEach(props::setProperty);
    settings.forEach(props::setProperty);
    DedupConfig config = DedupConfig.fromProperties(props, java.util.Map.of());
    DedupRunner.Outcome outcome;
    try (FingerprintIndex index = ConfiguredIndex.open(config, true)) {
      outcome =
          ConfigOptions.runner(config, database, index, Progress.NONE, note -> {})
              .run(new DedupRunner.Options(method[0], null, null, false, true));
    }
    if (method[0].equals("near") && loaded.pairs() == null) {
      try (FingerprintIndex nearIndex =
          NearMethod.openReadOnlyIfBuilt(
                  config.indexDir(), config.fieldsDigest(), config.table(), config.methodSettings())
              .orElse(null)) {
        extra.addAll(
            LostPairs.explain(
                loaded,
                outcome.plan(),
                nearIndex,
                NearSettings.of(config.methodSettings()),
                TOP_REASONS));
      }
    }
    outcome
        .summary()
        .report(LinkageMethod.NAME)
        .ifPresent(
            report -> {
              extra.addAll(LinkageMethod.describe(report));
              if (loaded.pairs() == null) {
                extra.addAll(wrongRemovals(database, copy, loaded, outcome.plan()));
                extra.addAll(linkageLosses(config, loaded, outcome.plan()));
              }
            });
    EvalDatasets.drop(database, copy);
    EvalCommand.deleteTree(indexDir);
    double seconds = outcome.summary().totalSeconds();
    double rate = seconds > 0 ? loaded.truth().records() / seconds : 0;
    if (loaded.pairs() != null) {
      Truth.UnionFind merged = Truth.UnionFind.of(outcome.plan());
      long neg = 0;
      long negMerged = 0;
      long pos = 0;
      long posMerged = 0;
      for (int i = 0; i < loaded.pairs().size(); i++) {
        long[] p = loaded.pairs().get(i);
        boolean same = merged.same(p[0], p[1]);
        if (loaded.pairLabels().get(i)) {
          pos++;
          posMerged += same ? 1 : 0;
        } else {
          neg++;
          negMerged += same ? 1 : 0;
        }
      }
      out.printf(
          "| %s | %.4f (%,d of %,d) | %.4f (%,d of %,d) | %.1f | %,.0f |%n",
          method[1],
          neg == 0 ? 0.0 : (double) negMerged / neg,
          negMerged,
          neg,
          pos == 0 ? 0.0 : (double) posMerged / pos,
          posMerged,
          pos,
          seconds,
          rate);
    } else {
      Truth.Score s = loaded.truth().score(outcome.plan());
      out.printf(
          "| %s | %.4f | %.4f | %.4f | %,d | %.1f | %,.0f | %s | %s |%n",
          method[1],
          s.precision(),
          s.recall(),
          s.f1(),
          s.removals(),
          seconds,
          rate,
          method[2],
          method[3]);
    }
    return outcome;
  }
}
