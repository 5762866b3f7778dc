package org.xiaochong.method.linkage;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * The compared columns of a linkage index and the kind of each, decided once when the index is
 * built (set by hand in {@code linkage.kinds}, else inferred by {@link ColumnProfiler} from a
 * sample of the table) and saved beside it ({@value #FILE}), so that the keys of later rows and
 * every later comparison treat a column as its first rows did. Immutable.
 *
 * @param columns the compared columns
 * @param kinds their kinds
 * @param lines one line per column: its kind and why ("surname: name (a name column; 0 % empty)")
 * @param notes warnings about the columns (mostly empty, one repeated value), one line each
 */
record ColumnSet(
    List<String> columns, List<ColumnKind> kinds, List<String> lines, List<String> notes)
    implements java.io.Serializable {
  static final String FILE = "linkage-columns.json";

  /** Rows sampled to infer kinds. */
  static final int SAMPLE_ROWS = 10_000;

  /** The positions of the columns in the records' values ({@link TableSpec#fingerprintColumns}). */
  int[] positions(TableSpec spec) {
    return columns.stream().mapToInt(spec.fingerprintColumns()::indexOf).toArray();
  }

  /**
   * Decides the kinds of {@code settings}' columns: those set by hand, the others from a sample of
   * up to {@value #SAMPLE_ROWS} rows spread over the table's id range.
   */
  static ColumnSet infer(RecordSource source, LinkageSettings settings) {
    TableSpec spec = source.spec();
    int[] positions =
        settings.columns().stream().mapToInt(spec.fingerprintColumns()::indexOf).toArray();
    List<List<String>> samples = new ArrayList<>();
    for (int i = 0; i < positions.length; i++) {
      samples.add(new ArrayList<>());
    }
    java.util.function.Consumer<SourceRecord> add =
        record -> {
          for (int c = 0; c < positions.length; c++) {
            String value = record.values()[positions[c]];
            samples.get(c).add(value);
          }
        };
    long[] range = source.idRange();
    if (range != null) {
      long span = range[1] - range[0] + 1;
      long rows = source.count();
      if (rows <= SAMPLE_ROWS) {
        source.forEachRecordInRange(range[0], range[1] + 1, add);
      } else {
        // Ten slices spread over the ids (old and new rows both), each as wide as a tenth of the
        // sample takes at the table's density of ids.
        long width = Math.max(1, (long) (span * (SAMPLE_ROWS / 10.0) / rows));
        for (int slice = 0; slice < 10; slice++) {
          long from = range[0] + (span - width) * slice / 9;
          source.forEachRecordInRange(from, from + width, add);
        }
      }
    }
    return of(settings, samples);
  }

  /** The column set of {@code settings} given each column's sampled raw values. */
  static ColumnSet of(LinkageSettings settings, List<List<String>> samples) {
    List<ColumnKind> kinds = new ArrayList<>();
    List<String> lines = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    for (int c = 0; c < settings.columns().size(); c++) {
      String column = settings.columns().get(c);
      ColumnProfiler.Profile profile = ColumnProfiler.profile(column, samples.get(c));
      ColumnKind kind = settings.kinds().getOrDefault(column, profile.kind());
      ColumnProfiler.Profile shown =
          kind == profile.kind()
              ? profile
              : new ColumnProfiler.Profile(
                  column,
                  kind,
                  profile.values(),
                  profile.empty(),
                  profile.topShare(),
                  "linkage.kinds");
      kinds.add(kind);
      lines.add(shown.line());
      long total = profile.values() + profile.empty();
      if (total > 0 && profile.empty() > 0.5 * total) {
        notes.add(
            String.format(
                java.util.Locale.ROOT,
                "column %s is empty in %.0f %% of the sampled rows: it counts only where both have"
                    + " a value",
                column,
                100.0 * profile.empty() / total));
      }
      if (profile.values() >= 20 && profile.topShare() >= 0.9) {
        notes.add(
            String.format(
                java.util.Locale.ROOT,
                "column %s holds one value in %.0f %% of the sampled rows: its agreement says"
                    + " little",
                column,
                100 * profile.topShare()));
      }
    }
    return new ColumnSet(
        settings.columns(), List.copyOf(kinds), List.copyOf(lines), List.copyOf(notes));
  }

  void save(Path dir) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("columns", columns);
    json.put("kinds", kinds.stream().map(ColumnKind::label).toList());
    json.put("lines", lines);
    json.put("notes", notes);
    SavedJson.write(dir, FILE, json);
  }

  static boolean exists(Path dir) {
    return SavedJson.exists(dir, FILE);
  }

  @SuppressWarnings("unchecked")
  static ColumnSet load(Path dir) {
    return SavedJson.read(
        dir,
        FILE,
        "the linkage columns",
        json ->
            new ColumnSet(
                List.copyOf((List<String>) json.get("columns")),
                ((List<String>) json.get("kinds"))
                    .stream()
                        .map(k -> java.util.Objects.requireNonNull(ColumnKind.ofLabel(k), k))
                        .toList(),
                List.copyOf((List<String>) json.get("lines")),
                List.copyOf((List<String>) json.get("notes"))));
  }
}
