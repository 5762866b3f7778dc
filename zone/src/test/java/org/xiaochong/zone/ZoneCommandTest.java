package org.xiaochong.zone;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.cli.DedupCommand;

class ZoneCommandTest {
  @TempDir Path dir;

  record Run(int exitCode, String out, String err) {}

  Run zone(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> all = new ArrayList<>(List.of("zone"));
    all.addAll(List.of(args));
    int code =
        DedupCommand.commandLine(new PrintWriter(out, true), new PrintWriter(err, true))
            .execute(all.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }

  Path write(String name, String text) throws IOException {
    Path file = dir.resolve(name);
    Files.createDirectories(file.getParent());
    Files.write(file, text.getBytes(StandardCharsets.UTF_8));
    return file;
  }

  /** The output zone's lines, each run of white space as one space (dnsjava pads with tabs). */
  List<String> output() throws IOException {
    return lines(dir.resolve("out.zone"));
  }

  static List<String> lines(Path file) throws IOException {
    return Files.readAllLines(file, StandardCharsets.ISO_8859_1).stream()
        .map(line -> line.replaceAll("\\s+", " "))
        .toList();
  }

  String out() {
    return dir.resolve("out.zone").toString();
  }

  static final String ZONE =
      String.join(
          "\n",
          "$ORIGIN example.com.",
          "$TTL 3600",
          "@   IN  SOA ns1 hostmaster (",
          "        2024010101 ; serial",
          "        7200 3600 1209600 300 )",
          "    IN  NS  ns1            ; blank owner: example.com.",
          "ns1     IN  A   192.0.2.1",
          "www 300 IN  A   192.0.2.10",
          "");

  @Test
  void zone_sameRecordsWrittenDifferently_duplicatesRemovedFirstKept() throws IOException {
    Path a = write("a.zone", ZONE);
    // The same records again: absolute names, other case, TTL in units, class before TTL.
    Path b =
        write(
            "b.zone",
            String.join(
                "\n",
                "EXAMPLE.COM. 1h IN NS NS1.EXAMPLE.COM.",
                "Ns1.Example.Com. IN 3600 A 192.0.2.1",
                "www.example.com. 5M IN A 192.0.2.10",
                "www.example.com. 300 IN A 192.0.2.11   ; another value: kept",
                "www.example.com. 300 IN AAAA 2001:db8::10   ; another type: kept",
                ""));
    Run run = zone(a.toString(), b.toString(), "--out", out());
    assertThat(run.err()).isEmpty();
    assertThat(run.exitCode()).isZero();
    assertThat(output()).hasSize(6);
    assertThat(output().get(2)).isEqualTo("ns1.example.com. 3600 IN A 192.0.2.1");
    assertThat(run.out())
        .contains("9 records read from 2 file(s), 0 entries skipped")
        .contains("6 records written to")
        .contains("3 duplicates removed (key: owner, class, type, rdata, TTL)")
        .contains("R = (D - E) / D = 100.00 % (D = 3 duplicates in the input, E = 0 left)")
        .contains("records/s");
  }

  @Test
  void zone_omittedTtls_followDnsjava() throws IOException {
    Path a =
        write(
            "ttl.zone",
            String.join(
                "\n",
                "example. IN SOA ns.example. host.example. 1 2 3 4 300   ; no TTL, no $TTL: the minimum",
                "example. 600 IN NS ns.example.",
                "www.example. IN A 192.0.2.1                         ; the default the SOA set",
                ""));
    Path b = write("ttl2.zone", "a.example. 600 IN A 192.0.2.1\nb.example. IN A 192.0.2.2\n");
    assertThat(zone(a.toString(), b.toString(), "--out", out()).exitCode()).isZero();
    assertThat(output())
        .extracting(line -> line.split(" ")[0] + " " + line.split(" ")[1])
        .containsExactly(
            "example. 300", "example. 600", "www.example. 300", "a.example. 600", "b.example. 600");
  }

  @Test
  void zone_ttlOnlyChange_keptApartByDefault_mergedWhenTtlInsensitive() throws IOException {
    Path a = write("a.zone", "a.example. 300 IN A 192.0.2.1\na.example. 600 IN A 192.0.2.1\n");
    assertThat(zone(a.toString(), "--out", out()).exitCode()).isZero();
    assertThat(output()).hasSize(2);
    Run run = zone(a.toString(), "--out", out(), "--ttl-insensitive");
    assertThat(run.exitCode()).isZero();
    assertThat(output()).containsExactly("a.example. 300 IN A 192.0.2.1");
    assertThat(run.out()).contains("(key: owner, class, type, rdata; TTL ignored)");
  }

  @Test
  void zone_malformedEntries_reportedWithFileAndLineSkippedExit3() throws IOException {
    Path a =
        write(
            "bad.zone",
            String.join(
                "\n",
                "ok1.example. 300 IN A 192.0.2.1",
                "bad1.example. 300 IN A 999.1.1.1",
                "bad2.example. 300 IN NOTATYPE foo",
                "bad3.example. 300 IN TXT \"not closed",
                "bad4.example. 300 IN SOA ns. host. ( 1 2 3 4 5",
                "ok2.example. 300 IN A 192.0.2.2",
                "bad5.example. 300 IN A 192.0.2.3 )",
                "relative 300 IN A 192.0.2.4",
                "ok3.example. 300 IN A 192.0.2.5",
                ""));
    Run run = zone(a.toString(), "--out", out());
    assertThat(run.exitCode()).isEqualTo(3);
    String file = a.toString();
    assertThat(run.err().lines().toList())
        .hasSize(6)
        .allMatch(line -> line.startsWith("zone: " + file + ":"));
    assertThat(run.err())
        .contains(file + ":5: unexpected tokens at end of record")
        .contains("reading again from line 6");
    assertThat(run.err())
        .contains(file + ":2: ")
        .contains(file + ":3: ")
        .contains(file + ":4: quoted string not closed on its line")
        .contains(file + ":7: ')' without '('")
        .contains(file + ":8: ");
    assertThat(output())
        .extracting(line -> line.split(" ")[0])
        .containsExactly("ok1.example.", "ok2.example.", "ok3.example.");
    assertThat(run.out()).contains("3 records read from 1 file(s), 6 entries skipped");
  }

  @Test
  void zone_idnNames_aLabelsFoldCaseRawUtf8LabelsRoundTrip() throws IOException {
    Path a =
        write(
            "idn.zone",
            String.join(
                "\n",
                "xn--fiqs8s. 300 IN NS ns.xn--fiqs8s.",
                "XN--FIQS8S. 300 IN NS NS.XN--FIQS8S.",
                "中国. 300 IN NS ns.中国.",
                "中国. 300 IN NS ns.中国.",
                ""));
    Run run = zone(a.toString(), "--out", out());
    assertThat(run.exitCode()).isZero();
    // A raw UTF-8 label is other bytes than its A-label on the wire, so it is another name: kept.
    assertThat(output()).hasSize(2);
    assertThat(output().get(1)).startsWith("\\228\\184\\173\\229\\155\\189. 300 IN NS ns.\\228");
    // The written form reads back to the same records.
    Run again = zone(out(), "--out", dir.resolve("again.zone").toString());
    assertThat(again.exitCode()).isZero();
    assertThat(lines(dir.resolve("again.zone"))).isEqualTo(output());
  }

  @Test
  void zone_longTxtSplitIntoManyStrings_keptWhole_singleStringOver255Skipped() throws IOException {
    String chunk = "k".repeat(240); // <= 255 bytes per string with the "v=DKIM1; p=" prefix
    String longTxt =
        "dkim.example. 300 IN TXT ( \"v=DKIM1; p="
            + chunk
            + "\"\n"
            + "    \""
            + chunk
            + "\" \""
            + chunk
            + "\"\n    \""
            + chunk
            + "\" )";
    Path a =
        write(
            "txt.zone",
            longTxt
                + "\n"
                + longTxt
                + "\n"
                + "big.example. 300 IN TXT \""
                + "x".repeat(256)
                + "\"\n");
    Run run = zone(a.toString(), "--out", out());
    assertThat(run.exitCode()).isEqualTo(3);
    assertThat(run.err()).startsWith("zone: " + a + ":7: ").hasLineCount(1);
    assertThat(output()).hasSize(1);
    assertThat(output().get(0))
        .contains(
            "\"v=DKIM1; p=" + chunk + "\" \"" + chunk + "\" \"" + chunk + "\" \"" + chunk + "\"");
  }

  @Test
  void zone_unknownTypeGenericSyntax_parsedAndKeyedByBytes() throws IOException {
    Path a =
        write(
            "unknown.zone",
            String.join(
                "\n",
                "u.example. 300 IN TYPE65534 \\# 4 0A000001",
                "u.example. 300 IN TYPE65534 \\# 4 0a000001",
                "u.example. 300 IN TYPE65534 \\# 4 0a000002",
                ""));
    Run run = zone(a.toString(), "--out", out());
    assertThat(run.exitCode()).isZero();
    assertThat(output())
        .containsExactly(
            "u.example. 300 IN TYPE65534 \\# 4 0A000001",
            "u.example. 300 IN TYPE65534 \\# 4 0A000002");
  }

  @Test
  void zone_include_refusedByDefault_followedInsideAllowedDir_neverOutside() throws IOException {
    Path zones = dir.resolve("zones");
    write("zones/inc/child.zone", "child 300 IN A 192.0.2.7\n");
    write("secret.zone", "secret.example. 300 IN A 192.0.2.66\n");
    Files.createSymbolicLink(zones.resolve("inc/link.zone"), dir.resolve("secret.zone"));
    Path main =
        write(
            "zones/main.zone",
            String.join(
                "\n",
                "$ORIGIN example.",
                "$INCLUDE inc/child.zone",
                "$INCLUDE ../secret.zone",
                "$INCLUDE inc/../../secret.zone",
                "$INCLUDE inc/link.zone",
                "$INCLUDE " + dir.resolve("secret.zone"),
                "after 300 IN A 192.0.2.8",
                ""));

    Run refused = zone(main.toString(), "--out", out());
    assertThat(refused.exitCode()).isEqualTo(3);
    assertThat(refused.err())
        .contains(main + ":2: $INCLUDE inc/child.zone refused (pass --allow-include DIR");
    assertThat(output()).containsExactly("after.example. 300 IN A 192.0.2.8");

    Run allowed = zone(main.toString(), "--out", out(), "--allow-include", zones.toString());
    assertThat(allowed.exitCode()).isEqualTo(3);
    assertThat(output())
        .containsExactly("child.example. 300 IN A 192.0.2.7", "after.example. 300 IN A 192.0.2.8");
    assertThat(allowed.err().lines().toList())
        .hasSize(4)
        .allMatch(line -> line.contains("refused: it resolves to"))
        .noneMatch(line -> line.contains(":2:"));
    assertThat(String.join("\n", output())).doesNotContain("secret");
  }

  @Test
  void zone_missingFileOrOut_usageExit2() throws IOException {
    Run missing = zone(dir.resolve("nope.zone").toString(), "--out", out());
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err())
        .isEqualTo("zone: input file " + dir.resolve("nope.zone") + " does not exist\n");
    Path a = write("a.zone", ZONE);
    assertThat(zone(a.toString()).exitCode()).isEqualTo(2);
  }

  @Test
  void zone_report_writesSummaryWithSeedSimhashRule() throws IOException {
    Path a = write("a.zone", ZONE + ZONE.replace("$ORIGIN example.com.", "$ORIGIN example.org."));
    Path report = dir.resolve("report");
    Run run = zone(a.toString(), "--out", out(), "--report", report.toString());
    assertThat(run.exitCode()).isZero();
    JsonNode summary = new ObjectMapper().readTree(report.resolve("zone-summary.json").toFile());
    assertThat(summary.get("records_in").asLong()).isEqualTo(8);
    assertThat(summary.get("records_out").asLong()).isEqualTo(8);
    assertThat(summary.get("simhash.duplicates_left").asLong()).isZero();
    assertThat(run.out()).contains("seed 003 simhash rule");
  }
}
