package org.xiaochong.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.xiaochong.check.Deduplicator;
import org.xiaochong.check.RecordJson;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.load.LineReader;
import org.xiaochong.load.StrictUtf8Reader;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.source.BadInputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code dedup check}: verdicts for incoming JSON-lines records, for ingestion pipelines. */
@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description = {
      "Reads JSON-lines records on stdin (column -> value, as in the table) and writes one verdict per line:",
      "{\"id\":…, \"verdict\":\"new|exact|near|simhash|linkage\", \"kept_id\":…, \"score\":…}: exact = same",
      "exact key as kept_id; near = near duplicate of kept_id by the rule of the near pass (score = weighted",
      "Jaccard similarity); simhash = fingerprint within simhash.max-distance bits of kept_id's (score =",
      "(64 - d) / 64); linkage = match probability with kept_id >= linkage.threshold (score = it).",
      "near, simhash and linkage need the index a `run --method` of theirs built. Counting Bloom",
      "filters answer 'certainly absent' without an index lookup for most exact and near keys of new records.",
      "With --add, new records (they need the id column, and the time column or now) join the indexes so",
      "later lines are checked against them. A record given with its id is never the twin of a record it is",
      "marked apart from (`dedup apart`, `restore`), as of the last run, restore or apart command.",
      "The database is not opened; the next `dedup run` reconciles the index with the table."
    })
final class CheckCommand implements Callable<Integer> {
  @Mixin ExitCodes.SkipsInput exitCodes;
  @Mixin ConfigOptions options;

  @Option(
      names = "--method",
      paramLabel = "METHOD[,METHOD…]",
      description =
          "Methods to ask, in this order; the first that finds a record's twin gives the verdict"
              + " (default: every method a run has built something for: exact, then near, simhash,"
              + " linkage).")
  String method;

  @Option(names = "--add", description = "Add new records to the index and the filter.")
  boolean add;

  @Option(
      names = "--max-line-bytes",
      defaultValue = "16777216",
      paramLabel = "N",
      description =
          "Longest line in bytes (default ${DEFAULT-VALUE}, 16 MiB): a longer one gets the verdict error"
              + " without being read into memory, and the next line is checked.")
  long maxLineBytes;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private final InputStream stdin;

  CheckCommand() {
    this(System.in);
  }

  CheckCommand(InputStream stdin) {
    this.stdin = stdin;
  }

  @Override
  public Integer call() throws IOException {
    if (maxLineBytes < 1) {
      throw new BadInputException("--max-line-bytes must be at least 1, not " + maxLineBytes);
    }
    DedupConfig config = options.load();
    PrintWriter out = spec.commandLine().getOut();
    ObjectMapper json = new ObjectMapper();
    long lines = 0;
    long rejected = 0;
    Map<String, Long> verdicts = new HashMap<>();
    PrintWriter err = spec.commandLine().getErr();
    // Without --add, check only reads: it opens the last commit of the indexes without their write
    // lock, so a run on the same index folder is never kept waiting (it sees what was committed
    // when it started). --add writes, and so holds the indexes' write lock while it runs.
    List<FingerprintMethod> methods = method == null ? null : ConfigOptions.methods(method);
    try (Deduplicator dedup =
            Deduplicator.open(config, new Deduplicator.Options(methods, add, err::println));
        // Strict UTF-8: a line that is not valid UTF-8 is answered with an error naming it, not
        // decoded with replacement characters into another post.
        LineReader in = new LineReader(new StrictUtf8Reader(stdin), maxLineBytes)) {
      while (true) {
        String line;
        try {
          line = in.readLine();
        } catch (
            BadInputException
                tooLong) { // too long or not UTF-8: skipped; answer it, go on with the next
          lines = in.line();
          rejected++;
          out.println(
              json.writeValueAsString(
                  json.createObjectNode()
                      .put("line", lines)
                      .put("verdict", "error")
                      .put("error", oneLine(tooLong.getMessage()))));
          continue;
        }
        if (line == null) {
          break;
        }
        lines = in.line();
        if (line.isBlank()) {
          continue;
        }
        ObjectNode verdictLine = json.createObjectNode();
        try {
          JsonNode node = json.readTree(line);
          if (node != null
              && node.isObject()
              && node.get(config.table().idColumn()) != null
              && node.get(config.table().idColumn()).canConvertToLong()) {
            verdictLine.put("id", node.get(config.table().idColumn()).asLong());
          }
          Deduplicator.Record record =
              RecordJson.parse(node, config.table(), false, System.currentTimeMillis());
          Deduplicator.Verdict verdict = add ? dedup.checkAndAdd(record) : dedup.check(record);
          verdictLine.removeAll();
          RecordJson.toJson(verdictLine, verdict, add);
          verdicts.merge(verdict.verdict(), 1L, Long::sum);
        } catch (IOException | RuntimeException e) {
          rejected++;
          verdictLine.put("line", lines);
          verdictLine.put("verdict", "error");
          verdictLine.put(
              "error",
              e instanceof IOException
                  ? "invalid JSON: " + oneLine(e.getMessage())
                  : oneLine(e.getMessage()));
        }
        out.println(json.writeValueAsString(verdictLine));
      }
      out.flush();
      err.printf(
          "checked %,d lines: %s, %,d rejected; %s%n", lines, verdicts, rejected, dedup.counters());
    }
    return rejected > 0 ? ExitCodes.SKIPPED_INPUT : ExitCodes.OK;
  }

  private static String oneLine(String message) {
    String m = message == null ? "" : message;
    int nl = m.indexOf('\n');
    return (nl >= 0 ? m.substring(0, nl) : m).strip();
  }
}
