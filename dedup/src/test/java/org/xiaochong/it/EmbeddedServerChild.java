package org.xiaochong.it;

import java.io.IOException;
import java.nio.file.Path;
import org.xiaochong.source.Database;
import org.xiaochong.source.DbSettings;

/**
 * A dedup stand-in for {@link EmbeddedServerIT}, run in a JVM of its own: starts the embedded
 * server on the data folder {@code args[0]}, prints "started", and holds it until its stdin closes
 * (so it also ends, stopping the server, when the test JVM goes away without killing it).
 */
public final class EmbeddedServerChild {
  private EmbeddedServerChild() {}

  public static void main(String[] args) throws IOException {
    try (Database database =
        Database.open(new DbSettings(DbSettings.EMBEDDED, null, null, Path.of(args[0])))) {
      System.out.println("started");
      System.out.flush();
      while (System.in.read() >= 0) {
        // hold the server
      }
    }
  }
}
