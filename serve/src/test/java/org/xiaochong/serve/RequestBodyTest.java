package org.xiaochong.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestBodyTest {
  /** An input that hands out at most {@code chunk} bytes a read, to cut UTF-8 sequences. */
  private static InputStream chunked(byte[] bytes, int chunk) {
    return new ByteArrayInputStream(bytes) {
      @Override
      public synchronized int read(byte[] b, int off, int len) {
        return super.read(b, off, Math.min(len, chunk));
      }
    };
  }

  private static byte[] readAll(RequestBody body) throws IOException {
    byte[] all = body.readAllBytes();
    assertThat(body.read()).as("and -1 again after the end").isEqualTo(-1);
    return all;
  }

  @Test
  void validUtf8_cutAnywhereByTheReads_passesUnchanged() throws IOException {
    byte[] text = "{\"title\": \"供应红富士苹果 🍎\"}".getBytes(StandardCharsets.UTF_8);
    for (int chunk = 1; chunk <= 5; chunk++) {
      RequestBody body = new RequestBody(chunked(text, chunk), 1000, 0);
      assertThat(readAll(body)).isEqualTo(text);
      assertThat(body.bytesRead()).isEqualTo(text.length);
    }
  }

  @Test
  void aMalformedByte_isA400NamingItsOffset_whereverTheReadsCut() {
    byte[] text = "{\"id\": 5, \"title\": \"苹果X\"}".getBytes(StandardCharsets.UTF_8);
    int x = new String(text, StandardCharsets.UTF_8).indexOf('X') + 4; // 苹果: 6 bytes, 2 chars
    text[x] = (byte) 0xC3; // a lead byte followed by '"'
    for (int chunk : new int[] {1, 2, 3, 7, 100}) {
      assertThatThrownBy(() -> readAll(new RequestBody(chunked(text, chunk), 1000, 0)))
          .isInstanceOfSatisfying(
              Problem.class,
              p -> {
                assertThat(p.status).isEqualTo(400);
                assertThat(p.type).isEqualTo("invalid-utf8");
                assertThat(p.getMessage()).contains("byte offset " + x);
              });
    }
  }

  @Test
  void aLeadByteLast_isA400BeforeItIsHandedOut() throws IOException {
    byte[] text = "{\"t\": \"苹果\"}".getBytes(StandardCharsets.UTF_8);
    byte[] cut = java.util.Arrays.copyOf(text, text.length + 1);
    cut[text.length] = (byte) 0xC3;
    RequestBody body = new RequestBody(new ByteArrayInputStream(cut), 1000, 0);
    byte[] got = new byte[100];
    assertThat(body.read(got, 0, 100)).as("the checked bytes only").isEqualTo(text.length);
    assertThatThrownBy(() -> body.read(got, 0, 100))
        .isInstanceOfSatisfying(
            Problem.class, p -> assertThat(p.getMessage()).contains("offset " + text.length));
  }

  @Test
  void aSequenceCutByTheEndOfTheBody_isA400() {
    byte[] text = {'"', (byte) 0xE8, (byte) 0x8B};
    assertThatThrownBy(() -> readAll(new RequestBody(chunked(text, 1), 1000, 0)))
        .isInstanceOfSatisfying(
            Problem.class, p -> assertThat(p.getMessage()).contains("byte offset 1"));
  }

  @Test
  void aBodyOverTheLimit_isA413AtTheFirstByteOver() {
    byte[] text = new byte[2000];
    java.util.Arrays.fill(text, (byte) ' ');
    RequestBody body = new RequestBody(chunked(text, 100), 1000, 0);
    assertThatThrownBy(() -> readAll(body))
        .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.status).isEqualTo(413));
    assertThat(body.bytesRead()).isEqualTo(1000);
  }

  @Test
  void aBodySlowerThanTheMinimumRate_isA408AfterTheFirstSecond() {
    InputStream trickle =
        new InputStream() {
          @Override
          public int read() {
            return ' ';
          }

          @Override
          public int read(byte[] b, int off, int len) {
            try {
              Thread.sleep(50);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            b[off] = ' ';
            return 1; // 20 bytes/s
          }
        };
    long start = System.nanoTime();
    assertThatThrownBy(() -> readAll(new RequestBody(trickle, 1 << 20, 1000)))
        .isInstanceOfSatisfying(
            Problem.class,
            p -> {
              assertThat(p.status).isEqualTo(408);
              assertThat(p.type).isEqualTo("slow-body");
            });
    assertThat(System.nanoTime() - start).isBetween(1_000_000_000L, 5_000_000_000L);
  }
}
