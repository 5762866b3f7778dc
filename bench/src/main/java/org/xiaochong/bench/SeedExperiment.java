package org.xiaochong.bench;

import static org.xiaochong.bench.SeedWorkload.buildWorkload;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.store.FSDirectory;
import org.xiaochong.bench.SeedStores.LuceneStore;
import org.xiaochong.bench.SeedStores.MemoryStore;
import org.xiaochong.bench.SeedStores.Store;
import org.xiaochong.bench.SeedWorkload.Workload;
import org.xiaochong.bloom.CountingBloomFilter;
import org.xiaochong.bloom.FilterShape;
import org.xiaochong.urls.UrlCanonicalizer;

/**
 * Seed 000's experiment (IMP-CBFilter, section 3): URL dedup against an MD5 fingerprint store on
 * disk, (A) the store alone against (B) a counting Bloom filter in front of it, at 500k, 1M, 1.5M
 * and 2M URLs. A plain {@code main}, not JMH: each measurement is one long pass over a stream
 * (seconds, millions of operations, an on-disk index growing as it goes), which JMH's fixed-time
 * iterations do not model.
 *
 * <p>Run (after {@code mvn -q -pl bench -am package -DskipTests}):
 *
 * <pre>
 * java -Xmx2g -cp bench/target/benchmarks.jar org.xiaochong.bench.SeedExperiment \
 *     [--sizes 500000,1000000,1500000,2000000] [--new-share 0.6] [--dir DIR] [--reps 3]
 *     [--batch 10000] [--directory mmap|nio] [--data PATH|none] [--skip-memory]
 * </pre>
 *
 * <p>The default run takes about 4 minutes on 2 shared cores (bench/RESULTS.md). {@code --data
 * none} forces synthetic URLs; {@code --skip-memory} drops the HashSet-store rows.
 *
 * <p><b>Workload.</b> A stream of {@code size} URLs; each is new with probability {@code
 * --new-share} (default 0.6, the seed's 60 % new / 40 % repeated), otherwise it repeats an earlier
 * distinct URL chosen uniformly. Distinct URLs come from the 48,009 real, distinct URLs of {@code
 * data/urls/kasztp-urlset/urlset.csv} (UTF-8 with BOM; looked up as {@code ../shared/data/...}
 * relative to the working directory, then {@code /work/shared/data/...}), "repeated and varied":
 * round r of the list derives a new URL from each base deterministically (a {@code page=r} query
 * parameter, a path segment {@code /sr}, or both), so every derived URL is distinct; a derived URL
 * whose canonical form was already produced is skipped. Without the folder, synthetic URLs are
 * generated and the output says so. A repeat is emitted in a different surface form (an added
 * {@code #fragment} or an upper-case {@code HTTP://} scheme) so the canonicalizer has work to do;
 * every URL is canonicalized with {@link UrlCanonicalizer} (query order kept) and keyed by the MD5
 * of its canonical form. The stream of each size is a prefix of the largest one.
 *
 * <p><b>What is timed.</b> Only the dedup step: fingerprint in, check, insert if new, plus a final
 * commit of the index. Canonicalization and MD5 are the same work in both variants; they are done
 * once before the runs and their cost per URL is printed separately, so an end-to-end speed-up can
 * be derived (it is smaller than the one in the table).
 *
 * <p><b>The store</b> (the seed's "MD5指纹库") is a Lucene index in an {@link FSDirectory} on disk:
 * one document per fingerprint, a {@link StringField} holding the 16 MD5 bytes (not stored, no
 * norms, docs-only postings). Lookup = {@link TermsEnum#seekExact} of the 16 bytes on every segment
 * of a near-real-time reader, newest segment first, preceded by a probe of an in-memory set holding
 * the additions the reader cannot see yet. Every {@code --batch} (10,000) additions the reader is
 * reopened from the writer ({@link DirectoryReader#openIfChanged(DirectoryReader, IndexWriter)},
 * which flushes a segment to disk) and the set is cleared, so the set never holds more than one
 * batch: this is how a Lucene-backed key store is kept exact and read-your-writes (Elasticsearch's
 * version map plays the role of the set). Default writer config: 16 MB RAM buffer,
 * TieredMergePolicy, ConcurrentMergeScheduler (merges run on a background thread). The default
 * {@code FSDirectory.open} is an MMapDirectory: the index files (22 MB at 2M URLs, 1.2M docs) stay
 * in the OS page cache on a machine with spare RAM, so a lookup costs page-cache memory accesses
 * and the term dictionary walk of each segment, not disk seeks. That is realistic for an index that
 * fits in RAM; {@code --directory nio} makes every block read a {@code pread} system call instead.
 * The index directory is deleted after each run. The refCount update of the seed's store (on each
 * duplicate) is left out of both variants: every duplicate reaches the store in both, so it would
 * add the same cost to A and B.
 *
 * <p><b>Variants</b>, on the same stream, alternated A, B, A, B, ... with a fresh index each time:
 *
 * <ul>
 *   <li>(A) store alone: every URL -> store lookup -> add if absent.
 *   <li>(B) IMP-CBFilter: {@link CountingBloomFilter} with 4-bit counters, k = 8, m = 20 x the
 *       expected distinct URLs (size x new-share), as in the seed. If one of the key's counters is
 *       0 the URL is certainly new: put it in the filter and add it to the store with no lookup.
 *       Otherwise look it up in the store; absent there = a filter false positive (then put + add).
 *       This is {@code ImpCbFilter.insert} without the refCount and counter-position bookkeeping.
 *   <li>The same two variants with an in-memory {@code HashSet<Fingerprint>} as the store, to show
 *       what the filter costs when a store lookup is cheap.
 * </ul>
 *
 * <p>Reported: store lookups, filter false positives, and the median wall time of {@code --reps}
 * runs (after one untimed warm-up pass). Both variants must find the same number of new URLs; the
 * program fails otherwise. Results and their interpretation: bench/RESULTS.md, "Seed experiment".
 *
 * <p>The stores are {@link SeedStores}, the URL stream {@link SeedWorkload}, the two variants
 * {@link SeedVariants}, the command line {@link SeedOptions}.
 */
public final class SeedExperiment {

  static final VarHandle LONG_BE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  static final String URLSET = "data/urls/kasztp-urlset/urlset.csv";
  private static final int COUNTERS_PER_KEY = 20;
  private static final int HASHES = 8;
  static final long SEED = 0x5eed000L;

  private SeedExperiment() {}

  public static void main(String[] args) throws Exception {
    SeedOptions o = SeedOptions.parse(args);
    long start = System.nanoTime();
    System.out.printf(
        Locale.ROOT,
        "SeedExperiment: JDK %s, %d CPUs, max heap %d MB, new share %.2f, reps %d, batch %d,"
            + " directory %s, index dir %s%n",
        System.getProperty("java.vm.version"),
        Runtime.getRuntime().availableProcessors(),
        Runtime.getRuntime().maxMemory() >> 20,
        o.newShare(),
        o.reps(),
        o.batch(),
        o.nio() ? "NIOFSDirectory" : "FSDirectory.open (MMapDirectory)",
        o.dir().toAbsolutePath());
    Workload w = buildWorkload(o);
    System.out.printf(
        Locale.ROOT,
        "workload: %s; %d distinct URLs needed for %d items, %d derived URLs skipped"
            + " (no canonical form or same canonical as an earlier one), %d repeats whose surface"
            + " form canonicalized differently; canonicalize + MD5 cost %.2f us per URL"
            + " (not in the timed runs)%n",
        w.source(),
        w.distinct(),
        w.hi().length,
        w.skippedDerived(),
        w.surfaceMismatches(),
        w.prepNanosPerItem() / 1000);
    w.examples().forEach(e -> System.out.println("  e.g. " + e));

    // Warm-up: both variants, both stores, untimed, on a small prefix.
    int warm = (int) Math.min(200_000, o.sizes()[0]);
    FilterShape warmShape = shape(warm, o.newShare());
    for (int r = 0; r < 2; r++) {
      try (Store s = new LuceneStore(o.dir().resolve("warm-a"), o.batch(), o.nio())) {
        SeedVariants.runStoreAlone(s, w.hi(), w.lo(), warm);
      }
      try (Store s = new LuceneStore(o.dir().resolve("warm-b"), o.batch(), o.nio())) {
        SeedVariants.runFiltered(s, warmShape, w.hi(), w.lo(), warm);
      }
      SeedVariants.runStoreAlone(new MemoryStore(), w.hi(), w.lo(), warm);
      SeedVariants.runFiltered(new MemoryStore(), warmShape, w.hi(), w.lo(), warm);
    }

    double prepUs = w.prepNanosPerItem() / 1000;
    List<String> rows = new ArrayList<>();
    List<String> memRows = new ArrayList<>();
    for (int s = 0; s < o.sizes().length; s++) {
      int n = (int) o.sizes()[s];
      long truth = w.newPrefix()[s];
      FilterShape shape = shape(n, o.newShare());
      long[] ta = new long[o.reps()];
      long[] tb = new long[o.reps()];
      SeedVariants.Run a = null;
      SeedVariants.Run b = null;
      for (int r = 0; r < o.reps(); r++) {
        try (Store st = new LuceneStore(o.dir().resolve("a-" + n + "-" + r), o.batch(), o.nio())) {
          a = SeedVariants.check(SeedVariants.runStoreAlone(st, w.hi(), w.lo(), n), truth, "A", n);
        }
        ta[r] = a.nanos();
        try (Store st = new LuceneStore(o.dir().resolve("b-" + n + "-" + r), o.batch(), o.nio())) {
          b =
              SeedVariants.check(
                  SeedVariants.runFiltered(st, shape, w.hi(), w.lo(), n), truth, "B", n);
        }
        tb[r] = b.nanos();
        System.out.printf(
            Locale.ROOT,
            "  size %,d rep %d: A %.2f s (%s) | B %.2f s (%s)%n",
            n,
            r + 1,
            a.nanos() / 1e9,
            a.store(),
            b.nanos() / 1e9,
            b.store());
      }
      double mA = median(ta) / 1e9;
      double mB = median(tb) / 1e9;
      rows.add(
          String.format(
              Locale.ROOT,
              "| %,d | %,d | %,d | %,d | %.2fx | %.2f s | %.2f s | %.2fx | %,d | %.2f / %.2f | %.2fx |",
              n,
              truth,
              a.lookups(),
              b.lookups(),
              (double) a.lookups() / b.lookups(),
              mA,
              mB,
              mA / mB,
              b.falsePositives(),
              mA * 1e6 / n,
              mB * 1e6 / n,
              (mA * 1e6 / n + prepUs) / (mB * 1e6 / n + prepUs)));

      if (!o.skipMemory()) {
        long[] ma = new long[o.reps()];
        long[] mb = new long[o.reps()];
        SeedVariants.Run x = null;
        SeedVariants.Run y = null;
        for (int r = 0; r < o.reps(); r++) {
          x =
              SeedVariants.check(
                  SeedVariants.runStoreAlone(new MemoryStore(), w.hi(), w.lo(), n),
                  truth,
                  "A-mem",
                  n);
          ma[r] = x.nanos();
          y =
              SeedVariants.check(
                  SeedVariants.runFiltered(new MemoryStore(), shape, w.hi(), w.lo(), n),
                  truth,
                  "B-mem",
                  n);
          mb[r] = y.nanos();
        }
        double xa = median(ma) / 1e9;
        double yb = median(mb) / 1e9;
        memRows.add(
            String.format(
                Locale.ROOT,
                "| %,d | %,d | %,d | %.3f s | %.3f s | %.2fx | %,d |",
                n,
                x.lookups(),
                y.lookups(),
                xa,
                yb,
                xa / yb,
                y.falsePositives()));
      }
    }

    System.out.printf(
        Locale.ROOT,
        "%nOn-disk Lucene store, median of %d runs; filter m = %d x expected distinct, k = %d,"
            + " 4-bit counters. Timed: dedup step only (canonicalize + MD5 = %.2f us per URL,"
            + " the same in A and B, excluded).%n%n",
        o.reps(),
        COUNTERS_PER_KEY,
        HASHES,
        w.prepNanosPerItem() / 1000);
    System.out.println(
        "| size | distinct | store lookups A | store lookups B | lookup ratio | time A | time B"
            + " | speed-up | FP count | us/URL A / B | speed-up incl. canonicalize + MD5 |");
    System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    rows.forEach(System.out::println);
    if (!memRows.isEmpty()) {
      System.out.printf(
          Locale.ROOT, "%nIn-memory HashSet<Fingerprint> store, median of %d runs.%n%n", o.reps());
      System.out.println(
          "| size | lookups A | lookups B | time A (set alone) | time B (filter + set) |"
              + " speed-up | FP count |");
      System.out.println("|---:|---:|---:|---:|---:|---:|---:|");
      memRows.forEach(System.out::println);
    }
    System.out.printf(Locale.ROOT, "%ntotal %.0f s%n", (System.nanoTime() - start) / 1e9);
  }

  static FilterShape shape(long size, double newShare) {
    long expected = Math.max(1, Math.round(size * newShare));
    return FilterShape.fromExpectedInsertions(expected, COUNTERS_PER_KEY, HASHES);
  }

  static double median(long[] v) {
    long[] c = v.clone();
    Arrays.sort(c);
    return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2.0;
  }
}
