package org.xiaochong.bench;

import static org.xiaochong.bench.SeedExperiment.LONG_BE;
import static org.xiaochong.bench.SeedExperiment.SEED;
import static org.xiaochong.bench.SeedExperiment.URLSET;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.xiaochong.bench.impcb.Fingerprint;
import org.xiaochong.urls.UrlCanonicalizer;

/**
 * The URL stream of {@link SeedExperiment}: real URLs repeated and varied, their canonical MD5s.
 */
final class SeedWorkload {

  private SeedWorkload() {}

  /** The prepared stream: MD5 halves per item, and what preparing it cost. */
  record Workload(
      long[] hi,
      long[] lo,
      long[] newPrefix, // newPrefix[s] = distinct URLs among the first sizes[s] items
      String source,
      int bases,
      long distinct,
      long skippedDerived,
      long surfaceMismatches,
      double prepNanosPerItem,
      List<String> examples) {}

  static Workload buildWorkload(SeedOptions o) throws IOException {
    UrlCanonicalizer canonicalizer = new UrlCanonicalizer(false);
    MessageDigest md5;
    try {
      md5 = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    boolean forceSynthetic = o.data() != null && o.data().toString().equals("none");
    Path data = forceSynthetic ? null : o.data() != null ? o.data() : findUrlset();
    List<String> bases;
    String source;
    if (data != null) {
      bases = readUrlset(data);
      source =
          "real URLs: "
              + data.toAbsolutePath().normalize()
              + " ("
              + bases.size()
              + " rows), repeated and varied";
    } else {
      bases = syntheticBases(48_009);
      source =
          "SYNTHETIC URLs ("
              + (forceSynthetic
                  ? "--data none"
                  : URLSET + " not found under ../shared or /work/shared")
              + "): "
              + bases.size()
              + " generated bases, repeated and varied";
    }
    int n = Math.toIntExact(o.sizes()[o.sizes().length - 1]);
    SplittableRandom rnd = new SplittableRandom(SEED);
    boolean[] isNew = new boolean[n];
    int distinctNeeded = 0;
    for (int i = 0; i < n; i++) {
      isNew[i] = i == 0 || rnd.nextDouble() < o.newShare();
      if (isNew[i]) {
        distinctNeeded++;
      }
    }
    long t0 = System.nanoTime();
    // The distinct URLs, in order of first appearance: base j % B, variation round j / B.
    String[] raw = new String[distinctNeeded];
    long[] dHi = new long[distinctNeeded];
    long[] dLo = new long[distinctNeeded];
    Set<Fingerprint> seen = new HashSet<>(distinctNeeded * 2);
    long skipped = 0;
    int produced = 0;
    List<String> examples = new ArrayList<>();
    for (long j = 0; produced < distinctNeeded; j++) {
      String base = bases.get((int) (j % bases.size()));
      long round = j / bases.size();
      String url = derive(base, round);
      Optional<String> canonical = canonicalizer.canonicalize(url);
      if (canonical.isEmpty()) {
        skipped++;
        continue;
      }
      byte[] digest = md5.digest(canonical.get().getBytes(StandardCharsets.UTF_8));
      long h = (long) LONG_BE.get(digest, 0);
      long l = (long) LONG_BE.get(digest, 8);
      if (!seen.add(new Fingerprint(h, l))) {
        skipped++; // same canonical URL as an earlier one (e.g. two bases differing only in case)
        continue;
      }
      if (j % bases.size() == 7 && examples.size() < 4) {
        examples.add(url + "  ->  " + canonical.get());
      }
      raw[produced] = url;
      dHi[produced] = h;
      dLo[produced] = l;
      produced++;
    }
    seen = null;
    // The stream: new items take the next distinct URL; repeats a uniformly chosen earlier one, in
    // another surface form, canonicalized again.
    long[] hi = new long[n];
    long[] lo = new long[n];
    int next = 0;
    long mismatches = 0;
    for (int i = 0; i < n; i++) {
      if (isNew[i]) {
        hi[i] = dHi[next];
        lo[i] = dLo[next];
        next++;
      } else {
        int pick = rnd.nextInt(next);
        String surface = (i & 1) == 0 ? raw[pick] + "#section-" + (i % 97) : "HTTP://" + raw[pick];
        Optional<String> canonical = canonicalizer.canonicalize(surface);
        if (canonical.isEmpty()) {
          mismatches++;
          hi[i] = dHi[pick];
          lo[i] = dLo[pick];
          continue;
        }
        byte[] digest = md5.digest(canonical.get().getBytes(StandardCharsets.UTF_8));
        hi[i] = (long) LONG_BE.get(digest, 0);
        lo[i] = (long) LONG_BE.get(digest, 8);
        if (hi[i] != dHi[pick] || lo[i] != dLo[pick]) {
          mismatches++; // the surface form did not canonicalize back: the item stays as emitted
        }
      }
    }
    long prepNanos = System.nanoTime() - t0;
    // Ground truth: distinct fingerprints in each prefix (exact, by sorting).
    long[] newPrefix = new long[o.sizes().length];
    for (int s = 0; s < o.sizes().length; s++) {
      newPrefix[s] = countDistinct(hi, lo, (int) o.sizes()[s]);
    }
    return new Workload(
        hi,
        lo,
        newPrefix,
        source,
        bases.size(),
        distinctNeeded,
        skipped,
        mismatches,
        (double) prepNanos / (n + skipped),
        examples);
  }

  /** Variation round r of a scheme-less base URL; r = 0 is the base itself. */
  static String derive(String base, long round) {
    if (round == 0) {
      return base;
    }
    int hash = base.indexOf('#');
    String b = hash < 0 ? base : base.substring(0, hash);
    int slash = b.indexOf('/');
    String host = slash < 0 ? b : b.substring(0, slash);
    String rest = slash < 0 ? "" : b.substring(slash);
    String sep = rest.indexOf('?') < 0 ? "?" : "&";
    return switch ((int) (round % 3)) {
      case 1 -> b + sep + "page=" + round;
      case 2 -> host + "/s" + round + (rest.isEmpty() ? "/" : rest);
      default -> host + "/a" + round + (rest.isEmpty() ? "/" : rest) + sep + "ref=" + round;
    };
  }

  static Path findUrlset() {
    for (Path p : List.of(Paths.get("..", "shared", URLSET), Paths.get("/work/shared", URLSET))) {
      if (Files.isRegularFile(p)) {
        return p;
      }
    }
    return null;
  }

  /** The "domain" column of urlset.csv; strips the UTF-8 BOM and skips the header. */
  static List<String> readUrlset(Path p) throws IOException {
    List<String> lines = Files.readAllLines(p, StandardCharsets.UTF_8);
    List<String> out = new ArrayList<>(lines.size());
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (i == 0) {
        if (!line.isEmpty() && line.charAt(0) == '\uFEFF') {
          line = line.substring(1);
        }
        if (line.startsWith("domain,")) {
          continue;
        }
      }
      int comma = line.lastIndexOf(',');
      String url = (comma < 0 ? line : line.substring(0, comma)).trim();
      if (!url.isEmpty()) {
        out.add(url);
      }
    }
    if (out.isEmpty()) {
      throw new IOException(p + " holds no URLs");
    }
    return out;
  }

  static List<String> syntheticBases(int count) {
    SplittableRandom r = new SplittableRandom(SEED + 1);
    String[] tlds = {"com", "org", "net", "de", "cn", "edu"};
    String[] words = {"news", "shop", "blog", "docs", "item", "user", "post", "tag", "wiki"};
    List<String> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(
          "www.site"
              + r.nextInt(5_000)
              + "."
              + tlds[r.nextInt(tlds.length)]
              + "/"
              + words[r.nextInt(words.length)]
              + "/"
              + i
              + ".html");
    }
    return out;
  }

  static long countDistinct(long[] hi, long[] lo, int n) {
    long[][] pairs = new long[n][];
    for (int i = 0; i < n; i++) {
      pairs[i] = new long[] {hi[i], lo[i]};
    }
    Arrays.sort(pairs, Comparator.<long[]>comparingLong(a -> a[0]).thenComparingLong(a -> a[1]));
    long distinct = n == 0 ? 0 : 1;
    for (int i = 1; i < n; i++) {
      if (pairs[i][0] != pairs[i - 1][0] || pairs[i][1] != pairs[i - 1][1]) {
        distinct++;
      }
    }
    return distinct;
  }
}
