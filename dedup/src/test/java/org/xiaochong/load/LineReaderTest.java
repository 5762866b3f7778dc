package org.xiaochong.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.xiaochong.source.BadInputException;

class LineReaderTest {
  @Test
  void readLine_endsLinesAtLfCrlfAndCr_likeBufferedReader() throws IOException {
    LineReader reader = new LineReader(new StringReader("a\nb\r\nc\rd"), 100);
    assertThat(reader.readLine()).isEqualTo("a");
    assertThat(reader.readLine()).isEqualTo("b");
    assertThat(reader.readLine()).isEqualTo("c");
    assertThat(reader.readLine()).isEqualTo("d");
    assertThat(reader.line()).isEqualTo(4);
    assertThat(reader.readLine()).isNull();
  }

  @Test
  void readLine_overTheLimit_skipsTheLineAndGoesOn() throws IOException {
    // The limit counts UTF-8 bytes: 中 is 3, the emoji (a surrogate pair) 4.
    LineReader reader =
        new LineReader(
            new StringReader("中中中\n中中中x\n😀😀\n😀😀xy\n" + "y".repeat(100_000) + "\nend\n"), 9);
    assertThat(reader.readLine()).isEqualTo("中中中");
    assertThatThrownBy(reader::readLine)
        .isInstanceOf(BadInputException.class)
        .hasMessage("line 2: longer than 9 bytes (--max-line-bytes)");
    assertThat(reader.readLine()).isEqualTo("😀😀");
    assertThatThrownBy(reader::readLine).hasMessageStartingWith("line 4:");
    assertThatThrownBy(reader::readLine).hasMessageStartingWith("line 5:");
    assertThat(reader.readLine()).isEqualTo("end");
  }

  @Test
  void readLine_invalidUtf8_namesItsLineEvenAtABufferEdge() throws IOException {
    for (int before : new int[] {0, 1, 8191, 8192, 8193, 20000}) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      bytes.writeBytes("{}\n".getBytes(StandardCharsets.UTF_8));
      bytes.writeBytes("x".repeat(before).getBytes(StandardCharsets.UTF_8));
      bytes.writeBytes(new byte[] {'\n', (byte) 0xFF, '\n'});
      LineReader reader =
          new LineReader(
              new StrictUtf8Reader(new ByteArrayInputStream(bytes.toByteArray())), 1 << 20);
      assertThat(reader.readLine()).isEqualTo("{}");
      assertThat(reader.readLine()).hasSize(before);
      assertThatThrownBy(reader::readLine)
          .as("%d chars before", before)
          .isInstanceOf(BadInputException.class)
          .hasMessage("line 3: not valid UTF-8");
    }
  }

  @Test
  void readLine_afterALineNotValidUtf8_readsTheNextLines() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.writeBytes("苹果\n".getBytes(StandardCharsets.UTF_8));
    bytes.writeBytes(new byte[] {'a', (byte) 0xC3, '(', 'b', (byte) 0xFF, '\n'});
    bytes.writeBytes("梨\n".getBytes(StandardCharsets.UTF_8));
    bytes.writeBytes(new byte[] {(byte) 0xE4, (byte) 0xB8, '\n'}); // a character cut short
    bytes.writeBytes("end".getBytes(StandardCharsets.UTF_8));
    LineReader reader =
        new LineReader(
            new StrictUtf8Reader(new ByteArrayInputStream(bytes.toByteArray())), 1 << 20);

    assertThat(reader.readLine()).isEqualTo("苹果");
    assertThatThrownBy(reader::readLine)
        .isInstanceOf(BadInputException.class)
        .hasMessage("line 2: not valid UTF-8");
    assertThat(reader.readLine()).isEqualTo("梨");
    assertThatThrownBy(reader::readLine)
        .isInstanceOf(BadInputException.class)
        .hasMessage("line 4: not valid UTF-8");
    assertThat(reader.readLine()).isEqualTo("end");
    assertThat(reader.readLine()).isNull();
  }

  @Test
  void strictUtf8Reader_decodesMultiByteCharactersAcrossBufferEdges() throws IOException {
    String text = ("供应红富士苹果😀,é\n").repeat(3000);
    StringBuilder read = new StringBuilder();
    try (StrictUtf8Reader reader =
        new StrictUtf8Reader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)))) {
      char[] buffer = new char[777];
      for (int n = reader.read(buffer, 0, buffer.length);
          n >= 0;
          n = reader.read(buffer, 0, buffer.length)) {
        read.append(buffer, 0, n);
      }
      assertThat(reader.read()).as("still the end").isEqualTo(-1);
    }
    assertThat(read.toString()).isEqualTo(text);
    StrictUtf8Reader truncated =
        new StrictUtf8Reader(new ByteArrayInputStream(new byte[] {'a', (byte) 0xE4, (byte) 0xB8}));
    assertThat(truncated.read()).isEqualTo('a');
    assertThatThrownBy(truncated::read)
        .isInstanceOf(java.nio.charset.MalformedInputException.class);
  }
}
