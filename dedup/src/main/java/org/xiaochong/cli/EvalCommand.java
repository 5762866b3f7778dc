package org.xiaochong.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.xiaochong.demo.PostGenerator;
import org.xiaochong.eval.Truth;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.load.DelimitedReader;
import org.xiaochong.load.TableLoader;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.run.Progress;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code dedup eval}: precision/recall of the three methods of the seed's Table 1 on labelled data. */
@Command(
    name = "eval",
    mixinStandardHelpOptions = true,
    description = {
      "Runs method 1 (exact then near: --method both), 2 (exact only) and 3 (near",
      "only) on a labelled data set in an embedded MariaDB (data in --data-dir), each",
      "on a fresh copy of the table with a fresh index, as a dry run, and prints the",
      "seed's Table 1 (seed 002: P/R m1 95.1/96.3, m2 98.7/89.5, m3 90.2/95.8) for",
      "it. A removed record is correct when its kept record is in its true cluster;",
      "precision = correct removals / removals; recall = correct removals / Σ over",
      "true clusters (size − 1); F1 their harmonic mean; seconds = the run (index +",
      "passes) without loading; records/s = records / seconds. Data sets: generated",
      "(PostGenerator, --records), and when ../shared/data or /work/shared/data",
      "exists: restaurants, cora (pair files), febrl1-3 (cluster in rec_id, not",
      "loaded), childcare (True Id, not loaded), pawsx (zh sentence pairs: share of",
      "label-0 pairs merged = false-positive rate, share of label-1 pairs merged).",
      "Only fields.exact / fields.near differ per data set; all else is the default",
      "config."
    },
    footer = {"", "Exit codes: 0 success, 1 unexpected error (details with --verbose), 2 usage error."})
final class EvalCommand implements Callable<Integer> {
  static final List<String> DATASETS =
      List.of("generated", "restaurants", "febrl1", "febrl2", "febrl3", "cora", "childcare", "pawsx");
  private static final String[][] METHODS = {
    {"both", "1 exact then near", "95.1", "96.3"},
    {"exact", "2 exact only", "98.7", "89.5"},
    {"near", "3 near only", "90.2", "95.8"}
  };

  @Option(names = "--dataset", defaultValue = "generated", paramLabel = "NAME",
      description = "generated|restaurants|febrl1|febrl2|febrl3|cora|childcare|pawsx|all (default ${DEFAULT-VALUE}).")
  String dataset;

  @Option(names = "--records", defaultValue = "20000",
      description = "Records of the generated data set (default ${DEFAULT-VALUE}).")
  long records;

  @Option(names = "--max-records", defaultValue = "0",
      description = "Cap on the records loaded from a real data set (0 = all; default ${DEFAULT-VALUE}).")
  long maxRecords;

  @Option(names = "--exact-share", defaultValue = "0.6",
      description = "Generated data: chance that a duplicate is an exact copy rather than a near one (default ${DEFAULT-VALUE};"
          + " the seed's data had about 0.9).")
  double exactShare;

  @Option(names = "--seed", defaultValue = "20081118", description = "Seed of the generated data (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--data-dir", defaultValue = "data/eval",
      description = "Embedded database and indexes (default ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(names = "--shared-data", paramLabel = "DIR",
      description = "The labelled data folder (default: ../shared/data, then /work/shared/data).")
  Path sharedData;

  @Option(names = {"-c", "--config"}, paramLabel = "FILE",
      description = "Use the database of this config (db.*) instead of an embedded one in --data-dir; eval creates"
          + " and drops its own eval_* tables there.")
  Path config;

  @Option(names = "--verbose", description = "Print stack traces of errors.")
  boolean verbose;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** A loaded data set: its table, truth, fields and (pawsx) pairs. */
  record Loaded(String table, Truth truth, List<String> exact, List<String> near, List<long[]> pairs,
      List<Boolean> pairLabels, String note) {}

  @Override
  public Integer call() throws IOException {
    String which = dataset.toLowerCase(Locale.ROOT);
    if (!which.equals("all") && !DATASETS.contains(which)) {
      throw new BadInputException("--dataset must be one of " + String.join("|", DATASETS) + "|all, not '" + dataset + "'");
    }
    if (records < 10 || records > 10_000_000) {
      throw new BadInputException("--records (" + records + ") must be in [10, 10000000]");
    }
    PrintWriter out = spec.commandLine().getOut();
    List<String> names = which.equals("all") ? DATASETS : List.of(which);
    Path shared = sharedData != null ? sharedData
        : Files.isDirectory(Path.of("../shared/data")) ? Path.of("../shared/data") : Path.of("/work/shared/data");
    boolean haveShared = Files.isDirectory(shared);
    Files.createDirectories(dataDir);
    DedupConfig base = config != null ? DedupConfig.load(config, System.getenv()) : DedupConfig.forDataDir(dataDir);
    List<String> runnable = new ArrayList<>();
    for (String name : names) {
      if (!name.equals("generated") && !haveShared) {
        out.println("dataset " + name + ": skipped, no labelled data at " + shared.toAbsolutePath()
            + " (only the generated set is built in)");
      } else {
        runnable.add(name);
      }
    }
    if (runnable.isEmpty()) {
      return ExitCodes.OK;
    }
    try (Database database = Database.open(base.db())) {
      // The first runs of a JVM also pay for loading the smartcn dictionaries and for JIT compilation
      // (seconds): a throwaway "both" run on 2,000 generated posts first, not counted anywhere.
      long w = System.nanoTime();
      long wanted = records;
      records = Math.min(wanted, 5_000);
      Loaded warm = loadGenerated(database, "eval_warmup");
      records = wanted;
      runMethod(database, warm, METHODS[0], new PrintWriter(java.io.Writer.nullWriter()));
      drop(database, warm.table());
      out.printf("warm-up (smartcn dictionaries, JIT; one run on %,d generated posts): %.1f s, not counted%n", Math.min(wanted, 5_000),
          (System.nanoTime() - w) / 1e9);
      for (String name : runnable) {
        long t = System.nanoTime();
        Loaded loaded = load(database, name, shared);
        out.printf("%n### %s: %,d records%s%s; loaded in %.1f s%n", name, loaded.truth().records(),
            loaded.pairs() != null ? "" : String.format(", %,d true duplicates (Σ cluster size − 1)",
                loaded.truth().expectedRemovals()), loaded.note(), (System.nanoTime() - t) / 1e9);
        out.printf("fields.exact=%s fields.near=%s%n%n", String.join(",", loaded.exact()), String.join(",", loaded.near()));
        if (loaded.pairs() != null) {
          out.println("| method | label-0 pairs merged (false positives) | label-1 pairs merged | seconds | records/s |");
          out.println("|---|---|---|---|---|");
        } else {
          out.println("| method | precision | recall | F1 | removals | seconds | records/s | seed P | seed R |");
          out.println("|---|---|---|---|---|---|---|---|---|");
        }
        List<String> notes = new ArrayList<>();
        for (String[] method : METHODS) {
          DedupRunner.Outcome outcome = runMethod(database, loaded, method, out);
          notes.add("stages of method " + method[1].charAt(0) + " (s): " + outcome.summary().seconds());
          var near = outcome.summary().near();
          if (near != null && method[0].equals("near")) {
            notes.add(String.format("near pass (method 3): %,d records examined, %,d without fingerprints %s, %,d"
                    + " candidates compared", near.examined(), near.emptyTotal(), near.empty(), near.candidates()));
          }
        }
        notes.forEach(out::println);
        drop(database, loaded.table());
        out.flush();
      }
    }
    return ExitCodes.OK;
  }

  private DedupRunner.Outcome runMethod(Database database, Loaded loaded, String[] method, PrintWriter out)
      throws IOException {
    String copy = loaded.table() + "_" + method[0];
    database.jdbi().useHandle(h -> {
      h.execute("DROP TABLE IF EXISTS " + TableSpec.quote(copy));
      h.execute("CREATE TABLE " + TableSpec.quote(copy) + " LIKE " + TableSpec.quote(loaded.table()));
      h.execute("INSERT INTO " + TableSpec.quote(copy) + " SELECT * FROM " + TableSpec.quote(loaded.table()));
    });
    Path indexDir = dataDir.resolve("index").resolve(copy);
    deleteTree(indexDir);
    Properties props = new Properties();
    props.setProperty("data.dir", dataDir.toString());
    props.setProperty("source.table", copy);
    props.setProperty("index.dir", indexDir.toString());
    props.setProperty("fields.exact", String.join(",", loaded.exact()));
    props.setProperty("fields.near", String.join(",", loaded.near()));
    DedupConfig config = DedupConfig.fromProperties(props, java.util.Map.of());
    DedupRunner.Outcome outcome;
    try (FingerprintIndex index = ConfigOptions.openIndex(config, true);
        FingerprintIndex nearIndex = method[0].equals("exact") ? null : ConfigOptions.openNearIndex(config, true)) {
      outcome = ConfigOptions.runner(config, database, index, nearIndex, Progress.NONE, note -> {})
          .run(new DedupRunner.Options(method[0], null, null, false, true));
    }
    drop(database, copy);
    deleteTree(indexDir);
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
      out.printf("| %s | %.4f (%,d of %,d) | %.4f (%,d of %,d) | %.1f | %,.0f |%n", method[1],
          neg == 0 ? 0.0 : (double) negMerged / neg, negMerged, neg, pos == 0 ? 0.0 : (double) posMerged / pos,
          posMerged, pos, seconds, rate);
    } else {
      Truth.Score s = loaded.truth().score(outcome.plan());
      out.printf("| %s | %.4f | %.4f | %.4f | %,d | %.1f | %,.0f | %s%% | %s%% |%n", method[1], s.precision(),
          s.recall(), s.f1(), s.removals(), seconds, rate, method[2], method[3]);
    }
    return outcome;
  }

  private Loaded load(Database database, String name, Path shared) throws IOException {
    String table = "eval_" + name;
    drop(database, table);
    return switch (name) {
      case "generated" -> loadGenerated(database, table);
      case "restaurants" -> loadWithPairs(database, table, shared.resolve("hpi-restaurants/hpi_restaurants.csv"),
          shared.resolve("hpi-restaurants/hpi_restaurants_goldstandard.csv"), List.of("class"),
          List.of("name", "addr", "city", "phone", "type"), List.of("name", "addr", "city", "phone", "type"));
      case "cora" -> loadWithPairs(database, table, shared.resolve("hpi-cora/hpi_cora.csv"),
          shared.resolve("hpi-cora/hpi_cora_goldstandard.csv"), List.of(),
          List.of("authors", "title", "booktitle", "journal", "volume", "pages", "year", "date", "publisher",
              "institution", "address", "editor", "month", "note", "tech", "type"),
          List.of("authors", "title", "booktitle", "journal", "volume", "pages", "year", "date", "publisher",
              "institution", "address", "editor", "month", "note", "tech", "type"));
      case "febrl1", "febrl2", "febrl3" -> loadFebrl(database, table,
          shared.resolve("febrl/dataset" + name.charAt(5) + ".csv"));
      case "childcare" -> loadChildcare(database, table,
          shared.resolve("dedupe-chicago-childcare/csv_example_input_with_true_ids.csv"));
      case "pawsx" -> loadPawsx(database, table, shared.resolve("zh-pawsx"));
      default -> throw new IllegalArgumentException(name);
    };
  }

  private Loaded loadGenerated(Database database, String table) {
    List<String> columns = TableSpec.SAMPLE_TEXT_COLUMNS;
    Truth truth = new Truth();
    try (TableLoader loader = new TableLoader(database, table, "id", "reg_time", columns)) {
      new PostGenerator(seed, records, exactShare).generate(records, p -> {
        loader.add(p.id(), p.regTime(), new String[] {p.title(), p.category(), p.product(), p.region(), p.price(),
            p.contact(), p.phone(), p.content()});
        truth.add(p.id(), "g" + p.cluster());
      });
      loader.finish();
    }
    return new Loaded(table, truth, columns, List.of("title", "product", "content"), null, null,
        " (seed " + seed + ", exact share " + exactShare + ")");
  }

  /** A CSV with an id column and a pair file p1,p2 of ids; {@code hidden} columns are not loaded. */
  private Loaded loadWithPairs(Database database, String table, Path file, Path pairFile, List<String> hidden,
      List<String> exact, List<String> near) throws IOException {
    List<Long> ids = new ArrayList<>();
    loadCsv(database, table, file, false, "id", hidden, null, (id, label) -> ids.add(id));
    List<long[]> pairs = new ArrayList<>();
    try (DelimitedReader reader = DelimitedReader.csv(Files.newBufferedReader(pairFile, StandardCharsets.UTF_8), true)) {
      String[] row;
      java.util.Set<Long> loadedIds = new java.util.HashSet<>(ids);
      while ((row = reader.next()) != null) {
        long a = Long.parseLong(row[0].strip());
        long b = Long.parseLong(row[1].strip());
        if (loadedIds.contains(a) && loadedIds.contains(b)) {
          pairs.add(new long[] {a, b});
        }
      }
    }
    return new Loaded(table, Truth.fromPairs(pairs, ids), exact, near, null, null, capNote());
  }

  private Loaded loadFebrl(Database database, String table, Path file) throws IOException {
    Truth truth = new Truth();
    loadCsv(database, table, file, true, null, List.of("rec_id"), "rec_id", (id, label) -> {
      String[] parts = label.split("-");
      truth.add(id, parts.length >= 2 ? parts[1] : null);
    });
    List<String> fields = List.of("given_name", "surname", "street_number", "address_1", "address_2", "suburb",
        "postcode", "state", "date_of_birth", "soc_sec_id");
    return new Loaded(table, truth, fields, fields, null, null, " (rec_id not loaded)" + capNote());
  }

  private Loaded loadChildcare(Database database, String table, Path file) throws IOException {
    Truth truth = new Truth();
    loadCsv(database, table, file, false, "id", List.of("true_id"), "true_id", truth::add);
    return new Loaded(table, truth, List.of("site_name", "address", "zip", "phone"),
        List.of("site_name", "address", "zip", "phone"), null, null, " (True Id not loaded)" + capNote());
  }

  /** PAWS-X zh test + dev: each pair's two sentences become two records (ids 2i-1, 2i). */
  private Loaded loadPawsx(Database database, String table, Path dir) throws IOException {
    Truth truth = new Truth();
    List<long[]> pairs = new ArrayList<>();
    List<Boolean> labels = new ArrayList<>();
    try (TableLoader loader = new TableLoader(database, table, "id", "reg_time", List.of("sentence"))) {
      long id = 0;
      for (String part : List.of("PAWSX.test.data", "PAWSX.valid.data")) {
        try (BufferedReader in = Files.newBufferedReader(dir.resolve(part), StandardCharsets.UTF_8)) {
          String line;
          while ((line = in.readLine()) != null && (maxRecords == 0 || id + 2 <= maxRecords)) {
            String[] f = line.split("\t", -1);
            if (f.length != 3) {
              continue;
            }
            loader.add(++id, null, new String[] {f[0]});
            truth.add(id, null);
            loader.add(++id, null, new String[] {f[1]});
            truth.add(id, null);
            pairs.add(new long[] {id - 1, id});
            labels.add(f[2].strip().equals("1"));
          }
        }
      }
      loader.finish();
    }
    return new Loaded(table, truth, List.of("sentence"), List.of("sentence"), pairs, labels,
        " (" + pairs.size() + " pairs, test + dev; no cluster labels, so no P/R)");
  }

  private String capNote() {
    return maxRecords > 0 ? ", capped at --max-records " + maxRecords : "";
  }

  interface LabelSink {
    void accept(long id, String label);
  }

  /**
   * Loads a CSV into {@code table}: header names normalized as by {@code load}; {@code idColumn} null
   * means ids 1..n; {@code hidden} columns are not loaded; {@code labelColumn}'s value goes to {@code sink}.
   */
  private void loadCsv(Database database, String table, Path file, boolean trim, String idColumn, List<String> hidden,
      String labelColumn, LabelSink sink) throws IOException {
    try (DelimitedReader reader = DelimitedReader.csv(Files.newBufferedReader(file, StandardCharsets.UTF_8), trim)) {
      List<String> names = reader.header().stream().map(LoadCommand::normalize).toList();
      int idAt = idColumn == null ? -1 : names.indexOf(idColumn);
      int labelAt = labelColumn == null ? -1 : names.indexOf(labelColumn);
      List<String> text = new ArrayList<>();
      List<Integer> textAt = new ArrayList<>();
      for (int i = 0; i < names.size(); i++) {
        if (i != idAt && !hidden.contains(names.get(i)) && !names.get(i).equals("reg_time")) {
          text.add(names.get(i));
          textAt.add(i);
        }
      }
      try (TableLoader loader = new TableLoader(database, table, "id", "reg_time", text)) {
        String[] row;
        String[] values = new String[text.size()];
        long n = 0;
        while ((row = reader.next()) != null && (maxRecords == 0 || n < maxRecords)) {
          for (int i = 0; i < values.length; i++) {
            values[i] = row[textAt.get(i)];
          }
          Long id = idAt < 0 ? null : Long.parseLong(row[idAt].strip());
          long rowId = loader.add(id, null, values);
          sink.accept(rowId, labelAt < 0 ? null : row[labelAt]);
          n++;
        }
        loader.finish();
      }
    }
  }

  private static void drop(Database database, String table) {
    database.jdbi().useHandle(h -> {
      h.execute("DROP TABLE IF EXISTS " + TableSpec.quote(table));
      h.execute("DROP TABLE IF EXISTS " + TableSpec.quote(table + "_removed"));
    });
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
