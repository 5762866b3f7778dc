package org.xiaochong.zone;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.xbill.DNS.Record;
import org.xiaochong.command.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code zone-bench}: seed 003's section 3.1 protocol on the real root-zone snapshots. The unique
 * records U of the three snapshots (merged and deduplicated by {@code zone}) are cut into five
 * groups A..E of |U|/5; test set i is all of U plus a copy of group i (seed: "A1 = A + copy 1 of
 * the 2M records"), shuffled, so it holds |U|/5 duplicate pairs. Copies get their owner name in
 * upper case (a duplicate by the canonical key, not byte for byte). The same at 2M unique records
 * (seed's size: 2M + 400k per set) by renaming owners: unique record i is record i mod |U| with the
 * label "r&lt;i / |U|&gt;" prepended for i >= |U|.
 *
 * <p>Per set: seed R = (D - E) / D with D = copies injected and E = duplicates left in the output,
 * unique records removed (a unique key missing from the output), time and records/s of parse +
 * dedup + write (writing the test file and checking the output are not timed), and the same figures
 * for seed 003's own rule (equal simhash = duplicate). Not thread-safe.
 */
@Command(
    name = "zone-bench",
    mixinStandardHelpOptions = true,
    description = {
      "Seed 003's section 3.1 protocol on the DNS root-zone snapshots in",
      "../shared/data/dns-root-zone: five sets of the unique records + a copy of",
      "a fifth of them, at the real size and scaled to 2M unique + 400k copies;",
      "prints R, unique records removed and records/s per set."
    })
final class ZoneBenchCommand implements Callable<Integer> {
  @Mixin ExitCodes.Help exitCodes;
  static final String[] SNAPSHOTS = {
    "root.zone.2018-01-29.full.zone",
    "root.zone.2018-03-12.axfr-nosig.zone",
    "root.zone.2020-09-13.internic-nosig-nosoa.zone"
  };
  static final int GROUPS = 5;

  @Spec CommandSpec spec;

  @Option(
      names = "--shared-data",
      paramLabel = "DIR",
      description =
          "Data folder holding dns-root-zone/ (default: ../shared/data, then /work/shared/data).")
  Path sharedData;

  @Option(
      names = "--scaled",
      defaultValue = "2000000",
      paramLabel = "N",
      description =
          "Unique records of the scaled sets (default ${DEFAULT-VALUE}; 0: real size only).")
  int scaled;

  @Option(
      names = "--sets",
      defaultValue = "5",
      paramLabel = "K",
      description = "Sets per size, 1..5 (default ${DEFAULT-VALUE}).")
  int sets;

  @Option(
      names = "--no-simhash",
      description = "Skip seed 003's simhash rule (two more passes per set).")
  boolean noSimhash;

  @Option(
      names = "--dir",
      defaultValue = "data/zone-bench",
      paramLabel = "DIR",
      description = "Scratch folder (default ${DEFAULT-VALUE}).")
  Path dir;

  @Option(
      names = "--seed",
      defaultValue = "2022",
      description = "Shuffle seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    if (sets < 1 || sets > GROUPS) {
      spec.commandLine().getErr().println("zone-bench: --sets (" + sets + ") must be in [1, 5]");
      return ExitCodes.USAGE;
    }
    Path shared =
        sharedData != null
            ? sharedData
            : Files.isDirectory(Path.of("../shared/data"))
                ? Path.of("../shared/data")
                : Path.of("/work/shared/data");
    List<Path> snapshots = new ArrayList<>();
    for (String name : SNAPSHOTS) {
      Path snapshot = shared.resolve("dns-root-zone").resolve(name);
      if (!Files.isRegularFile(snapshot)) {
        out.println("zone-bench: skipped, no snapshot " + snapshot.toAbsolutePath());
        return ExitCodes.OK;
      }
      snapshots.add(snapshot);
    }
    Files.createDirectories(dir);
    ZoneReader reader = new ZoneReader(null, null, Runtime.getRuntime().availableProcessors());
    ZoneDedup dedup =
        new ZoneDedup(
            reader, true, (where, why) -> out.println("zone-bench: " + where + ": " + why));
    Path unique = dir.resolve("unique.zone");
    // The first run also loads dnsjava and warms the JIT; the later ones are the steady-state
    // figure.
    for (String run : new String[] {"first run (cold JIT)", "second run", "third run"}) {
      ZoneDedup.Result merged = dedup.run(snapshots, unique);
      out.printf(
          "merged snapshots, %s: %,d records in, %,d unique out, %,d duplicates removed, %.2f s, %,.0f records/s"
              + " (%,.0f per CPU-second)%n",
          run,
          merged.recordsIn(),
          merged.recordsOut(),
          merged.duplicatesIn(),
          merged.seconds(),
          merged.recordsPerSecond(),
          merged.recordsPerCpuSecond());
    }
    List<Record> base = new ArrayList<>();
    reader.read(
        unique,
        new ZoneReader.Listener() {
          @Override
          public void record(Record record) {
            base.add(record);
          }

          @Override
          public void skipped(String where, String why) {
            throw new IllegalStateException(where + ": " + why);
          }
        });
    out.println();
    out.println(
        "| set | unique | injected copies (D) | records in | removed | left (E) | R = (D-E)/D | removed / injected"
            + " | unique removed | seconds | records/s | per CPU-s | simhash rule: R | simhash: unique removed | simhash seconds |");
    out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    runSize(out, dedup, base, base.size(), "real");
    if (scaled > 0) {
      runSize(out, dedup, base, scaled, "scaled");
    }
    Files.deleteIfExists(unique);
    return ExitCodes.OK;
  }

  private void runSize(
      PrintWriter out, ZoneDedup dedup, List<Record> base, int uniqueCount, String label)
      throws IOException {
    RecordKey keys = new RecordKey(true);
    KeySet128 uniqueKeys = new KeySet128(uniqueCount);
    for (int i = 0; i < uniqueCount; i++) {
      byte[] key = keys.of(ZoneTestSets.uniqueRecord(base, i));
      uniqueKeys.add(RecordKey.high(key), RecordKey.low(key));
    }
    if (uniqueKeys.size() != uniqueCount) {
      throw new IllegalStateException(
          label + ": " + (uniqueCount - uniqueKeys.size()) + " generated records are not unique");
    }
    int groupSize = uniqueCount / GROUPS;
    for (int set = 0; set < sets; set++) {
      Path input = dir.resolve("set.zone");
      Path output = dir.resolve("set.out.zone");
      ZoneTestSets.writeSet(input, base, uniqueCount, set * groupSize, groupSize, seed);
      ZoneDedup.Result result = dedup.run(List.of(input), output);
      long[] check = ZoneTestSets.check(output, uniqueKeys);
      long left = result.recordsOut() - check[0]; // records beyond the first of each key
      long uniqueRemoved = uniqueCount - check[1];
      String simhash = "| - | - | -";
      if (!noSimhash) {
        ZoneDedup.SimhashResult rule = dedup.seedSimhash(List.of(input));
        simhash =
            String.format(
                Locale.ROOT,
                "| %.2f %% | %,d | %.1f",
                100.0 * (groupSize - rule.duplicatesLeft()) / groupSize,
                rule.distinctRecordsLost(),
                rule.seconds());
      }
      out.printf(
          Locale.ROOT,
          "| %s %c%d | %,d | %,d | %,d | %,d | %,d | %.2f %% | %.4f | %,d | %.2f | %,.0f | %,.0f %s |%n",
          label,
          (char) ('A' + set),
          set + 1,
          uniqueCount,
          groupSize,
          result.recordsIn(),
          result.duplicatesIn(),
          left,
          100.0 * (groupSize - left) / groupSize,
          result.duplicatesIn() / (double) groupSize,
          uniqueRemoved,
          result.seconds(),
          result.recordsPerSecond(),
          result.recordsPerCpuSecond(),
          simhash);
      out.flush();
      Files.deleteIfExists(input);
      Files.deleteIfExists(output);
    }
  }
}
