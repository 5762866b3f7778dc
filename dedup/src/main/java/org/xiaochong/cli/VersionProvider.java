package org.xiaochong.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;

/**
 * {@code dedup --version}: the version the build wrote into {@code version.properties} (Maven's
 * project version, so a release archive names the version it was built as), and the Java runtime
 * running it, which is what a bug report needs.
 */
public final class VersionProvider implements CommandLine.IVersionProvider {
  /** The build's version, e.g. {@code 0.1.0} or {@code 0.2.0-SNAPSHOT}. */
  public static String version() {
    try (InputStream in = VersionProvider.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        throw new IllegalStateException(
            "version.properties is missing from the classpath: a broken build");
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String[] getVersion() {
    return new String[] {
      "xiaochong " + version(),
      "Java "
          + System.getProperty("java.version")
          + " ("
          + System.getProperty("java.vendor")
          + ", "
          + System.getProperty("java.home")
          + ")"
    };
  }
}
