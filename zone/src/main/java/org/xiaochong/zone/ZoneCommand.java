package org.xiaochong.zone;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.xbill.DNS.Name;
import org.xbill.DNS.TextParseException;
import org.xiaochong.command.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code zone}: removes duplicate resource records from DNS master files ({@link ZoneDedup}),
 * writes the deduplicated zone and reports seed 003's figures. Not thread-safe.
 */
@Command(
    name = "zone",
    mixinStandardHelpOptions = true,
    description = {
      "Removes duplicate resource records from RFC 1035 master (zone) files and",
      "keeps the first of each. A duplicate has the same owner, class, type, rdata",
      "and TTL, compared in canonical form (case of names, TTL units and hex case",
      "do not matter). --ttl-insensitive also merges records that differ only in",
      "their TTL (the first TTL is kept). Malformed entries are reported",
      "(file:line) and skipped."
    })
final class ZoneCommand implements Callable<Integer> {
  @Mixin ExitCodes.SkipsInput exitCodes;

  @Spec CommandSpec spec;

  @Parameters(
      arity = "1..*",
      paramLabel = "FILE",
      description = "Master files, read in this order.")
  List<Path> inputs;

  @Option(
      names = "--out",
      required = true,
      paramLabel = "FILE",
      description = "The deduplicated zone file.")
  Path out;

  @Option(
      names = "--report",
      paramLabel = "DIR",
      description =
          "Writes DIR/zone-summary.json, and adds seed 003's simhash rule (two more passes).")
  Path report;

  @Option(
      names = "--allow-include",
      paramLabel = "DIR",
      description = "Follow $INCLUDE to files inside DIR only (real paths); refused by default.")
  Path allowInclude;

  @Option(
      names = "--ttl-insensitive",
      description = "Records that differ only in TTL are duplicates.")
  boolean ttlInsensitive;

  @Option(
      names = "--origin",
      paramLabel = "NAME",
      description =
          "Origin for relative names before the first $ORIGIN (default: none, relative names are errors).")
  String origin;

  @Option(
      names = "--threads",
      paramLabel = "N",
      description =
          "Threads that parse records beside the reading one (default: the number of cores; 1: parse on the reading thread).")
  Integer threads;

  @Option(names = "--verbose", description = "Stack traces with errors.")
  boolean verbose;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      return run(out, err);
    } catch (UsageException e) {
      err.println("zone: " + e.getMessage());
      return ExitCodes.USAGE;
    } catch (IOException | RuntimeException e) {
      err.println(
          "zone: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
      if (verbose) {
        e.printStackTrace(err);
      }
      return ExitCodes.INTERNAL;
    } finally {
      out.flush();
      err.flush();
    }
  }

  private int run(PrintWriter out, PrintWriter err) throws IOException {
    for (Path input : inputs) {
      if (!Files.isRegularFile(input)) {
        throw new UsageException("input file " + input + " does not exist");
      }
    }
    if (allowInclude != null && !Files.isDirectory(allowInclude)) {
      throw new UsageException("--allow-include " + allowInclude + " is not a directory");
    }
    Name originName = null;
    if (origin != null) {
      try {
        originName = Name.fromString(origin, Name.root);
      } catch (TextParseException e) {
        throw new UsageException("--origin " + origin + ": " + e.getMessage());
      }
    }
    if (threads != null && threads < 1) {
      throw new UsageException("--threads " + threads + ": must be at least 1");
    }
    ZoneReader reader =
        new ZoneReader(
            allowInclude,
            originName,
            threads != null ? threads : Runtime.getRuntime().availableProcessors());
    ZoneDedup dedup =
        new ZoneDedup(
            reader, !ttlInsensitive, (where, why) -> err.println("zone: " + where + ": " + why));
    ZoneDedup.Result result = dedup.run(inputs, this.out);
    printResult(out, result, inputs.size(), this.out, !ttlInsensitive);
    if (report != null) {
      ZoneDedup.SimhashResult simhash = dedup.seedSimhash(inputs);
      printSimhash(out, simhash, result.duplicatesIn());
      writeSummary(report, result, simhash, !ttlInsensitive);
    }
    return result.skipped() > 0 ? ExitCodes.SKIPPED_INPUT : ExitCodes.OK;
  }

  static void printResult(
      PrintWriter out, ZoneDedup.Result result, int files, Path output, boolean withTtl) {
    out.printf(
        "zone: %,d records read from %d file(s), %,d entries skipped%n",
        result.recordsIn(), files, result.skipped());
    out.printf(
        "zone: %,d records written to %s, %,d duplicates removed (key: owner, class, type, rdata%s)%n",
        result.recordsOut(), output, result.duplicatesIn(), withTtl ? ", TTL" : "; TTL ignored");
    // Seed 003's R = (D - E) / D: D duplicates in the input, E duplicates left after the dedup.
    // Every
    // record left has a distinct key, so E = 0 by the key's definition; `zone-bench` checks it
    // against
    // the known injected copies.
    out.printf(
        "zone: R = (D - E) / D = %s (D = %,d duplicates in the input, E = 0 left)%n",
        result.duplicatesIn() == 0 ? "n/a" : "100.00 %", result.duplicatesIn());
    out.printf(
        "zone: %.2f s parse + dedup + write, %,.0f records/s (%,.0f per CPU-second)%n",
        result.seconds(), result.recordsPerSecond(), result.recordsPerCpuSecond());
  }

  static void printSimhash(PrintWriter out, ZoneDedup.SimhashResult simhash, long duplicatesIn) {
    out.printf(
        "zone: seed 003 simhash rule (5 field tokens, tf-idf, MD5; equal simhash = duplicate): removes %,d,"
            + " %,d distinct records lost (merged with another), %,d duplicates left; R = %s; %.2f s (2 passes)%n",
        simhash.removed(),
        simhash.distinctRecordsLost(),
        simhash.duplicatesLeft(),
        duplicatesIn == 0
            ? "n/a"
            : String.format(
                "%.2f %%", 100.0 * (duplicatesIn - simhash.duplicatesLeft()) / duplicatesIn),
        simhash.seconds());
  }

  private static void writeSummary(
      Path dir, ZoneDedup.Result result, ZoneDedup.SimhashResult simhash, boolean withTtl)
      throws IOException {
    Files.createDirectories(dir);
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("records_in", result.recordsIn());
    summary.put("records_out", result.recordsOut());
    summary.put("entries_skipped", result.skipped());
    summary.put("duplicates_removed", result.duplicatesIn());
    summary.put("key_includes_ttl", withTtl);
    summary.put("seed_R", result.duplicatesIn() == 0 ? null : 1.0);
    summary.put("seconds", result.seconds());
    summary.put("records_per_second", result.recordsPerSecond());
    summary.put("records_per_cpu_second", result.recordsPerCpuSecond());
    summary.put("simhash.removed", simhash.removed());
    summary.put("simhash.distinct_records_lost", simhash.distinctRecordsLost());
    summary.put("simhash.duplicates_left", simhash.duplicatesLeft());
    summary.put("simhash.seconds", simhash.seconds());
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(dir.resolve("zone-summary.json").toFile(), summary);
  }

  /** A usage error found after parsing: exit 2. */
  static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }
}
