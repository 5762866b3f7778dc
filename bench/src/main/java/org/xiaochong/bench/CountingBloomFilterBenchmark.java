package org.xiaochong.bench;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.commons.collections4.bloomfilter.ArrayCountingBloomFilter;
import org.apache.commons.collections4.bloomfilter.CellExtractor;
import org.apache.commons.collections4.bloomfilter.EnhancedDoubleHasher;
import org.apache.commons.collections4.bloomfilter.Shape;
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
import org.openjdk.jmh.annotations.Warmup;
import org.xiaochong.bloom.CountingBloomFilter;
import org.xiaochong.bloom.FilterShape;

/**
 * Add / contains / remove throughput of our packed 4-bit {@link CountingBloomFilter} against
 * Guava's {@link BloomFilter} (add and contains only: it cannot remove) and Commons Collections
 * 4.5's {@link ArrayCountingBloomFilter} (one int per counter), sized for 10M MD5 keys at m/N = 20,
 * k = 10 (seed 001). Commons gets the same m and k ({@code Shape.fromKM}); Guava only takes a
 * target FPP, so it gets ours (8.89e-5) and picks its own m and k (k = 13). Memory of each is
 * printed in setup.
 *
 * <p>Keys: 2^24 uniform random MD5 digests built in {@code @Setup}, read as {@code keys[i++ &
 * MASK]}. The "filled" filters hold the first 10M of them, so {@code contains} sees ~60% present
 * keys and ~40% absent ones. {@code removeAdd} removes a present key and puts it back (one remove +
 * one add per op), which keeps the filter in steady state. Guava hashes the 16 digest bytes again
 * (murmur3_128): its API takes objects, not hashes; Commons and ours take the two 64-bit halves
 * directly.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar CountingBloomFilterBenchmark}; short run as
 * in bench/RESULTS.md: {@code java -jar bench/target/benchmarks.jar CountingBloomFilterBenchmark -f
 * 1 -wi 2 -i 3 -w 2s -r 2s}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// One fork: the filters are 25 MB to 800 MB, so each run needs a big heap of its own. -Xms = -Xmx
// avoids heap resizing during measurement; 4 GB holds Commons' 800 MB int[] twice (per-iteration
// fresh filter for add) plus the 256 MB key arrays.
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
public class CountingBloomFilterBenchmark {

  static final int INSERTIONS = 10_000_000;
  static final int COUNTERS_PER_KEY = 20;
  static final int HASHES = 10;
  static final int KEY_BITS = 24;
  static final int MASK = (1 << KEY_BITS) - 1;

  /** Keys [0, 2^23) are all among the 10M inserted ones: removeAdd only removes present keys. */
  static final int PRESENT_MASK = (1 << 23) - 1;

  static final FilterShape SHAPE =
      FilterShape.fromExpectedInsertions(INSERTIONS, COUNTERS_PER_KEY, HASHES);

  /** 2^24 MD5 digests as (high, low) halves: 256 MB. */
  @State(Scope.Benchmark)
  public static class Keys {
    long[] high;
    long[] low;

    @Setup(Level.Trial)
    public void setUp() throws NoSuchAlgorithmException {
      MessageDigest md5 = MessageDigest.getInstance("MD5");
      SplittableRandom random = new SplittableRandom(42);
      high = new long[MASK + 1];
      low = new long[MASK + 1];
      ByteBuffer input = ByteBuffer.allocate(Long.BYTES);
      for (int i = 0; i <= MASK; i++) {
        input.clear();
        input.putLong(random.nextLong());
        ByteBuffer digest = ByteBuffer.wrap(md5.digest(input.array()));
        high[i] = digest.getLong();
        low[i] = digest.getLong();
      }
    }
  }

  /** Reused holder so Guava's put/mightContain allocate nothing of ours. */
  static final class Key {
    long high;
    long low;
  }

  static final Funnel<Key> KEY_FUNNEL = (key, sink) -> sink.putLong(key.high).putLong(key.low);

  // ---- ours ----

  /** Fresh (empty) filter each iteration. */
  @State(Scope.Benchmark)
  public static class OursEmpty {
    CountingBloomFilter filter;
    int i;

    @Setup(Level.Iteration)
    public void setUp() {
      filter = new CountingBloomFilter(SHAPE);
      System.out.printf("%nours: %s, memory %,d bytes%n", SHAPE, filter.memoryBytes());
    }
  }

  /** Filter holding the first 10M keys. */
  @State(Scope.Benchmark)
  public static class OursFilled {
    CountingBloomFilter filter;
    int i;

    @Setup(Level.Trial)
    public void setUp(Keys keys) {
      filter = new CountingBloomFilter(SHAPE);
      for (int k = 0; k < INSERTIONS; k++) {
        filter.put(keys.high[k], keys.low[k]);
      }
      System.out.printf(
          "%nours: %s, memory %,d bytes, saturated %d%n",
          SHAPE, filter.memoryBytes(), filter.saturatedCounters());
    }
  }

  @Benchmark
  public boolean oursAdd(OursEmpty state, Keys keys) {
    int k = state.i++ & MASK;
    return state.filter.put(keys.high[k], keys.low[k]);
  }

  @Benchmark
  public boolean oursContains(OursFilled state, Keys keys) {
    int k = state.i++ & MASK;
    return state.filter.mightContain(keys.high[k], keys.low[k]);
  }

  @Benchmark
  public boolean oursRemoveAdd(OursFilled state, Keys keys) {
    int k = state.i++ & PRESENT_MASK;
    boolean removed = state.filter.remove(keys.high[k], keys.low[k]);
    return state.filter.put(keys.high[k], keys.low[k]) & removed;
  }

  // ---- Guava ----

  static BloomFilter<Key> newGuava() {
    BloomFilter<Key> filter =
        BloomFilter.create(KEY_FUNNEL, INSERTIONS, SHAPE.expectedFpp(INSERTIONS));
    double fpp = SHAPE.expectedFpp(INSERTIONS);
    // Guava's sizing (BloomFilter.optimalNumOfBits / optimalNumOfHashFunctions), bits in longs.
    long bits = (long) (-INSERTIONS * Math.log(fpp) / (Math.log(2) * Math.log(2)));
    int k = Math.max(1, (int) Math.round((double) bits / INSERTIONS * Math.log(2)));
    System.out.printf(
        "%nguava: fpp %.3e, m=%,d bits, k=%d, memory ~%,d bytes%n",
        fpp, bits, k, (bits + 63) / 64 * 8);
    return filter;
  }

  @State(Scope.Benchmark)
  public static class GuavaEmpty {
    BloomFilter<Key> filter;
    final Key key = new Key();
    int i;

    @Setup(Level.Iteration)
    public void setUp() {
      filter = newGuava();
    }
  }

  @State(Scope.Benchmark)
  public static class GuavaFilled {
    BloomFilter<Key> filter;
    final Key key = new Key();
    int i;

    @Setup(Level.Trial)
    public void setUp(Keys keys) {
      filter = newGuava();
      for (int k = 0; k < INSERTIONS; k++) {
        key.high = keys.high[k];
        key.low = keys.low[k];
        filter.put(key);
      }
    }
  }

  @Benchmark
  public boolean guavaAdd(GuavaEmpty state, Keys keys) {
    int k = state.i++ & MASK;
    state.key.high = keys.high[k];
    state.key.low = keys.low[k];
    return state.filter.put(state.key);
  }

  @Benchmark
  public boolean guavaContains(GuavaFilled state, Keys keys) {
    int k = state.i++ & MASK;
    state.key.high = keys.high[k];
    state.key.low = keys.low[k];
    return state.filter.mightContain(state.key);
  }

  // ---- Commons Collections 4.5 ----
  // The idiomatic merge(Hasher)/remove(Hasher) go through IndexExtractor.uniqueIndices(), which
  // builds a java.util.BitSet as large as the highest index (up to m bits = 25 MB per call at
  // m = 2e8): ~100 ops/s (commonsAddViaMerge). The main Commons benchmarks therefore use the direct
  // path add/subtract(CellExtractor.from(hasher.indices(shape))), which counts a repeated index
  // twice, exactly as ours does.

  static ArrayCountingBloomFilter newCommons() {
    Shape shape = Shape.fromKM(HASHES, Math.toIntExact(SHAPE.counters()));
    System.out.printf(
        "%ncommons: %s, memory %,d bytes (int per counter)%n", shape, 4L * shape.getNumberOfBits());
    return new ArrayCountingBloomFilter(shape);
  }

  static CellExtractor cells(ArrayCountingBloomFilter filter, long high, long low) {
    return CellExtractor.from(new EnhancedDoubleHasher(high, low).indices(filter.getShape()));
  }

  @State(Scope.Benchmark)
  public static class CommonsEmpty {
    ArrayCountingBloomFilter filter;
    int i;

    @Setup(Level.Iteration)
    public void setUp() {
      filter = null; // let the previous iteration's 800 MB go before allocating the next
      filter = newCommons();
    }
  }

  @State(Scope.Benchmark)
  public static class CommonsFilled {
    ArrayCountingBloomFilter filter;
    int i;

    @Setup(Level.Trial)
    public void setUp(Keys keys) {
      filter = newCommons();
      for (int k = 0; k < INSERTIONS; k++) {
        filter.add(cells(filter, keys.high[k], keys.low[k]));
      }
    }
  }

  @Benchmark
  public boolean commonsAdd(CommonsEmpty state, Keys keys) {
    int k = state.i++ & MASK;
    return state.filter.add(cells(state.filter, keys.high[k], keys.low[k]));
  }

  @Benchmark
  public boolean commonsAddViaMerge(CommonsEmpty state, Keys keys) {
    int k = state.i++ & MASK;
    return state.filter.merge(new EnhancedDoubleHasher(keys.high[k], keys.low[k]));
  }

  @Benchmark
  public boolean commonsContains(CommonsFilled state, Keys keys) {
    int k = state.i++ & MASK;
    return state.filter.contains(new EnhancedDoubleHasher(keys.high[k], keys.low[k]));
  }

  @Benchmark
  public boolean commonsRemoveAdd(CommonsFilled state, Keys keys) {
    int k = state.i++ & PRESENT_MASK;
    boolean removed = state.filter.subtract(cells(state.filter, keys.high[k], keys.low[k]));
    return state.filter.add(cells(state.filter, keys.high[k], keys.low[k])) & removed;
  }
}
