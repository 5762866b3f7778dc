package org.xiaochong.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.eval.EvalDatasets;
import org.xiaochong.posts.PostGenerator;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code dedup eval}: precision/recall of the three methods of the seed's Table 1, and of simhash,
 * on labelled data.
 */
@Command(
    name = "eval",
    mixinStandardHelpOptions = true,
    description = {
      "Runs method 1 (exact then near: --method both), 2 (exact only), 3 (near",
      "only) and 4 (simhash only, not in the seed's table) on a labelled data set in",
      "an embedded MariaDB (data in --data-dir), each",
      "on a fresh copy of the table with a fresh index, as a dry run, and prints the",
      "seed's Table 1 (seed 002: P/R m1 95.1/96.3, m2 98.7/89.5, m3 90.2/95.8) for",
      "it. A removed record is correct when its kept record is in its true cluster;",
      "precision = correct removals / removals; recall = correct removals / Σ over",
      "true clusters (size − 1); F1 their harmonic mean; seconds = the run (index +",
      "passes) without loading; records/s = records / seconds. Data sets: generated",
      "(PostGenerator, --records), and when ../shared/data or /work/shared/data",
      "exists: restaurants, cora (pair files), febrl1-3 (cluster in rec_id, not",
      "loaded), childcare (True Id, not loaded), freedb (CDs, pair file), patstat",
      "(inventor names, leuven_id clusters, not loaded), pawsx (zh sentence pairs: share of",
      "label-0 pairs merged = false-positive rate, share of label-1 pairs merged).",
      "Only fields.exact / fields.near differ per data set; all else is the default",
      "config; pawsx also runs method 3 with the order-aware near.shingles=true.",
      "Under each table: the true pairs method 3 lost, by first reason",
      "(NearExplain), and for generated data the near recall per kind of edit."
    })
final class EvalCommand implements Callable<Integer> {
  @Mixin ExitCodes.Help exitCodes;
  static final List<String> DATASETS =
      List.of(
          "generated",
          "restaurants",
          "febrl1",
          "febrl2",
          "febrl3",
          "cora",
          "childcare",
          "freedb",
          "patstat",
          "pawsx");
  private static final String[] ORDERED = {
    "near", "3 near only, near.shingles=true", "90.2%", "95.8%"
  };

  /**
   * --method, label, the seed's Table 1 precision and recall (simhash is not in the seed's table).
   */
  private static final String[][] METHODS = {
    {"both", "1 exact then near", "95.1%", "96.3%"},
    {"exact", "2 exact only", "98.7%", "89.5%"},
    {"near", "3 near only", "90.2%", "95.8%"},
    {"simhash", "4 simhash only", "-", "-"},
    {"linkage", "5 linkage only", "-", "-"}
  };

  @Option(
      names = "--dataset",
      defaultValue = "generated",
      paramLabel = "NAME",
      description =
          "generated|restaurants|febrl1|febrl2|febrl3|cora|childcare|freedb|patstat|pawsx|all"
              + " (default ${DEFAULT-VALUE}).")
  String dataset;

  @Option(
      names = "--records",
      defaultValue = "20000",
      description = "Records of the generated data set (default ${DEFAULT-VALUE}).")
  long records;

  @Option(
      names = "--max-records",
      defaultValue = "0",
      description =
          "Cap on the records loaded from a real data set (0 = all; default ${DEFAULT-VALUE}).")
  long maxRecords;

  @Option(
      names = "--exact-share",
      defaultValue = "0.6",
      description =
          "Generated data: chance that a duplicate is an exact copy rather than a near one (default ${DEFAULT-VALUE};"
              + " the seed's data had about 0.9).")
  double exactShare;

  @Option(
      names = "--vocabulary",
      defaultValue = "legacy",
      paramLabel = "legacy|realistic",
      description =
          "Words of the generated posts (default ${DEFAULT-VALUE}); see `dedup generate --help`.")
  String vocabulary;

  @Option(
      names = "--seed",
      defaultValue = "20081118",
      description = "Seed of the generated data (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--data-dir",
      defaultValue = "data/eval",
      description = "Embedded database and indexes (default ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(
      names = "--shared-data",
      paramLabel = "DIR",
      description = "The labelled data folder (default: ../shared/data, then /work/shared/data).")
  Path sharedData;

  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      description =
          "Use the database of this config (db.*) instead of an embedded one in --data-dir; eval creates"
              + " and drops its own eval_* tables there.")
  Path config;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description =
          "A config setting applied to every run on top of the default config, to measure what it costs and"
              + " gives (e.g. near.grams=false, near.pre=1); repeatable. The figures of record use none.")
  Map<String, String> overrides = new java.util.LinkedHashMap<>();

  @Option(
      names = "--method",
      paramLabel = "NAME",
      split = ",",
      description =
          "Run only these of the methods (both, exact, near, simhash, linkage); default: all.")
  List<String> only = new ArrayList<>();

  @Option(names = "--verbose", description = "Print stack traces of errors.")
  boolean verbose;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    String which = dataset.toLowerCase(Locale.ROOT);
    if (!which.equals("all") && !DATASETS.contains(which)) {
      throw new BadInputException(
          "--dataset must be one of " + String.join("|", DATASETS) + "|all, not '" + dataset + "'");
    }
    if (records < 10 || records > 10_000_000) {
      throw new BadInputException("--records (" + records + ") must be in [10, 10000000]");
    }
    PostGenerator.Vocabulary words = GenerateCommand.vocabulary(vocabulary);
    PrintWriter out = spec.commandLine().getOut();
    List<String> names = which.equals("all") ? DATASETS : List.of(which);
    Path shared =
        sharedData != null
            ? sharedData
            : Files.isDirectory(Path.of("../shared/data"))
                ? Path.of("../shared/data")
                : Path.of("/work/shared/data");
    boolean haveShared = Files.isDirectory(shared);
    Files.createDirectories(dataDir);
    DedupConfig base =
        config != null
            ? DedupConfig.load(config, System.getenv())
            : DedupConfig.forDataDir(dataDir);
    List<String> runnable = new ArrayList<>();
    for (String name : names) {
      if (!name.equals("generated") && !haveShared) {
        out.println(
            "dataset "
                + name
                + ": skipped, no labelled data at "
                + shared.toAbsolutePath()
                + " (only the generated set is built in)");
      } else {
        runnable.add(name);
      }
    }
    if (runnable.isEmpty()) {
      return ExitCodes.OK;
    }
    EvalRuns runs = new EvalRuns(dataDir, overrides);
    try (Database database = Database.open(base.db())) {
      // The first runs of a JVM also pay for loading the smartcn dictionaries and for JIT
      // compilation
      // (seconds): a throwaway "both" run on 2,000 generated posts first, not counted anywhere.
      long w = System.nanoTime();
      long warmRecords = Math.min(records, 5_000);
      EvalDatasets.Loaded warm =
          new EvalDatasets(seed, warmRecords, exactShare, words, maxRecords)
              .loadGenerated(database, "eval_warmup");
      runs.run(database, warm, METHODS[0], new PrintWriter(java.io.Writer.nullWriter()));
      EvalDatasets.drop(database, warm.table());
      out.printf(
          "warm-up (smartcn dictionaries, JIT; one run on %,d generated posts): %.1f s, not counted%n",
          warmRecords, (System.nanoTime() - w) / 1e9);
      EvalDatasets datasets = new EvalDatasets(seed, records, exactShare, words, maxRecords);
      for (String name : runnable) {
        long t = System.nanoTime();
        EvalDatasets.Loaded loaded = datasets.load(database, name, shared);
        out.printf(
            "%n### %s: %,d records%s%s; loaded in %.1f s%n",
            name,
            loaded.truth().records(),
            loaded.pairs() != null
                ? ""
                : String.format(
                    ", %,d true duplicates (Σ cluster size − 1)",
                    loaded.truth().expectedRemovals()),
            loaded.note(),
            (System.nanoTime() - t) / 1e9);
        out.printf(
            "fields.exact=%s fields.near=%s%n%n",
            String.join(",", loaded.exact()), String.join(",", loaded.near()));
        if (loaded.pairs() != null) {
          out.println(
              "| method | label-0 pairs merged (false positives) | label-1 pairs merged | seconds | records/s |");
          out.println("|---|---|---|---|---|");
        } else {
          out.println(
              "| method | precision | recall | F1 | removals | seconds | records/s | seed P | seed R |");
          out.println("|---|---|---|---|---|---|---|---|---|");
        }
        List<String> notes = new ArrayList<>();
        for (String[] method : METHODS) {
          if (!only.isEmpty() && !only.contains(method[0])) {
            continue;
          }
          DedupRunner.Outcome outcome = runs.run(database, loaded, method, out);
          notes.add(
              "stages of method " + method[1].charAt(0) + " (s): " + outcome.summary().seconds());
          notes.addAll(runs.takeNotes());
          var near =
              outcome
                  .summary()
                  .report("near")
                  .flatMap(org.xiaochong.method.near.NearMethod::stats)
                  .orElse(null);
          if (near != null && method[0].equals("near")) {
            notes.add(
                String.format(
                    "near pass (method 3): %,d records examined, %,d without fingerprints %s, %,d"
                        + " candidates compared",
                    near.examined(), near.emptyTotal(), near.empty(), near.candidates()));
          }
        }
        if (loaded.pairs() != null && (only.isEmpty() || only.contains("near"))) {
          // One-sentence records: the order-aware option, the one setting a user of such a table
          // changes.
          runs.run(database, loaded, ORDERED, out, Map.of("near.shingles", "true"));
        }
        notes.forEach(out::println);
        EvalDatasets.drop(database, loaded.table());
        out.flush();
      }
    }
    return ExitCodes.OK;
  }

  /** Deletes a folder and everything in it; nothing when it does not exist. */
  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
