package org.xiaochong.method.simhash;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.xiaochong.concurrent.ParallelTasks;
import org.xiaochong.fingerprint.DocumentFrequencies;
import org.xiaochong.simhash.Simhash64;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;

/**
 * The document frequencies of simhash features for tf-idf weights ({@code simhash.weights=tf-idf}):
 * counted once over the whole table when the simhash index is built from empty, saved beside it,
 * and frozen for the life of that index. Frozen because a fingerprint must not change while other
 * rows come and go: with live frequencies every new row would shift the weights of the features it
 * holds and so the fingerprints of all the rows already indexed. A rebuild counts again.
 *
 * <p>Counts are kept by the feature's hash in 2^22 buckets (16 MiB), as seed 003 hashes its tokens:
 * a bucket holds the sum of the features that share it, so a collision can only raise a df and
 * lower an idf, never the other way. N is the number of rows counted; a row counts a feature once.
 * Immutable once counted or loaded: thread-safe.
 *
 * <p>A job that keeps no index (the Spark job) counts the same frequencies with the same code: a
 * {@link Counter} per slice of the table ({@link SimhashMethod#featureCounter}), the slices' counts
 * added up with {@link #plus}.
 */
public final class FeatureFrequencies implements DocumentFrequencies, java.io.Serializable {
  private static final long serialVersionUID = 1L;

  /** The file beside the simhash index. */
  static final String FILE = "feature-frequencies.bin.gz";

  private static final int MAGIC = 0x58434446; // "XCDF"
  private static final int VERSION = 1;
  private static final int BUCKET_BITS = 22;
  private static final int MASK = (1 << BUCKET_BITS) - 1;

  private final int[] counts;
  private final long docCount;

  private FeatureFrequencies(int[] counts, long docCount) {
    this.counts = counts;
    this.docCount = docCount;
  }

  @Override
  public long docCount() {
    return docCount;
  }

  @Override
  public long docFreq(String feature) {
    return docFreqOfHash(Simhash64.hash(feature));
  }

  /**
   * {@link #docFreq} of the feature whose {@link Simhash64#hash} is {@code hash}, for callers that
   * have it.
   */
  long docFreqOfHash(long hash) {
    return counts[bucket(hash)];
  }

  private static int bucket(long hash) {
    return (int) hash & MASK;
  }

  /**
   * Counts the features of every row of {@code source}, in {@code threads} id slices at once.
   *
   * @param maker the fields' text of a row, as the index fingerprints it
   */
  static FeatureFrequencies count(
      RecordSource source, Simhash64 simhash, SimhashDocumentMaker maker, int threads) {
    long[] range = source.idRange();
    if (range == null) {
      return new Counter(simhash, maker, null).counted();
    }
    int slices = Math.max(1, threads);
    long span = Math.max(1, (range[1] - range[0] + slices) / slices);
    List<Callable<FeatureFrequencies>> tasks = new ArrayList<>();
    for (int s = 0; s < slices; s++) {
      long from = range[0] + s * span;
      long to = s == slices - 1 ? range[1] + 1 : from + span;
      // one maker per slice: it keeps a buffer
      SimhashDocumentMaker own = maker.copy();
      tasks.add(() -> countSlice(source, simhash, own, from, to));
    }
    FeatureFrequencies sum = null;
    for (FeatureFrequencies slice :
        ParallelTasks.runAll(tasks, slices, "xiaochong-simhash-df", "counting features")) {
      sum = sum == null ? slice : sum.plus(slice);
    }
    return sum;
  }

  private static FeatureFrequencies countSlice(
      RecordSource source, Simhash64 simhash, SimhashDocumentMaker maker, long from, long to) {
    Counter counter = new Counter(simhash, maker, null);
    source.forEachRecordInRange(from, to, counter::add);
    return counter.counted();
  }

  /**
   * The frequencies of the rows counted here and those counted in {@code other}, for counts over
   * disjoint slices of a table (neither is changed).
   */
  public FeatureFrequencies plus(FeatureFrequencies other) {
    int[] sum = counts.clone();
    for (int i = 0; i < sum.length; i++) {
      sum[i] += other.counts[i];
    }
    return new FeatureFrequencies(sum, docCount + other.docCount);
  }

  /**
   * Counts the features of rows into the buckets, each row's distinct features (buckets) once. Not
   * thread-safe: one per thread or slice.
   */
  public static final class Counter implements java.io.Closeable {
    private final Simhash64 simhash;
    private final SimhashDocumentMaker maker;
    private final Simhash64 owned;
    private final int[] counts = new int[MASK + 1];
    private long rows;
    private long[] seen = new long[64];

    /**
     * @param maker the fields' text of a row, as the index fingerprints it
     * @param owned closed by {@link #close} ({@code simhash} when the counter made it), or null
     */
    Counter(Simhash64 simhash, SimhashDocumentMaker maker, Simhash64 owned) {
      this.simhash = simhash;
      this.maker = maker;
      this.owned = owned;
    }

    /** Counts one row. */
    public void add(SourceRecord record) {
      rows++;
      List<String> features = simhash.features(maker.text(record));
      if (seen.length < features.size()) {
        seen = new long[features.size()];
      }
      for (int i = 0; i < features.size(); i++) {
        seen[i] = bucket(Simhash64.hash(features.get(i)));
      }
      Arrays.sort(seen, 0, features.size());
      for (int i = 0; i < features.size(); i++) {
        if (i == 0 || seen[i] != seen[i - 1]) { // a row counts each feature (bucket) once
          counts[(int) seen[i]]++;
        }
      }
    }

    /** The frequencies of the rows counted so far (the counter is not to be used after). */
    public FeatureFrequencies counted() {
      return new FeatureFrequencies(counts, rows);
    }

    @Override
    public void close() {
      if (owned != null) {
        owned.close();
      }
    }
  }

  /**
   * Saves to {@code dir}/{@value #FILE}, replacing the file at once (written aside, then moved).
   */
  void save(Path dir) {
    Path file = dir.resolve(FILE);
    Path partial = dir.resolve(FILE + ".partial");
    try (DataOutputStream out =
        new DataOutputStream(new GZIPOutputStream(Files.newOutputStream(partial), 1 << 16))) {
      out.writeInt(MAGIC);
      out.writeInt(VERSION);
      out.writeInt(BUCKET_BITS);
      out.writeLong(docCount);
      for (int count : counts) {
        out.writeInt(count);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot save " + file + ": " + e.getMessage(), e);
    }
    try {
      Files.move(
          partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot save " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * The frequencies saved in {@code dir}.
   *
   * @throws BadInputException when the file is missing or unreadable: the index's fingerprints were
   *     made with frequencies that are lost, so the index must be rebuilt
   */
  static FeatureFrequencies load(Path dir) {
    Path file = dir.resolve(FILE);
    try (DataInputStream in =
        new DataInputStream(new GZIPInputStream(Files.newInputStream(file), 1 << 16))) {
      if (in.readInt() != MAGIC || in.readInt() != VERSION || in.readInt() != BUCKET_BITS) {
        throw new IOException("not a feature frequency file of this version");
      }
      long docCount = in.readLong();
      int[] counts = new int[MASK + 1];
      for (int i = 0; i < counts.length; i++) {
        counts[i] = in.readInt();
      }
      return new FeatureFrequencies(counts, docCount);
    } catch (NoSuchFileException e) {
      throw new BadInputException(
          "the simhash index in "
              + dir
              + " has tf-idf fingerprints but no "
              + FILE
              + ": rebuild it (`dedup run --method simhash --rebuild-index`)");
    } catch (IOException e) {
      throw new BadInputException(
          "cannot read "
              + file
              + " ("
              + e.getMessage()
              + "): rebuild the simhash index"
              + " (`dedup run --method simhash --rebuild-index`)");
    }
  }
}
