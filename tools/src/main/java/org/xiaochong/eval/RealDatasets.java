package org.xiaochong.eval;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.xiaochong.load.DelimitedReader;
import org.xiaochong.load.TableLoader;
import org.xiaochong.source.Database;

/**
 * The real labelled data sets of {@link EvalDatasets}, read from the shared data folder:
 * restaurants, cora and freedb with their pair files, febrl's rec_id clusters, childcare's True Id,
 * PATSTAT's leuven_id and PAWS-X zh sentence pairs. Each is loaded into a table of its own with its
 * label columns left out, at most {@code maxRecords} records (0: all). Not thread-safe.
 */
final class RealDatasets {
  /** Cora's fields, for both methods. */
  private static final List<String> CORA_FIELDS =
      List.of(
          "authors",
          "title",
          "booktitle",
          "journal",
          "volume",
          "pages",
          "year",
          "date",
          "publisher",
          "institution",
          "address",
          "editor",
          "month",
          "note",
          "tech",
          "type");

  private final long maxRecords;

  RealDatasets(long maxRecords) {
    this.maxRecords = maxRecords;
  }

  /** Loads the set {@code name} (not {@code generated}) from {@code shared} into {@code table}. */
  EvalDatasets.Loaded load(Database database, String table, String name, Path shared)
      throws IOException {
    return switch (name) {
      case "restaurants" ->
          loadWithPairs(
              database,
              table,
              shared.resolve("hpi-restaurants/hpi_restaurants.csv"),
              shared.resolve("hpi-restaurants/hpi_restaurants_goldstandard.csv"),
              List.of("class"),
              List.of("name", "addr", "city", "phone", "type"),
              List.of("name", "addr", "city", "phone", "type"));
      case "cora" ->
          loadWithPairs(
              database,
              table,
              shared.resolve("hpi-cora/hpi_cora.csv"),
              shared.resolve("hpi-cora/hpi_cora_goldstandard.csv"),
              List.of(),
              CORA_FIELDS,
              CORA_FIELDS);
      case "febrl1", "febrl2", "febrl3" ->
          loadFebrl(database, table, shared.resolve("febrl/dataset" + name.charAt(5) + ".csv"));
      case "childcare" ->
          loadChildcare(
              database,
              table,
              shared.resolve("dedupe-chicago-childcare/csv_example_input_with_true_ids.csv"));
      case "freedb" ->
          loadWithPairs(
              database,
              table,
              shared.resolve("freedb-cds/freedb_cds.csv"),
              shared.resolve("freedb-cds/freedb_cds_goldstandard.csv"),
              List.of(),
              List.of("artist", "title", "tracks", "year"),
              List.of("artist", "title", "tracks", "year"));
      case "patstat" -> loadPatstat(database, table, shared.resolve("dedupe-patstat"));
      case "pawsx" -> loadPawsx(database, table, shared.resolve("zh-pawsx"));
      default -> throw new IllegalArgumentException(name);
    };
  }

  /**
   * A CSV with an id column and a pair file p1,p2 of ids; {@code hidden} columns are not loaded.
   */
  private EvalDatasets.Loaded loadWithPairs(
      Database database,
      String table,
      Path file,
      Path pairFile,
      List<String> hidden,
      List<String> exact,
      List<String> near)
      throws IOException {
    List<Long> ids = new ArrayList<>();
    loadCsv(database, table, file, false, "id", hidden, null, (id, label) -> ids.add(id));
    List<long[]> pairs = new ArrayList<>();
    try (DelimitedReader reader =
        DelimitedReader.csv(Files.newBufferedReader(pairFile, StandardCharsets.UTF_8), true)) {
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
    return new EvalDatasets.Loaded(
        table, Truth.fromPairs(pairs, ids), exact, near, null, null, capNote());
  }

  private EvalDatasets.Loaded loadFebrl(Database database, String table, Path file)
      throws IOException {
    Truth truth = new Truth();
    loadCsv(
        database,
        table,
        file,
        true,
        null,
        List.of("rec_id"),
        "rec_id",
        (id, label) -> {
          String[] parts = label.split("-");
          truth.add(id, parts.length >= 2 ? parts[1] : null);
        });
    List<String> fields =
        List.of(
            "given_name",
            "surname",
            "street_number",
            "address_1",
            "address_2",
            "suburb",
            "postcode",
            "state",
            "date_of_birth",
            "soc_sec_id");
    return new EvalDatasets.Loaded(
        table, truth, fields, fields, null, null, " (rec_id not loaded)" + capNote());
  }

  private EvalDatasets.Loaded loadChildcare(Database database, String table, Path file)
      throws IOException {
    Truth truth = new Truth();
    loadCsv(database, table, file, false, "id", List.of("true_id"), "true_id", truth::add);
    return new EvalDatasets.Loaded(
        table,
        truth,
        List.of("site_name", "address", "zip", "phone"),
        List.of("site_name", "address", "zip", "phone"),
        null,
        null,
        " (True Id not loaded)" + capNote());
  }

  /**
   * PATSTAT names: the clusters are the leuven_id of patstat_reference.csv, joined on person_id
   * (the reference's person_name is the cleaned name, so it is not loaded either).
   */
  private EvalDatasets.Loaded loadPatstat(Database database, String table, Path dir)
      throws IOException {
    java.util.Map<Long, String> cluster = new java.util.HashMap<>();
    try (DelimitedReader reader =
        DelimitedReader.csv(
            Files.newBufferedReader(dir.resolve("patstat_reference.csv"), StandardCharsets.UTF_8),
            true)) {
      String[] row;
      while ((row = reader.next()) != null) {
        cluster.put(Long.parseLong(row[0].strip()), row[1].strip());
      }
    }
    Truth truth = new Truth();
    loadCsv(
        database,
        table,
        dir.resolve("patstat_input.csv"),
        false,
        "person_id",
        List.of("lat", "lng"),
        null,
        (id, label) -> truth.add(id, cluster.get(id)));
    List<String> fields = List.of("name", "coauthor", "class");
    return new EvalDatasets.Loaded(
        table, truth, fields, fields, null, null, " (leuven_id not loaded)" + capNote());
  }

  /** PAWS-X zh test + dev: each pair's two sentences become two records (ids 2i-1, 2i). */
  private EvalDatasets.Loaded loadPawsx(Database database, String table, Path dir)
      throws IOException {
    Truth truth = new Truth();
    List<long[]> pairs = new ArrayList<>();
    List<Boolean> labels = new ArrayList<>();
    try (TableLoader loader =
        new TableLoader(database, table, "id", "reg_time", List.of("sentence"))) {
      long id = 0;
      for (String part : List.of("PAWSX.test.data", "PAWSX.valid.data")) {
        try (BufferedReader in =
            Files.newBufferedReader(dir.resolve(part), StandardCharsets.UTF_8)) {
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
    return new EvalDatasets.Loaded(
        table,
        truth,
        List.of("sentence"),
        List.of("sentence"),
        pairs,
        labels,
        " (" + pairs.size() + " pairs, test + dev; no cluster labels, so no P/R)");
  }

  private String capNote() {
    return maxRecords > 0 ? ", capped at --max-records " + maxRecords : "";
  }

  interface LabelSink {
    void accept(long id, String label);
  }

  /**
   * Loads a CSV into {@code table}: header names normalized as by {@code load}; {@code idColumn}
   * null means ids 1..n; {@code hidden} columns are not loaded; {@code labelColumn}'s value goes to
   * {@code sink}.
   */
  private void loadCsv(
      Database database,
      String table,
      Path file,
      boolean trim,
      String idColumn,
      List<String> hidden,
      String labelColumn,
      LabelSink sink)
      throws IOException {
    try (DelimitedReader reader =
        DelimitedReader.csv(Files.newBufferedReader(file, StandardCharsets.UTF_8), trim)) {
      List<String> names = reader.header().stream().map(TableLoader::columnName).toList();
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
}
