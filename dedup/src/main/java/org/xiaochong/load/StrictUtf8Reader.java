package org.xiaochong.load;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;

/**
 * Decodes UTF-8 and fails on each malformed byte sequence, but only after it has handed out every
 * character before it, so a reader counting lines knows which line holds it ({@link
 * java.io.InputStreamReader} decodes ahead and fails up to 8 KiB early). A caller that goes on
 * after the {@link MalformedInputException} reads on from the byte after the malformed sequence
 * (UTF-8 resynchronizes at the next lead byte), as {@link LineReader} does to skip the line.
 * Buffered: reading one character at a time is cheap. Not thread-safe.
 */
public final class StrictUtf8Reader extends Reader {
  private final InputStream in;
  private final CharsetDecoder decoder =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);
  private final ByteBuffer bytes = ByteBuffer.allocate(8192).flip();
  private final CharBuffer chars = CharBuffer.allocate(8192).flip();
  private boolean endOfInput;
  private boolean flushed; // every character was handed out: the decoder must not be called again
  private MalformedInputException malformed;

  public StrictUtf8Reader(InputStream in) {
    this.in = in;
  }

  @Override
  public int read() throws IOException {
    return chars.hasRemaining() || fill() ? chars.get() : -1;
  }

  @Override
  public int read(char[] buffer, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    if (!chars.hasRemaining() && !fill()) {
      return -1;
    }
    int n = Math.min(length, chars.remaining());
    chars.get(buffer, offset, n);
    return n;
  }

  /**
   * Decodes the next characters; false at the end of the input, the malformed byte's exception once
   * none are left before it.
   */
  private boolean fill() throws IOException {
    if (malformed != null) {
      MalformedInputException pending = malformed;
      malformed = null;
      throw pending;
    }
    if (flushed) {
      return false;
    }
    chars.clear();
    try {
      while (chars.position() == 0) {
        CoderResult result = decoder.decode(bytes, chars, endOfInput);
        if (result.isError()) {
          MalformedInputException error = new MalformedInputException(result.length());
          bytes.position(bytes.position() + result.length()); // decoding goes on after it
          if (chars.position() == 0) {
            throw error;
          }
          malformed = error; // thrown by the next fill, once the characters before it are read
        } else if (result.isUnderflow() && chars.position() == 0) {
          if (endOfInput) {
            decoder.flush(chars);
            flushed = true;
            break;
          }
          bytes.compact();
          int n = in.read(bytes.array(), bytes.position(), bytes.remaining());
          if (n < 0) {
            endOfInput = true;
          } else {
            bytes.position(bytes.position() + n);
          }
          bytes.flip();
        }
      }
    } finally {
      chars.flip();
    }
    return chars.hasRemaining();
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
