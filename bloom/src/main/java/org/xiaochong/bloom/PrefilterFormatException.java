package org.xiaochong.bloom;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A prefilter file that cannot be used: not a prefilter file, another format version, truncated,
 * checksum mismatch, or a shape other than the one expected (stale). The message is one line naming
 * the file and the header fields that were read, so a caller can print it and rebuild the filter.
 */
public final class PrefilterFormatException extends IOException {
  private static final long serialVersionUID = 1L;

  private final Path file;

  public PrefilterFormatException(Path file, String problem, String header, Throwable cause) {
    super(
        "prefilter file " + file + ": " + problem + (header.isEmpty() ? "" : " (" + header + ")"),
        cause);
    this.file = file;
  }

  /** The file that was read. */
  Path file() {
    return file;
  }
}
