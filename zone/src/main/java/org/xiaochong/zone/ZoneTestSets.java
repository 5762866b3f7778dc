package org.xiaochong.zone;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.TextParseException;

/**
 * The test sets of {@code zone-bench} and their check: the unique records (scaled beyond the real
 * ones by renaming owners), a set file of all of them plus an upper-cased copy of one group,
 * shuffled, and the count of distinct and unique keys a dedup output kept.
 */
final class ZoneTestSets {
  private ZoneTestSets() {}

  /**
   * Unique record i: base record i mod |base|, renamed with label "r&lt;round&gt;" after the first
   * round.
   */
  static Record uniqueRecord(List<Record> base, int i) {
    Record record = base.get(i % base.size());
    int round = i / base.size();
    if (round == 0) {
      return record;
    }
    try {
      return record.withName(Name.concatenate(Name.fromString("r" + round), record.getName()));
    } catch (TextParseException | org.xbill.DNS.NameTooLongException e) {
      throw new IllegalStateException("cannot rename " + record.getName(), e);
    }
  }

  /**
   * Writes all unique records plus an upper-cased copy of [groupStart, groupStart + groupSize),
   * shuffled by {@code seed}.
   */
  static void writeSet(
      Path file, List<Record> base, int uniqueCount, int groupStart, int groupSize, long seed)
      throws IOException {
    int total = uniqueCount + groupSize;
    int[] order = new int[total];
    for (int i = 0; i < total; i++) {
      order[i] = i;
    }
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = total - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int swap = order[i];
      order[i] = order[j];
      order[j] = swap;
    }
    try (Writer writer =
        new BufferedWriter(
            new OutputStreamWriter(Files.newOutputStream(file), StandardCharsets.ISO_8859_1),
            1 << 16)) {
      for (int index : order) {
        if (index < uniqueCount) {
          writer.write(uniqueRecord(base, index).toString());
        } else {
          Record original = uniqueRecord(base, groupStart + index - uniqueCount);
          Name upper = Name.fromString(original.getName().toString().toUpperCase(Locale.ROOT));
          writer.write(original.withName(upper).toString());
        }
        writer.write('\n');
      }
    }
  }

  /** {distinct keys in the output, distinct output keys that are unique-set keys}. */
  static long[] check(Path output, KeySet128 uniqueKeys) throws IOException {
    RecordKey keys = new RecordKey(true);
    KeySet128 seen = new KeySet128(uniqueKeys.size());
    long[] found = new long[1];
    new ZoneReader(null, null)
        .read(
            output,
            new ZoneReader.Listener() {
              @Override
              public void record(Record record) {
                byte[] key = keys.of(record);
                long high = RecordKey.high(key);
                long low = RecordKey.low(key);
                if (seen.add(high, low) && uniqueKeys.contains(high, low)) {
                  found[0]++;
                }
              }

              @Override
              public void skipped(String where, String why) {
                throw new IllegalStateException("output " + where + ": " + why);
              }
            });
    return new long[] {seen.size(), found[0]};
  }
}
