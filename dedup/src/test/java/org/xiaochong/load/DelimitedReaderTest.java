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
    DelimitedReader reader = DelimitedReader.csv(new StringReader(
        "\uFEFFa,b\r\n\"x,\"\"y\"\"\",\"1\r\n2\"\r\n\r\nplain,\"\"\rlast,end"), false);

    assertThat(reader.header()).containsExactly("a", "b");
    assertThat(rows(reader)).containsExactly(List.of("x,\"y\"", "1\r\n2"), List.of("plain", ""), List.of("last", "end"));
  }

  @Test
  void csv_lineNumbersCountLineBreaksInsideQuotes() throws IOException {
    DelimitedReader reader = DelimitedReader.csv(new StringReader("a,b\n\"1\n2\n3\",x\ny,z\n"), false);

    reader.next();
    assertThat(reader.line()).isEqualTo(2);
    reader.next();
    assertThat(reader.line()).isEqualTo(5);
  }

  @Test
  void csv_raggedRowAndUnclosedQuote_nameTheLine() throws IOException {
    DelimitedReader ragged = DelimitedReader.csv(new StringReader("a,b\n1,2\n3\n"), false);
    ragged.next();
    assertThatThrownBy(ragged::next).isInstanceOf(BadInputException.class).hasMessageContaining("line 3");

    DelimitedReader open = DelimitedReader.csv(new StringReader("a,b\n1,\"2\n"), false);
    assertThatThrownBy(open::next).isInstanceOf(BadInputException.class).hasMessageContaining("line 2")
        .hasMessageContaining("not closed");
  }

  @Test
  void csv_trimSpaces_readsFebrlsCommaSpaceSeparator() throws IOException {
    DelimitedReader reader = DelimitedReader.csv(new StringReader("rec_id, given_name, surname\nrec-1-org, , waller\n"),
        true);

    assertThat(reader.header()).containsExactly("rec_id", "given_name", "surname");
    assertThat(rows(reader)).containsExactly(List.of("rec-1-org", "", "waller"));
  }

  @Test
  void tsv_keepsQuotesAsText() throws IOException {
    DelimitedReader reader = DelimitedReader.tsv(new StringReader("a\tb\n\"x\t中文, y\n"));

    assertThat(rows(reader)).containsExactly(List.of("\"x", "中文, y"));
  }
}
