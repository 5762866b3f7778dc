package org.xiaochong.normalize;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the project's word lists (stop words, synonyms, traditional-simplified table). Stateless
 * and thread-safe.
 *
 * <p>A location is either {@code classpath:/config/stopwords-zh.txt} (a resource, as shipped from
 * the root {@code config/} folder) or a file system path. The empty string means "no list". Lines
 * that are blank or start with {@code #} are skipped; the others are returned trimmed, in file
 * order, with a leading byte order mark removed.
 */
public final class WordLists {

  /** Prefix of a location that names a class path resource. */
  static final String CLASSPATH_PREFIX = "classpath:";

  private WordLists() {}

  /**
   * Returns the content lines of the list at {@code location}.
   *
   * @throws IllegalArgumentException if a class path resource does not exist
   * @throws UncheckedIOException if the file cannot be read; the message names the location
   */
  public static List<String> readLines(String location) {
    if (location == null || location.isEmpty()) {
      return List.of();
    }
    try (InputStream in = open(location);
        BufferedReader reader =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      List<String> lines = new ArrayList<>();
      String line;
      boolean first = true;
      while ((line = reader.readLine()) != null) {
        if (first && !line.isEmpty() && line.charAt(0) == '\uFEFF') {
          line = line.substring(1);
        }
        first = false;
        String trimmed = line.strip();
        if (!trimmed.isEmpty() && trimmed.charAt(0) != '#') {
          lines.add(trimmed);
        }
      }
      return lines;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read word list " + location, e);
    }
  }

  private static InputStream open(String location) throws IOException {
    if (location.startsWith(CLASSPATH_PREFIX)) {
      String resource = location.substring(CLASSPATH_PREFIX.length());
      InputStream in = WordLists.class.getResourceAsStream(resource);
      if (in == null) {
        throw new IllegalArgumentException(
            "word list " + location + " not found on the class path (resource " + resource + ")");
      }
      return in;
    }
    return Files.newInputStream(Path.of(location));
  }
}
