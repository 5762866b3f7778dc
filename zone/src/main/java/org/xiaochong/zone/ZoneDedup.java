package org.xiaochong.zone;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;
import org.xiaochong.simhash.Simhash64;

/**
 * Removes duplicate resource records from master files: a record is a duplicate when its {@link
 * RecordKey} (owner, class, type, canonical rdata and, unless TTL-insensitive, TTL) was seen
 * before; the first occurrence is kept and written, in input order, as dnsjava prints it (absolute
 * names, one record per line, bytes outside printable ASCII as \DDD).
 *
 * <p>Streaming: records are parsed, keyed and written one at a time; the only state that grows is
 * the set of 16-byte keys ({@link KeySet128}, 34 to 68 bytes per distinct record: 71 MB for 2M
 * distinct records).
 *
 * <p>{@link #seedSimhash} adds seed 003's method as a report: per record the simhash of its five
 * field tokens (Name, TTL, class, type, value) with tf-idf weights and MD5 feature hashes, records
 * with an equal simhash counted as duplicates. Not thread-safe.
 */
final class ZoneDedup {

  /** Counts of one dedup run. */
  record Result(long recordsIn, long recordsOut, long skipped, double seconds, double cpuSeconds) {
    /** Seed 003's D: duplicate records in the input (records beyond the first of each key). */
    long duplicatesIn() {
      return recordsIn - recordsOut;
    }

    double recordsPerSecond() {
      return seconds > 0 ? recordsIn / seconds : 0;
    }

    /**
     * Records per CPU-second of the reading thread and the parse threads: the speed per core, which
     * the wall-clock figure only shows on an idle machine (GC and JIT threads are not counted).
     */
    double recordsPerCpuSecond() {
      return cpuSeconds > 0 ? recordsIn / cpuSeconds : 0;
    }
  }

  /** A record's key and, when made on a parse thread, its text (the zone line written for it). */
  private record KeyedRecord(byte[] key, String text) {}

  /** Seed 003's simhash rule on the same input: what equal-simhash dedup would keep. */
  record SimhashResult(
      long recordsIn, long distinctKeys, long recordsKept, long keysKept, double seconds) {
    /** Records removed by the simhash rule. */
    long removed() {
      return recordsIn - recordsKept;
    }

    /** Distinct records (keys) of which the simhash rule kept no copy: wrongly merged. */
    long distinctRecordsLost() {
      return distinctKeys - keysKept;
    }

    /** Duplicates the simhash rule left in (same key kept twice: their simhashes differ). */
    long duplicatesLeft() {
      return recordsKept - keysKept;
    }
  }

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /**
   * Records per window over which the share of new records is measured. The parse threads format
   * every record's text while most records are new (then the reading thread, the slower side, only
   * writes); when most are copies they would format text that is never written, so the reading
   * thread formats the new ones itself. Output is the same either way; on the bench's inputs this
   * choice was worth 341k against 250k records/s (1/6 copies) and 244k against 191k (95 % copies).
   */
  private static final int FORMAT_WINDOW = 4096;

  private final ZoneReader reader;
  private volatile boolean formatOnParseThreads = true;
  private final boolean withTtl;
  private final BiConsumer<String, String> skippedSink;

  /**
   * @param skippedSink receives each skipped entry ("file:line", why)
   */
  ZoneDedup(ZoneReader reader, boolean withTtl, BiConsumer<String, String> skippedSink) {
    this.reader = reader;
    this.withTtl = withTtl;
    this.skippedSink = skippedSink;
  }

  /** Reads {@code inputs}, writes the first occurrence of every record to {@code out}. */
  Result run(List<Path> inputs, Path out) throws IOException {
    long start = System.nanoTime();
    long cpuStart = THREADS.getCurrentThreadCpuTime() + reader.parseCpuNanos();
    RecordKey keys = new RecordKey(withTtl);
    KeySet128 seen = new KeySet128(1 << 16);
    long[] counts = new long[3]; // in, out, skipped
    long[] windowStartWritten = {0};
    formatOnParseThreads = true;
    try (Writer writer =
        new BufferedWriter(
            new OutputStreamWriter(Files.newOutputStream(out), StandardCharsets.ISO_8859_1),
            1 << 16)) {
      ZoneReader.Listener listener =
          new ZoneReader.Listener() {
            @Override
            public void record(Record record) {
              record(record, null);
            }

            @Override
            public void record(Record record, Object prepared) {
              KeyedRecord keyed =
                  prepared != null
                      ? (KeyedRecord) prepared
                      : new KeyedRecord(keys.of(record), null);
              counts[0]++;
              if ((counts[0] & (FORMAT_WINDOW - 1)) == 0) {
                long written = counts[1] - windowStartWritten[0];
                formatOnParseThreads =
                    written * 2 >= FORMAT_WINDOW; // most of the window was new records
                windowStartWritten[0] = counts[1];
              }
              if (seen.add(RecordKey.high(keyed.key()), RecordKey.low(keyed.key()))) {
                counts[1]++;
                try {
                  writer.write(keyed.text() != null ? keyed.text() : record.toString());
                  writer.write('\n');
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              }
            }

            @Override
            public Function<Record, Object> preparer() {
              RecordKey batchKeys =
                  new RecordKey(withTtl); // keeps a digest: one per batch, on its parse thread
              boolean format = formatOnParseThreads;
              return record ->
                  new KeyedRecord(batchKeys.of(record), format ? record.toString() : null);
            }

            @Override
            public void skipped(String where, String why) {
              counts[2]++;
              skippedSink.accept(where, why);
            }
          };
      for (Path input : inputs) {
        reader.read(input, listener);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    return new Result(
        counts[0],
        counts[1],
        counts[2],
        (System.nanoTime() - start) / 1e9,
        (THREADS.getCurrentThreadCpuTime() + reader.parseCpuNanos() - cpuStart) / 1e9);
  }

  /*
   * Seed 003, section 2.3: each record is cut into its five fields, each field is one token (Name,
   * TTL, IN, RR-Type, Value); weight = tf * idf; each token hashed with MD5; Charikar's sum of
   * +-weight per bit. Here: tf = the token's count in the record / 5 (the seed's f = x / Σx); idf =
   * BM25 idf over the input's records, N = records read, df = records whose field has that token.
   * Tokens are the owner lower-cased, the TTL in seconds, the class and type mnemonics and dnsjava's
   * rdata text. Section 2.4: a record whose simhash equals an earlier one's is a duplicate.
   *
   * Two passes over the inputs, because idf needs the whole input's df before the first simhash:
   * pass 1 counts df in a table of 2^22 int counters indexed by the token's hash (fixed 16 MB; a
   * collision can only raise a df, so an idf is never too high), pass 2 computes the simhashes and
   * keeps the first of each in a set of 64-bit values, with the exact key beside it to count what
   * the rule merges wrongly. The dedup itself never uses it (RecordKey decides).
   */
  private static final int DF_BITS = 22;

  SimhashResult seedSimhash(List<Path> inputs) throws IOException {
    long start = System.nanoTime();
    int[] df = new int[1 << DF_BITS];
    int mask = df.length - 1;
    long[] recordsIn = new long[1];
    ZoneReader.Listener quiet =
        new ZoneReader.Listener() {
          @Override
          public void record(Record record) {
            recordsIn[0]++;
            for (String token : tokens(record)) {
              df[(int) Simhash64.hash(token) & mask]++;
            }
          }

          @Override
          public void skipped(String where, String why) {}
        };
    for (Path input : inputs) {
      reader.read(input, quiet);
    }
    long docCount = recordsIn[0];
    RecordKey keys = new RecordKey(withTtl);
    KeySet128 allKeys = new KeySet128(1 << 16);
    KeySet128 keptSimhashes = new KeySet128(1 << 16);
    KeySet128 keptKeys = new KeySet128(1 << 16);
    long[] kept = new long[1];
    ZoneReader.Listener pass2 =
        new ZoneReader.Listener() {
          final double[] sums = new double[Simhash64.BITS];

          @Override
          public void record(Record record) {
            String[] tokens = tokens(record);
            java.util.Arrays.fill(sums, 0);
            for (String token : tokens) {
              long hash = Simhash64.hash(token);
              double idf =
                  Math.log(
                      1 + (docCount - df[(int) hash & mask] + 0.5) / (df[(int) hash & mask] + 0.5));
              Simhash64.add(
                  sums,
                  hash,
                  idf / tokens.length); // a token twice in a record adds twice: tf = 2/5
            }
            long simhash = Simhash64.toBits(sums);
            byte[] key = keys.of(record);
            allKeys.add(RecordKey.high(key), RecordKey.low(key));
            if (keptSimhashes.add(simhash, 1)) {
              kept[0]++;
              keptKeys.add(RecordKey.high(key), RecordKey.low(key));
            }
          }

          @Override
          public void skipped(String where, String why) {}
        };
    for (Path input : inputs) {
      reader.read(input, pass2);
    }
    return new SimhashResult(
        docCount, allKeys.size(), kept[0], keptKeys.size(), (System.nanoTime() - start) / 1e9);
  }

  /** Seed 003's five field tokens of a record. */
  static String[] tokens(Record record) {
    Name owner = record.getName().canonicalize();
    return new String[] {
      owner.toString(),
      Long.toString(record.getTTL()),
      DClass.string(record.getDClass()),
      Type.string(record.getType()),
      record.rdataToString()
    };
  }
}
