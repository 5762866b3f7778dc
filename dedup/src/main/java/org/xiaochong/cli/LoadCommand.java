package org.xiaochong.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.load.DelimitedReader;
import org.xiaochong.load.JsonLinesReader;
import org.xiaochong.load.RowReader;
import org.xiaochong.load.StrictUtf8Reader;
import org.xiaochong.load.TableLoader;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code dedup load}: a CSV, TSV or JSON-lines file into a table. */
@Command(
    name = "load",
    mixinStandardHelpOptions = true,
    description = {
      "Loads a CSV (header row, RFC 4180 quoting), TSV (header row, tab-separated, no",
      "quoting) or JSON-lines file into TABLE, streaming, in batches of 1000 rows. A",
      "missing table is created: the id column BIGINT PRIMARY KEY (ids 1..n when the",
      "file has none), the time column DATETIME (NULL when the file has none), every",
      "other column TEXT, utf8mb4. An existing table must have every loaded column",
      "(new ids continue after its largest). Column names are made SQL identifiers:",
      "lower case, other characters -> _ ('Site name' -> site_name). Times: yyyy-MM-",
      "dd[ HH:mm[:ss]]; blank is NULL. All or nothing: the rows are one transaction;",
      "on bad input (a missing file, a bad header, a ragged row, invalid UTF-8, a record",
      "over --max-line-bytes: the message names the line; exit code 2) a table this",
      "command created is dropped again and an existing table is left as it was."
    })
final class LoadCommand implements Callable<Integer> {
  @Mixin ExitCodes.Help exitCodes;
  @Mixin ConfigOptions options;

  @Parameters(index = "0", paramLabel = "FILE", description = "The file to load (UTF-8).")
  Path file;

  @Option(
      names = "--table",
      required = true,
      paramLabel = "NAME",
      description = "The table to load into.")
  String table;

  @Option(
      names = "--format",
      paramLabel = "csv|tsv|jsonl",
      description = "File format (default: from the extension, .tsv/.jsonl/.ndjson, else csv).")
  String format;

  @Option(
      names = "--columns",
      split = ",",
      paramLabel = "a,b,c",
      description =
          "Load only these columns of the file (besides the id and time columns); default: all.")
  List<String> columns;

  @Option(
      names = "--id-column",
      defaultValue = "id",
      paramLabel = "NAME",
      description = "The id column (default ${DEFAULT-VALUE}); generated when the file has none.")
  String idColumn;

  @Option(
      names = "--time-column",
      defaultValue = "reg_time",
      paramLabel = "NAME",
      description = "The time column (default ${DEFAULT-VALUE}); NULL when the file has none.")
  String timeColumn;

  @Option(
      names = "--max-line-bytes",
      defaultValue = "16777216",
      paramLabel = "N",
      description =
          "Longest record in bytes (default ${DEFAULT-VALUE}, 16 MiB; a quoted CSV field's line breaks"
              + " count): a longer one, or a quote left open, is an error naming its line, not read into memory.")
  long maxLineBytes;

  @Option(
      names = "--trim",
      description = "Strip blanks around unquoted CSV values (e.g. a \", \" separator).")
  boolean trim;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    String kind = format != null ? format.toLowerCase(Locale.ROOT) : fromExtension(file);
    if (!kind.equals("csv") && !kind.equals("tsv") && !kind.equals("jsonl")) {
      throw new BadInputException("--format must be csv, tsv or jsonl, not '" + format + "'");
    }
    String id = identifier(idColumn, "--id-column");
    String time = identifier(timeColumn, "--time-column");
    if (maxLineBytes < 1) {
      throw new BadInputException("--max-line-bytes must be at least 1, not " + maxLineBytes);
    }
    if (!Files.isRegularFile(file)) {
      throw new BadInputException("file " + file + " does not exist or is not a file");
    }
    DedupConfig config = options.load();
    long start = System.nanoTime();
    try (RowReader reader = open(file, kind, trim, maxLineBytes)) {
      List<String> names = new ArrayList<>();
      for (int i = 0; i < reader.header().size(); i++) {
        String name = reader.header().get(i);
        String normalized = TableLoader.columnName(name);
        if (normalized.isEmpty()) {
          throw new BadInputException(
              "bad header: column " + (i + 1) + " ('" + name + "') has no usable name");
        }
        if (normalized.length() > 64) {
          throw new BadInputException(
              "bad header: column name '" + name + "' is longer than 64 characters");
        }
        if (names.contains(normalized)) {
          throw new BadInputException("bad header: two columns are named '" + normalized + "'");
        }
        names.add(normalized);
      }
      int idAt = names.indexOf(id);
      int timeAt = names.indexOf(time);
      List<String> text = new ArrayList<>();
      List<Integer> textAt = new ArrayList<>();
      if (columns != null && !columns.isEmpty()) {
        for (String wanted : columns) {
          String c = TableLoader.columnName(wanted);
          int at = names.indexOf(c);
          if (at < 0) {
            throw new BadInputException(
                "--columns: the file has no column '" + wanted + "' (it has " + names + ")");
          }
          if (at != idAt && at != timeAt && !text.contains(c)) {
            text.add(c);
            textAt.add(at);
          }
        }
      } else {
        for (int i = 0; i < names.size(); i++) {
          if (i != idAt && i != timeAt) {
            text.add(names.get(i));
            textAt.add(i);
          }
        }
      }
      try (Database database = ConfigOptions.openDatabase(config);
          TableLoader loader = new TableLoader(database, table, id, time, text)) {
        long n;
        try {
          copy(reader, loader, idAt, timeAt, textAt, time);
          n = loader.finish();
        } catch (IOException | RuntimeException e) {
          // All or nothing: the rows are one transaction, rolled back by close(); a table this
          // command
          // created is dropped too, so the corrected file can simply be loaded again.
          loader.close(); // its connection must not hold the table while it is dropped
          String outcome = "nothing loaded: " + table + " is as it was";
          if (loader.created()) {
            database
                .jdbi()
                .useHandle(h -> h.execute("DROP TABLE IF EXISTS " + TableSpec.quote(table)));
            outcome = "nothing loaded: the new table " + table + " was dropped";
          }
          if (e instanceof BadInputException) {
            throw new BadInputException(e.getMessage() + " (" + outcome + ")", e);
          }
          throw e;
        }
        spec.commandLine()
            .getOut()
            .printf(
                "loaded %,d rows into %s (%s table; id %s, time %s, text columns %s) in %.1f s%n",
                n,
                table,
                loader.created() ? "new" : "existing",
                idAt >= 0 ? "from the file" : "generated",
                timeAt >= 0 ? "from the file" : "NULL",
                String.join(",", text),
                (System.nanoTime() - start) / 1e9);
      }
    } catch (NoSuchFileException e) {
      throw new BadInputException("file " + file + " does not exist");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ExitCodes.OK;
  }

  private static void copy(
      RowReader reader, TableLoader loader, int idAt, int timeAt, List<Integer> textAt, String time)
      throws IOException {
    String[] row;
    String[] values = new String[textAt.size()];
    while ((row = reader.next()) != null) {
      Long rowId = null;
      if (idAt >= 0) {
        String v = row[idAt] == null ? "" : row[idAt].strip();
        try {
          rowId = Long.parseLong(v);
        } catch (NumberFormatException e) {
          throw new BadInputException(
              "line " + reader.line() + ": id '" + v + "' is not a whole number");
        }
      }
      LocalDateTime rowTime;
      try {
        rowTime = timeAt >= 0 ? TableLoader.parseTime(row[timeAt]) : null;
      } catch (IllegalArgumentException e) {
        throw new BadInputException("line " + reader.line() + ": " + time + " " + e.getMessage());
      }
      for (int i = 0; i < values.length; i++) {
        values[i] = row[textAt.get(i)];
      }
      loader.add(rowId, rowTime, values);
    }
  }

  static RowReader open(Path file, String kind, boolean trim, long maxLineBytes)
      throws IOException {
    // Strict UTF-8 that fails at the malformed byte itself, so the readers name its line.
    var in = new StrictUtf8Reader(Files.newInputStream(file));
    try {
      return switch (kind) {
        case "tsv" -> DelimitedReader.tsv(in, maxLineBytes);
        case "jsonl" -> new JsonLinesReader(in, null, maxLineBytes);
        default -> DelimitedReader.csv(in, trim, maxLineBytes);
      };
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
  }

  static String fromExtension(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".tsv") || name.endsWith(".tab")) {
      return "tsv";
    }
    if (name.endsWith(".jsonl") || name.endsWith(".ndjson")) {
      return "jsonl";
    }
    return "csv";
  }

  private static String identifier(String name, String option) {
    String n = TableLoader.columnName(name);
    if (n.isEmpty()) {
      throw new BadInputException(option + " '" + name + "' is not a usable column name");
    }
    return n;
  }
}
