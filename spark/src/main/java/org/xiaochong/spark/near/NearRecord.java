package org.xiaochong.spark.near;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.function.Function;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.method.near.NearRule;
import org.xiaochong.method.near.NearSettings;
import org.xiaochong.method.near.fingerprint.Evidence;
import org.xiaochong.method.near.fingerprint.Fingerprints;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.method.near.fingerprint.NearOutcome;
import org.xiaochong.method.near.fingerprint.TopTermsMd5;
import org.xiaochong.method.near.index.NearDocumentMaker;
import org.xiaochong.source.SourceRecord;

/**
 * One record's near fingerprints as the near index stores them ({@link NearDocumentMaker}, {@link
 * NearRule.Stored#of}), made in the map by the single machine's code and carried between stages as
 * bytes: its outcome, the keys the index counts in its key frequencies, and its keys for the rule.
 *
 * @param outcome why it has no fingerprints, or {@link NearOutcome#OK}
 * @param counted the distinct keys the near index holds for it as terms (its keys and its evidence
 *     column keys): what the key frequencies count
 * @param keys its keys for {@link NearRule} (null unless the outcome is OK)
 */
public record NearRecord(NearOutcome outcome, long[] counted, NearRule.Stored keys) {

  /** The near settings of a config ({@code near.*}). */
  public static NearConfig config(DedupConfig config) {
    return NearSettings.of(config.methodSettings());
  }

  /**
   * The encoder of one partition: a document maker of its own (it keeps buffers) over the table's
   * near fields, as the near index makes its documents.
   */
  public static Function<SourceRecord, byte[]> encoder(DedupConfig config) {
    return encoder(config, null);
  }

  /**
   * As {@link #encoder(DedupConfig)}; in a Spark task, {@code keyTimes} gets where the partition's
   * fingerprinting time went when the task ends, as the single machine's report gives it.
   */
  public static Function<SourceRecord, byte[]> encoder(DedupConfig config, KeyTimes keyTimes) {
    NearConfig near = config(config);
    TopTermsMd5 fingerprinter = new TopTermsMd5(near);
    NearDocumentMaker maker = new NearDocumentMaker(config.table(), fingerprinter);
    org.apache.spark.TaskContext task = org.apache.spark.TaskContext.get();
    if (task != null) {
      task.addTaskCompletionListener(
          (org.apache.spark.TaskContext done) -> {
            if (keyTimes != null && !done.isFailed()) {
              keyTimes.add(done.partitionId(), fingerprinter.keyFamilyTimes());
            }
            fingerprinter.close();
          });
    }
    return record -> {
      Fingerprints fingerprints = maker.fingerprint(record);
      Evidence evidence = maker.evidence(record, fingerprints);
      return encode(
          fingerprints.outcome(),
          fingerprints.truncated(),
          NearRule.Stored.of(fingerprints, near.pre(), maker.matchKeys(record), evidence));
    };
  }

  /** Marks a record cut to near.max-chars, in the outcome's byte. */
  private static final int TRUNCATED = 0x40;

  static byte[] encode(NearOutcome outcome, boolean truncated, NearRule.Stored keys) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(outcome.ordinal() | (truncated ? TRUNCATED : 0));
      write(out, keys.keys());
      write(out, keys.top());
      write(out, keys.tel());
      write(out, keys.numbers());
      write(out, keys.matches());
      write(out, keys.grams());
      write(out, keys.shingles());
      out.writeInt(keys.presentFields());
      int[] fields = keys.presentFields() != 0 ? keys.keyFields() : null;
      out.writeInt(fields == null ? -1 : fields.length);
      if (fields != null) {
        for (int field : fields) {
          out.writeInt(field);
        }
      }
      out.writeInt(keys.shortFields());
      Evidence evidence = keys.evidence();
      byte[] encoded = evidence.isEmpty() ? new byte[0] : evidence.encode();
      out.writeInt(encoded.length);
      out.write(encoded);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** The outcome of a record encoded by {@link #encoder}, without decoding its keys. */
  public static NearOutcome outcomeOf(byte[] encoded) {
    return NearOutcome.values()[encoded[0] & ~TRUNCATED];
  }

  /** Whether the record's text was cut to near.max-chars (it is fingerprinted on its start). */
  public static boolean truncated(byte[] encoded) {
    return (encoded[0] & TRUNCATED) != 0;
  }

  /** The record encoded by {@link #encoder}. */
  public static NearRecord decode(byte[] encoded) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
      NearOutcome outcome = NearOutcome.values()[in.readByte() & ~TRUNCATED];
      long[] keys = read(in);
      long[] top = read(in);
      long[] tel = read(in);
      long[] numbers = read(in);
      long[] matches = read(in);
      long[] grams = read(in);
      long[] shingles = read(in);
      int present = in.readInt();
      int fieldCount = in.readInt();
      int[] fields = null;
      if (fieldCount >= 0) {
        fields = new int[fieldCount];
        for (int i = 0; i < fieldCount; i++) {
          fields[i] = in.readInt();
        }
      }
      int shortFields = in.readInt();
      byte[] evidenceBytes = new byte[in.readInt()];
      in.readFully(evidenceBytes);
      Evidence evidence =
          evidenceBytes.length == 0
              ? Evidence.NONE
              : Evidence.decode(evidenceBytes, 0, evidenceBytes.length);
      long[] counted = keys;
      if (!evidence.isEmpty()) {
        counted =
            Arrays.stream(
                    java.util.stream.LongStream.concat(
                            Arrays.stream(keys), Arrays.stream(evidence.columnKeys()))
                        .toArray())
                .sorted()
                .distinct()
                .toArray();
      }
      NearRule.Stored stored =
          new NearRule.Stored(
              keys,
              top,
              tel,
              numbers,
              matches,
              grams,
              shingles,
              present,
              fields,
              shortFields,
              evidence);
      return new NearRecord(outcome, counted, stored);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(DataOutputStream out, long[] values) throws IOException {
    out.writeInt(values == null ? 0 : values.length);
    if (values != null) {
      for (long value : values) {
        out.writeLong(value);
      }
    }
  }

  private static long[] read(DataInputStream in) throws IOException {
    long[] values = new long[in.readInt()];
    for (int i = 0; i < values.length; i++) {
      values[i] = in.readLong();
    }
    return values;
  }
}
