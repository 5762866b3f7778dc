package org.xiaochong.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.check.OnlineChecker;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.load.LineReader;
import org.xiaochong.load.StrictUtf8Reader;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.FingerprintMethods;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;
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
      "{\"id\":…, \"verdict\":\"new|exact|near|simhash\", \"kept_id\":…, \"score\":…}: exact = same exact key",
      "as kept_id; near = near duplicate of kept_id by the rule of the near pass (score = weighted Jaccard",
      "similarity); simhash = fingerprint within simhash.max-distance bits of kept_id's (score = (64 - d) / 64).",
      "near and simhash need the index a `run --method near` or `--method simhash` built. Counting Bloom",
      "filters answer 'certainly absent' without an index lookup for most exact and near keys of new records.",
      "With --add, new records (they need the id column, and the time column or now) join the indexes so",
      "later lines are checked against them. A record given with its id is never the twin of a record it is",
      "marked apart from (`dedup apart`, `restore`), as of the last run, restore or apart command.",
      "The database is not opened; the next `dedup run` reconciles the index with the table."
    })
final class CheckCommand implements Callable<Integer> {
  @Mixin ExitCodes.SkipsInput exitCodes;
  @Mixin ConfigOptions options;

  @Option(names = "--method", paramLabel = "METHOD[,METHOD…]",
      description = "Methods to ask, in this order; the first that finds a record's twin gives the verdict"
          + " (default: every method a run has built something for: exact, then near, then simhash).")
  String method;

  @Option(names = "--add", description = "Add new records to the index and the filter.")
  boolean add;

  @Option(names = "--max-line-bytes", defaultValue = "16777216", paramLabel = "N",
      description = "Longest line in bytes (default ${DEFAULT-VALUE}, 16 MiB): a longer one gets the verdict error"
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
    String idColumn = config.table().idColumn();
    String timeColumn = config.table().timeColumn();
    PrintWriter err = spec.commandLine().getErr();
    // Without --add, check only reads: it opens the last commit of the indexes without their write
    // lock, so a run on the same index folder is never kept waiting (it sees what was committed
    // when it started). --add writes, and so holds the indexes' write lock while it runs.
    try (FingerprintIndex index = add ? ConfigOptions.openIndex(config, false) : ConfigOptions.openIndexReadOnly(config);
        OnlineChecker checker = openChecker(config, index, err);
        // Strict UTF-8: a line that is not valid UTF-8 is answered with an error naming it, not
        // decoded with replacement characters into another post.
        LineReader in = new LineReader(new StrictUtf8Reader(stdin), maxLineBytes)) {
      TimeArgument times = new TimeArgument();
      while (true) {
        String line;
        try {
          line = in.readLine();
        } catch (BadInputException tooLong) { // too long or not UTF-8: skipped; answer it, go on with the next
          lines = in.line();
          rejected++;
          out.println(json.writeValueAsString(json.createObjectNode().put("line", lines).put("verdict", "error")
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
          JsonNode record = json.readTree(line);
          if (record == null || !record.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
          }
          Map<String, String> fields = new HashMap<>();
          for (Iterator<Map.Entry<String, JsonNode>> it = record.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            fields.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText());
          }
          JsonNode idNode = record.get(idColumn);
          // An id is an integer JSON number that fits a long: 5.7 or 1e3 would be truncated to another
          // record's id, and "5" or true are not numbers.
          if (idNode != null && !(idNode.isIntegralNumber() && idNode.canConvertToLong())) {
            throw new IllegalArgumentException(idColumn + " must be an integer JSON number, not " + idNode);
          }
          if (idNode != null) {
            verdictLine.put("id", idNode.asLong());
          } else {
            verdictLine.putNull("id");
          }
          OnlineChecker.Verdict verdict = checker.check(idNode == null ? null : idNode.asLong(), fields);
          if (add && verdict.isNew()) {
            if (idNode == null) {
              throw new IllegalArgumentException("--add needs the id column '" + idColumn + "' in each record");
            }
            String time = fields.get(timeColumn);
            long millis = time == null ? RecordSource.toMillis(LocalDateTime.now()) : RecordSource.toMillis(times.convert(time));
            checker.add(idNode.asLong(), time == null && record.has(timeColumn) ? SourceRecord.NULL_TIME : millis, verdict);
          }
          verdictLine.put("verdict", verdict.verdict());
          if (verdict.keptId() == null) {
            verdictLine.putNull("kept_id");
          } else {
            verdictLine.put("kept_id", verdict.keptId());
          }
          verdictLine.put("score", verdict.score());
          verdicts.merge(verdict.verdict(), 1L, Long::sum);
        } catch (IOException | RuntimeException e) {
          rejected++;
          verdictLine.put("line", lines);
          verdictLine.put("verdict", "error");
          verdictLine.put("error", e instanceof IOException ? "invalid JSON: " + oneLine(e.getMessage()) : oneLine(e.getMessage()));
        }
        out.println(json.writeValueAsString(verdictLine));
      }
      out.flush();
      err.printf("checked %,d lines: %s, %,d rejected; %s%n", lines, verdicts, rejected, checker.counters());
    }
    return rejected > 0 ? ExitCodes.SKIPPED_INPUT : ExitCodes.OK;
  }

  /**
   * A checker of the methods of --method, in its order; without it, of every method a run has built
   * something for, in the registry's order (exact, then near, ...). A method named in --method with
   * nothing built is an error; without --method, a near method configured but not built is a note.
   */
  private OnlineChecker openChecker(DedupConfig config, FingerprintIndex index, PrintWriter err) {
    List<FingerprintMethod> methods = method == null ? FingerprintMethods.known() : ConfigOptions.methods(method);
    // The marks as the last run, restore or `dedup apart` saved them beside the index: no database.
    ApartPairs apart = ApartPairs.load(config.indexDir().resolve(ApartPairs.FILE));
    OnlineChecker checker = OnlineChecker.open(methods, config.methodContext(index, err::println).withApart(apart), add);
    for (FingerprintMethod m : methods) {
      if (checker.methods().contains(m.name())) {
        continue;
      }
      if (method != null) {
        BadInputException notBuilt = new BadInputException("check --method " + m.name() + ": nothing built for "
            + m.name() + " yet (`dedup run --method " + m.name() + "` builds it)");
        checker.closeAfter(notBuilt);
        throw notBuilt;
      }
      if (m.name().equals("near") && !config.table().nearFields().isEmpty()) {
        err.println("check: no near index yet (`dedup run --method near|both` builds it): exact verdicts only");
      }
    }
    return checker;
  }

  private static String oneLine(String message) {
    String m = message == null ? "" : message;
    int nl = m.indexOf('\n');
    return (nl >= 0 ? m.substring(0, nl) : m).strip();
  }
}
