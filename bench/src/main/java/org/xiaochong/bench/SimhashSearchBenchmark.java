package org.xiaochong.bench;

import com.google.common.hash.Hashing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.xiaochong.simhash.Simhash64;
import org.xiaochong.simhash.SimhashIndex;

/**
 * All fingerprints within Hamming distance 3 of a query among 1M: {@link SimhashIndex} (4 block
 * terms of 16 bits, seekExact + doc values per candidate) against a linear scan of a long[] with
 * {@code Long.bitCount(a ^ b) <= 3}. Both return the number of hits. The fingerprints are uniform
 * random (SplittableRandom seed 42), the index is an MMapDirectory in a temporary folder (what
 * FSDirectory.open picks on Linux; ByteBuffersDirectory was ~2.5x slower per query here) merged to
 * one segment. Queries: 4,096, half an indexed fingerprint with 0..3 bits flipped (at least one
 * hit), half random (almost always none), read as {@code queries[i++ & MASK]}.
 *
 * <p>Also the per-feature hash: the first 8 bytes of MD5 ({@link Simhash64#hash}) against Guava's
 * Murmur3-128 on 4-character shingles.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar SimhashSearchBenchmark}; short run as in
 * bench/RESULTS.md: {@code java -jar bench/target/benchmarks.jar SimhashSearchBenchmark -f 1 -wi 2
 * -i 3 -w 2s -r 2s}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
// One fork: building the 1M-document index takes ~10-20 s of setup per fork. 2 GB holds the index
// (~40 MB) and the IndexWriter's buffer with room to spare.
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class SimhashSearchBenchmark {

  static final int FINGERPRINTS = 1_000_000;
  static final int QUERY_BITS = 12;
  static final int MASK = (1 << QUERY_BITS) - 1;

  @State(Scope.Benchmark)
  public static class Fingerprints {
    long[] values;
    long[] queries;
    Path path;
    Directory directory;
    DirectoryReader reader;
    int next;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
      SplittableRandom random = new SplittableRandom(42);
      values = new long[FINGERPRINTS];
      for (int i = 0; i < FINGERPRINTS; i++) {
        values[i] = random.nextLong();
      }
      queries = new long[MASK + 1];
      for (int i = 0; i < queries.length; i++) {
        if (i % 2 == 0) {
          long query = values[random.nextInt(FINGERPRINTS)];
          int flips = random.nextInt(SimhashIndex.MAX_DISTANCE + 1);
          for (int f = 0; f < flips; f++) {
            query ^= 1L << random.nextInt(64); // may flip one bit twice: distance <= flips
          }
          queries[i] = query;
        } else {
          queries[i] = random.nextLong();
        }
      }
      path = Files.createTempDirectory("simhash-bench");
      directory = new MMapDirectory(path);
      try (IndexWriter writer =
          new IndexWriter(directory, new IndexWriterConfig().setRAMBufferSizeMB(256))) {
        for (long value : values) {
          Document document = new Document();
          SimhashIndex.addFields(document, value);
          writer.addDocument(document);
        }
        writer.forceMerge(1);
      }
      reader = DirectoryReader.open(directory);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      reader.close();
      directory.close();
      try (Stream<Path> files = Files.walk(path)) {
        files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
      }
    }

    long nextQuery() {
      return queries[next++ & MASK];
    }
  }

  @Benchmark
  public int luceneBlocks(Fingerprints state) throws IOException {
    return SimhashIndex.search(state.reader, state.nextQuery()).size();
  }

  @Benchmark
  public int linearScan(Fingerprints state) {
    long query = state.nextQuery();
    long[] values = state.values;
    int hits = 0;
    for (long value : values) {
      if (Long.bitCount(query ^ value) <= SimhashIndex.MAX_DISTANCE) {
        hits++;
      }
    }
    return hits;
  }

  @State(Scope.Benchmark)
  public static class Shingles {
    String[] shingles;
    int next;

    @Setup(Level.Trial)
    public void setUp() {
      SplittableRandom random = new SplittableRandom(7);
      shingles = new String[MASK + 1];
      for (int i = 0; i < shingles.length; i++) {
        StringBuilder shingle = new StringBuilder();
        for (int c = 0; c < 4; c++) {
          shingle.append((char) (0x4E00 + random.nextInt(0x9FA6 - 0x4E00)));
        }
        shingles[i] = shingle.toString();
      }
    }
  }

  @Benchmark
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public long featureHashMd5(Shingles state) {
    return Simhash64.hash(state.shingles[state.next++ & MASK]);
  }

  @Benchmark
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public long featureHashMurmur3(Shingles state) {
    return Hashing.murmur3_128()
        .hashString(state.shingles[state.next++ & MASK], StandardCharsets.UTF_8)
        .asLong();
  }
}
