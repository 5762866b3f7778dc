package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `dedup load` against the embedded server: CSV quoting, TSV, JSON lines, errors, existing tables.
 */
@Tag("db")
class LoadCommandIT extends DbTestSupport {
  @TempDir Path dir;
  private Path config;

  @BeforeEach
  void config() {
    config = writeConfig(dir, "unused", dir.resolve("index"), Map.of());
    useHandle(
        h -> {
          for (String t :
              List.of(
                  "load_csv",
                  "load_tsv",
                  "load_jsonl",
                  "load_ragged",
                  "load_existing",
                  "load_zone",
                  "load_long",
                  "load_utf8",
                  "load_utf8_existing")) {
            h.execute("DROP TABLE IF EXISTS `" + t + "`");
          }
        });
  }

  private Path write(String name, String text) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  @Test
  void csv_withQuotesCommasNewlinesAndChinese_isLoadedWithGeneratedIds() throws IOException {
    Path file =
        write(
            "posts.csv",
            "\uFEFFTitle,\"Reg Time\",content\r\n"
                + "\"供应,红富士苹果\",2024-05-01 08:00:00,\"第一行\n第二行，\"\"优质\"\"\"\r\n"
                + "plain,,\r\n"
                + "\"\",2024-05-02,last line without newline");

    CliRun run = cli("load", file.toString(), "--table", "load_csv", "--config", config.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("loaded 3 rows into load_csv (new table; id generated");
    List<List<String>> rows = snapshot("load_csv");
    assertThat(rows)
        .containsExactly(
            Arrays.asList("1", "2024-05-01 08:00:00", "供应,红富士苹果", "第一行\n第二行，\"优质\""),
            Arrays.asList("2", null, "plain", ""),
            Arrays.asList("3", "2024-05-02 00:00:00", "", "last line without newline"));
    String charset =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT character_set_name FROM information_schema.columns"
                            + " WHERE table_schema = DATABASE() AND table_name = 'load_csv' AND column_name = 'title'")
                    .mapTo(String.class)
                    .one());
    assertThat(charset).isEqualTo("utf8mb4");
  }

  @Test
  void tsv_withIdColumnAndWithoutTimeColumn_keepsIdsAndNullTimes() throws IOException {
    Path file = write("rows.tsv", "id\tname\tnote\n7\t王先生\t\"quoted\" stays\n9\tb\t\n");

    CliRun run = cli("load", file.toString(), "--table", "load_tsv", "--config", config.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(snapshot("load_tsv"))
        .containsExactly(
            Arrays.asList("7", null, "王先生", "\"quoted\" stays"), Arrays.asList("9", null, "b", ""));
  }

  @Test
  void jsonl_withColumnsOption_loadsOnlyThoseColumns() throws IOException {
    Path file =
        write(
            "rows.jsonl",
            "{\"id\": 1, \"title\": \"西红柿\", \"price\": 2.5, \"skip\": \"x\"}\n\n"
                + "{\"id\": 2, \"title\": \"番茄\", \"skip\": null}\n");

    CliRun run =
        cli(
            "load",
            file.toString(),
            "--table",
            "load_jsonl",
            "--columns",
            "title,price",
            "--config",
            config.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(snapshot("load_jsonl"))
        .containsExactly(
            Arrays.asList("1", null, "西红柿", "2.5"), Arrays.asList("2", null, "番茄", null));
  }

  @Test
  void raggedRow_exitsWithUsageNamingTheLine() throws IOException {
    Path file = write("ragged.csv", "a,b\n1,2\n\"x\ny\",3\n4,5,6\n");

    CliRun run =
        cli("load", file.toString(), "--table", "load_ragged", "--config", config.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.errLines()).hasSize(1);
    assertThat(run.err()).contains("line 5").contains("3 fields").contains("was dropped");
    assertThat(tableExists("load_ragged")).isFalse();
  }

  @Test
  void missingFileAndBadHeader_exitWithUsage() throws IOException {
    CliRun missing =
        cli(
            "load",
            dir.resolve("nope.csv").toString(),
            "--table",
            "load_csv",
            "--config",
            config.toString());
    Path bad = write("bad.csv", "a,,b\n1,2,3\n");
    CliRun badHeader =
        cli("load", bad.toString(), "--table", "load_csv", "--config", config.toString());

    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("nope.csv");
    assertThat(badHeader.exitCode()).isEqualTo(2);
    assertThat(badHeader.err()).contains("bad header").contains("column 2");
  }

  @Test
  void existingTable_getsRowsAppendedWithIdsAfterItsLargest() throws IOException {
    useHandle(
        h ->
            h.execute(
                "CREATE TABLE load_existing (id BIGINT PRIMARY KEY, reg_time DATETIME NULL,"
                    + " title TEXT, extra INT NULL) DEFAULT CHARSET=utf8mb4"));
    useHandle(h -> h.execute("INSERT INTO load_existing (id, title) VALUES (10, 'old')"));
    Path file = write("more.csv", "title,reg_time\nnew one,2025-01-02T03:04:05\n");
    Path wrong = write("wrong.csv", "title,colour\nx,red\n");

    CliRun run =
        cli("load", file.toString(), "--table", "load_existing", "--config", config.toString());
    CliRun mismatch =
        cli("load", wrong.toString(), "--table", "load_existing", "--config", config.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("existing table");
    assertThat(snapshot("load_existing"))
        .containsExactly(
            Arrays.asList("10", null, "old", null),
            Arrays.asList("11", "2025-01-02 03:04:05", "new one", null));
    assertThat(mismatch.exitCode()).isEqualTo(2);
    assertThat(mismatch.err()).contains("colour");
  }

  @Test
  void times_areStoredAsWritten_whateverTheJvmZone() throws IOException {
    Path file = write("zone.csv", "title,reg_time\na,2024-05-01 08:00:00\nb,2024-10-27 02:30:00\n");
    TimeZone jvmZone = TimeZone.getDefault();
    CliRun run;
    try {
      TimeZone.setDefault(TimeZone.getTimeZone("Asia/Shanghai"));
      run = cli("load", file.toString(), "--table", "load_zone", "--config", config.toString());
    } finally {
      TimeZone.setDefault(jvmZone);
    }

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(snapshot("load_zone"))
        .containsExactly(
            Arrays.asList("1", "2024-05-01 08:00:00", "a"),
            Arrays.asList("2", "2024-10-27 02:30:00", "b"));
  }

  @Test
  void recordOverTheLimit_stopsNamingItsLine() throws IOException {
    String longValue = "长".repeat(40); // 120 bytes of UTF-8
    Path csv = write("long.csv", "id,title\n1,short\n2," + longValue + "\n3,short\n");
    Path quote =
        write("quote.csv", "id,title\n1,short\n2,\"a stray quote\n" + "3,more\n".repeat(100));
    Path jsonl =
        write(
            "long.jsonl",
            "{\"id\":1,\"title\":\"short\"}\n{\"id\":2,\"title\":\"" + longValue + "\"}\n");

    CliRun longCsv =
        cli(
            "load",
            csv.toString(),
            "--table",
            "load_long",
            "--max-line-bytes",
            "100",
            "--config",
            config.toString());
    CliRun strayQuote =
        cli(
            "load",
            quote.toString(),
            "--table",
            "load_long",
            "--max-line-bytes",
            "100",
            "--config",
            config.toString());
    CliRun longJson =
        cli(
            "load",
            jsonl.toString(),
            "--table",
            "load_long",
            "--max-line-bytes",
            "100",
            "--config",
            config.toString());
    CliRun defaultLimit =
        cli("load", csv.toString(), "--table", "load_long", "--config", config.toString());

    for (CliRun run : List.of(longCsv, strayQuote, longJson)) {
      assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
      assertThat(run.errLines())
          .singleElement()
          .asString()
          .contains("longer than 100 bytes", "--max-line-bytes");
    }
    assertThat(longCsv.err()).contains("line 3");
    assertThat(strayQuote.err()).contains("line 3");
    assertThat(longJson.err()).contains("line 2");
    assertThat(defaultLimit.exitCode()).as(defaultLimit.err()).isZero();
    assertThat(count("load_long")).isEqualTo(3);
  }

  /** Rows of a CSV with an invalid UTF-8 byte in the value of row {@code badRow}. */
  private Path csvWithInvalidUtf8(String name, int rows, int badRow) throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    bytes.writeBytes("title,content\n".getBytes(StandardCharsets.UTF_8));
    for (int i = 1; i <= rows; i++) {
      bytes.writeBytes(("供应苹果" + i + ",").getBytes(StandardCharsets.UTF_8));
      if (i == badRow) {
        bytes.write(0xE4); // the first byte of a three-byte sequence, then an ASCII letter
      }
      bytes.writeBytes("ok\n".getBytes(StandardCharsets.UTF_8));
    }
    Path file = dir.resolve(name);
    Files.write(file, bytes.toByteArray());
    return file;
  }

  @Test
  void invalidUtf8AfterTheFirstBatch_newTable_isDroppedAndTheLineNamed() throws IOException {
    Path file = csvWithInvalidUtf8("bad.csv", 2500, 1800);

    CliRun run =
        cli("load", file.toString(), "--table", "load_utf8", "--config", config.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.errLines()).singleElement().asString().contains("line 1801", "not valid UTF-8");
    assertThat(tableExists("load_utf8")).isFalse();
  }

  @Test
  void invalidUtf8AfterTheFirstBatch_existingTable_isLeftAsItWas() throws IOException {
    useHandle(
        h ->
            h.execute(
                "CREATE TABLE load_utf8_existing (id BIGINT PRIMARY KEY, reg_time DATETIME NULL,"
                    + " title TEXT, content TEXT) DEFAULT CHARSET=utf8mb4"));
    useHandle(h -> h.execute("INSERT INTO load_utf8_existing (id, title) VALUES (1, 'old')"));
    Path file = csvWithInvalidUtf8("bad.csv", 2500, 2400);

    CliRun run =
        cli(
            "load",
            file.toString(),
            "--table",
            "load_utf8_existing",
            "--config",
            config.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.errLines()).singleElement().asString().contains("line 2401", "not valid UTF-8");
    assertThat(snapshot("load_utf8_existing"))
        .containsExactly(Arrays.asList("1", null, "old", null));
  }
}
