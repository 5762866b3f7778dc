package org.xiaochong.serve;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A request body as the JSON parser reads it, checked as the bytes pass: at most {@code maxBytes}
 * (413 {@code body-too-large} at the first byte over, without reading the rest), strict UTF-8 (400
 * {@code invalid-utf8} naming the byte offset: never a replacement character in a post; the JDK's
 * decoder decides), and at least {@code minBytesPerSecond} on average from the time the service
 * starts reading it (after the first second): a body that comes slower, or stops (Jetty's idle
 * timeout ends the read), or is cut is a 408 {@code slow-body}, not a failure of ours. The rate is
 * timed from the first read, not from the body's first byte as Jetty's own minimum data rate is, so
 * that a small body read late on a busy service is not taken for a slow one. Not thread-safe: one
 * per request.
 */
final class RequestBody extends InputStream {
  private final InputStream in;
  private final long maxBytes;
  private final long minBytesPerSecond;
  private final CharsetDecoder utf8 =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);
  private final CharBuffer decoded = CharBuffer.allocate(8192);

  /**
   * Bytes read from the request: {@code [0, ready)} checked and not handed out yet from {@code
   * handedOut}, then the start of a UTF-8 sequence the last read cut ({@code tail} bytes), held
   * back until its end arrives.
   */
  private final byte[] chunk = new byte[8192];

  private int handedOut;
  private int ready;
  private int tail;

  /** Bytes checked before {@code chunk}'s first: the offset of its byte 0. */
  private long checked;

  private long read;
  private long startNanos = -1;
  private boolean ended;

  RequestBody(InputStream in, long maxBytes, long minBytesPerSecond) {
    this.in = in;
    this.maxBytes = maxBytes;
    this.minBytesPerSecond = minBytesPerSecond;
  }

  /** Bytes read from the request so far. */
  long bytesRead() {
    return read;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    while (handedOut == ready) {
      if (ended) {
        return -1;
      }
      fill();
    }
    int n = Math.min(length, ready - handedOut);
    System.arraycopy(chunk, handedOut, buffer, offset, n);
    handedOut += n;
    return n;
  }

  /** Reads more of the request after the held-back tail, and checks it. */
  private void fill() throws IOException {
    if (startNanos < 0) {
      startNanos = System.nanoTime();
    }
    System.arraycopy(chunk, ready, chunk, 0, tail);
    checked += ready;
    handedOut = 0;
    ready = 0;
    int n;
    try {
      n = in.read(chunk, tail, chunk.length - tail);
    } catch (IOException | RuntimeException e) {
      // Jetty fails the read when the client goes quiet (idle timeout) or drops the connection.
      throw slow();
    }
    if (n < 0) {
      ended = true;
      if (tail > 0) {
        throw invalid(checked); // the body ends inside a sequence
      }
      return;
    }
    if (read + n > maxBytes) {
      read = maxBytes;
      throw DedupService.bodyTooLarge("more than " + maxBytes + " bytes", maxBytes);
    }
    read += n;
    ByteBuffer bytes = ByteBuffer.wrap(chunk, 0, tail + n);
    while (true) {
      decoded.clear();
      CoderResult result = utf8.decode(bytes, decoded, false);
      if (result.isError()) {
        throw invalid(checked + bytes.position());
      }
      if (result.isUnderflow()) {
        break; // what is left is the start of a sequence the read cut
      }
    }
    ready = bytes.position();
    tail = tail + n - ready;
    long elapsed = System.nanoTime() - startNanos;
    if (elapsed > 1_000_000_000L && read < minBytesPerSecond * (elapsed / 1e9)) {
      throw slow();
    }
  }

  private Problem slow() {
    return new Problem(
        408,
        "slow-body",
        "Request body too slow",
        "the body stopped or came slower than "
            + minBytesPerSecond
            + " bytes/s (serve --min-body-rate, --idle-timeout): send it whole");
  }

  private static Problem invalid(long offset) {
    return new Problem(
        400,
        "invalid-utf8",
        "Body is not UTF-8",
        "the body is not valid UTF-8 at byte offset " + offset + ": send JSON in UTF-8");
  }
}
