package org.xiaochong.method.linkage;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.function.Function;
import org.xiaochong.source.BadInputException;

/**
 * The JSON files the linkage method keeps beside its index (the column kinds, the model): written
 * to a temporary file and moved in place, so a crash leaves the old file or the new one, never half
 * of one; read back with one clear line when missing or damaged.
 */
final class SavedJson {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private SavedJson() {}

  static void write(Path dir, String name, Object json) {
    try {
      Files.createDirectories(dir);
      Path tmp = dir.resolve(name + ".tmp");
      JSON.writeValue(tmp.toFile(), json);
      Files.move(tmp, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static boolean exists(Path dir, String name) {
    return Files.isRegularFile(dir.resolve(name));
  }

  /**
   * The file {@code name} in {@code dir}, parsed as a JSON object and given to {@code parse}.
   *
   * @param what what it holds, for the message ("the linkage model")
   * @throws BadInputException when it is missing, unreadable or not what {@code parse} expects
   */
  @SuppressWarnings("unchecked")
  static <T> T read(Path dir, String name, String what, Function<Map<String, Object>, T> parse) {
    Path file = dir.resolve(name);
    try {
      return parse.apply((Map<String, Object>) JSON.readValue(file.toFile(), Map.class));
    } catch (IOException | RuntimeException e) {
      throw new BadInputException(
          what
              + " ("
              + file
              + ") is missing or unreadable ("
              + e.getMessage()
              + "): rebuild the index with `dedup index --rebuild`");
    }
  }
}
