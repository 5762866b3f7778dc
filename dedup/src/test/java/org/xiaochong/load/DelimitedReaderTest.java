package org.xiaochong.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.xiaochong.source.BadInputException;

class DelimitedReaderTest {
  private static List<List<String>> rows(DelimitedReader reader) throws IOException {
    List<List<String>> rows = new ArrayList<>();
    String[] row;
    while ((row = reader.next()) != null) {
      rows.add(List.of(row));
    }
    return rows;
  }

  @Test
  void csv_quotedSeparatorsLineBreaksAndDoubledQuotes_areOneField() throws IOException {
    DelimitedReader reader =
        DelimitedReader.csv(
            new StringReader("\uFEFFa,b\r\n\"x,\"\"y\"\"\",\"1\r\n2\"\r\n\r\nplain,\"\"\rlast,end"),
            false);

    assertThat(reader.header()).containsExactly("a", "b");
    assertThat(rows(reader))
        .containsExactly(
            List.of("x,\"y\"", "1\r\n2"), List.of("plain", ""), List.of("last", "end"));
  }

  @Test
  void csv_lineNumbersCountLineBreaksInsideQuotes() throws IOException {
    DelimitedReader reader =
        DelimitedReader.csv(new StringReader("a,b\n\"1\n2\n3\",x\ny,z\n"), false);

    reader.next();
    assertThat(reader.line()).isEqualTo(2);
    reader.next();
    assertThat(reader.line()).isEqualTo(5);
  }

  @Test
  void csv_raggedRowAndUnclosedQuote_nameTheLine() throws IOException {
    DelimitedReader ragged = DelimitedReader.csv(new StringReader("a,b\n1,2\n3\n"), false);
    ragged.next();
    assertThatThrownBy(ragged::next)
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("line 3");

    DelimitedReader open = DelimitedReader.csv(new StringReader("a,b\n1,\"2\n"), false);
    assertThatThrownBy(open::next)
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("line 2")
        .hasMessageContaining("not closed");
  }

  @Test
  void csv_trimSpaces_readsFebrlsCommaSpaceSeparator() throws IOException {
    DelimitedReader reader =
        DelimitedReader.csv(
            new StringReader("rec_id, given_name, surname\nrec-1-org, , waller\n"), true);

    assertThat(reader.header()).containsExactly("rec_id", "given_name", "surname");
    assertThat(rows(reader)).containsExactly(List.of("rec-1-org", "", "waller"));
  }

  @Test
  void tsv_keepsQuotesAsText() throws IOException {
    DelimitedReader reader = DelimitedReader.tsv(new StringReader("a\tb\n\"x\t中文, y\n"));

    assertThat(rows(reader)).containsExactly(List.of("\"x", "中文, y"));
  }

  @Test
  void csv_recordOverTheLimit_isAnErrorNamingItsFirstLine() throws IOException {
    // 10 bytes: "1,中文" is 8, "2,长长长" 11; the blank lines between records do not count.
    DelimitedReader reader =
        DelimitedReader.csv(new StringReader("a,b\n1,中文\n\n\n\n2,长长长\n"), false, 10);
    assertThat(reader.next()).containsExactly("1", "中文");
    assertThatThrownBy(reader::next)
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "line 6: a record longer than 10 bytes (--max-line-bytes); is a quote left open?");

    DelimitedReader openQuote =
        DelimitedReader.csv(new StringReader("a,b\n1,\"x\n" + "2,y\n".repeat(10)), false, 20);
    assertThatThrownBy(openQuote::next)
        .isInstanceOf(BadInputException.class)
        .hasMessageStartingWith("line 2: a record longer");

    assertThatThrownBy(() -> DelimitedReader.tsv(new StringReader("a\tbbbbbbbbbb\n"), 10))
        .isInstanceOf(BadInputException.class)
        .hasMessageStartingWith("line 1: a record longer than 10 bytes");
  }

  @Test
  void csv_invalidUtf8_namesTheLineOfTheBadByte() throws IOException {
    byte[] head = "a,b\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    bytes.writeBytes(head);
    for (int i = 0; i < 5000; i++) { // far more than one buffer before the bad byte
      bytes.writeBytes(("中文" + i + ",x\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    bytes.writeBytes(new byte[] {'y', ',', (byte) 0xC3, '(', '\n'});
    DelimitedReader reader =
        DelimitedReader.csv(
            new StrictUtf8Reader(new java.io.ByteArrayInputStream(bytes.toByteArray())), false);

    assertThatThrownBy(() -> rows(reader))
        .isInstanceOf(BadInputException.class)
        .hasMessage("line 5002: not valid UTF-8");
  }

  @Test
  void csv_manyQuotesInsideAnUnquotedField_readInLinearTime() throws IOException {
    String quotes = "a" + "\"".repeat(1_500_000);
    DelimitedReader reader =
        DelimitedReader.csv(
            new StringReader("id,text\n1," + quotes + "\n2, \"b\"\n"), true, 4 << 20);

    List<List<String>> rows =
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
            java.time.Duration.ofSeconds(10), () -> rows(reader));

    assertThat(rows).containsExactly(List.of("1", quotes), List.of("2", "b"));
  }
}
