package org.xiaochong.zone;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

class ZoneReaderTest {
  @TempDir Path dir;

  /** What a reader gives its listener, in order: records as text, skipped entries as "skip …". */
  private static List<String> events(Path file, int parseThreads) throws IOException {
    List<String> events = new ArrayList<>();
    new ZoneReader(null, Name.fromConstantString("example."), parseThreads)
        .read(
            file,
            new ZoneReader.Listener() {
              @Override
              public void record(Record record) {
                events.add(record.toString());
              }

              @Override
              public void skipped(String where, String why) {
                events.add("skip " + where + ": " + why);
              }
            });
    return events;
  }

  /**
   * A zone mixing every case where an entry depends on the records before it (omitted owners and
   * TTLs, $TTL and $ORIGIN changes, a first SOA without TTL, multi-line records, a '(' left open,
   * bad entries) with long runs of independent ones, so that batches, in-line entries and errors
   * interleave.
   */
  private Path mixedZone() throws IOException {
    Random random = new Random(7);
    StringBuilder zone = new StringBuilder();
    // A TTL of its own, not the minimum: no default TTL until the first $TTL, half way through, so
    // that an omitted TTL is the previous record's.
    zone.append("@ 900 IN SOA ns1.example. admin.example. ( 1 3600 600 86400 300 )\n");
    for (int i = 0; i < 5000; i++) {
      switch (random.nextInt(14)) {
        case 0 ->
            zone.append("\t\tIN A 10.0.")
                .append(i % 250)
                .append('.')
                .append(i % 7)
                .append('\n'); // owner omitted
        case 1 ->
            zone.append("host")
                .append(i)
                .append(" IN A 10.1.0.")
                .append(i % 250)
                .append('\n'); // TTL omitted
        case 2 -> zone.append(i < 2500 ? "" : "$TTL " + (60 + i % 5) + "\n");
        case 3 -> zone.append("$ORIGIN sub").append(i % 3).append(".example.\n");
        case 4 ->
            zone.append("bad").append(i).append(" 3600 IN A 999.1.1.1\n"); // rejected by dnsjava
        case 5 ->
            zone.append("txt").append(i).append(" 300 IN TXT ( \"part one\"\n    \"part two\" )\n");
        case 6 ->
            zone.append("class")
                .append(i)
                .append(" IN 7200 AAAA 2001:db8::")
                .append(Integer.toHexString(i))
                .append('\n');
        case 7 ->
            zone.append("esc\\ aped")
                .append(i)
                .append(" 120 IN CNAME target")
                .append(i % 9)
                .append('\n');
        default ->
            zone.append("n")
                .append(i % 400)
                .append(".example. ")
                .append(3600 + i % 3)
                .append(" IN NS ns")
                .append(i % 5)
                .append(".example.\n");
      }
    }
    zone.append("open 3600 IN TXT ( \"never closed\"\nafter 3600 IN A 10.9.9.9\n");
    Path file = dir.resolve("mixed.zone");
    Files.writeString(file, zone, StandardCharsets.ISO_8859_1);
    return file;
  }

  @Test
  void read_withParseThreads_givesTheListenerExactlyWhatOneThreadGives() throws IOException {
    Path zone = mixedZone();

    List<String> oneThread = events(zone, 1);
    List<String> threeThreads = events(zone, 3);

    assertThat(oneThread).hasSizeGreaterThan(4000);
    assertThat(oneThread).anyMatch(e -> e.startsWith("skip "));
    assertThat(threeThreads).isEqualTo(oneThread);
  }
}
