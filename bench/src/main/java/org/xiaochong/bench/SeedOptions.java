package org.xiaochong.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;

/**
 * The command line of {@link SeedExperiment}: the stream sizes (sorted, distinct), the share of new
 * URLs, the index folder (a temporary one by default), repetitions, reader reopen batch, directory
 * kind, URL list and whether to skip the in-memory store.
 */
record SeedOptions(
    long[] sizes,
    double newShare,
    Path dir,
    int reps,
    int batch,
    boolean nio,
    Path data,
    boolean skipMemory) {

  static SeedOptions parse(String[] args) throws IOException {
    long[] sizes = {500_000, 1_000_000, 1_500_000, 2_000_000};
    double newShare = 0.6;
    Path dir = null;
    int reps = 3;
    int batch = 10_000;
    boolean nio = false;
    Path data = null;
    boolean skipMemory = false;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--sizes" ->
            sizes =
                Arrays.stream(args[++i].split(","))
                    .mapToLong(s -> Long.parseLong(s.trim()))
                    .toArray();
        case "--new-share" -> newShare = Double.parseDouble(args[++i]);
        case "--dir" -> dir = Paths.get(args[++i]);
        case "--reps" -> reps = Integer.parseInt(args[++i]);
        case "--batch" -> batch = Integer.parseInt(args[++i]);
        case "--directory" -> {
          String d = args[++i];
          if (!d.equals("mmap") && !d.equals("nio")) {
            throw new IllegalArgumentException("--directory must be mmap or nio, got " + d);
          }
          nio = d.equals("nio");
        }
        case "--data" -> data = Paths.get(args[++i]);
        case "--skip-memory" -> skipMemory = true;
        case "-h", "--help" -> {
          System.out.println(
              "usage: SeedExperiment [--sizes 500000,1000000,1500000,2000000] [--new-share 0.6]"
                  + " [--dir DIR] [--reps 3] [--batch 10000] [--directory mmap|nio]"
                  + " [--data urlset.csv|none] [--skip-memory]");
          System.exit(0);
        }
        default -> throw new IllegalArgumentException("unknown option " + a);
      }
    }
    if (!(newShare > 0 && newShare <= 1)) {
      throw new IllegalArgumentException("--new-share must be in (0, 1], got " + newShare);
    }
    if (sizes.length == 0 || Arrays.stream(sizes).anyMatch(s -> s < 1 || s > 50_000_000)) {
      throw new IllegalArgumentException("--sizes must be in [1, 50000000]");
    }
    if (reps < 1 || batch < 1) {
      throw new IllegalArgumentException("--reps and --batch must be >= 1");
    }
    if (dir == null) {
      dir = Files.createTempDirectory("seedexp");
    }
    Files.createDirectories(dir);
    sizes = Arrays.stream(sizes).sorted().distinct().toArray();
    return new SeedOptions(sizes, newShare, dir, reps, batch, nio, data, skipMemory);
  }
}
