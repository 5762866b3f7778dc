package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.xiaochong.source.DbSettings;

/**
 * The embedded server is for this process and its user only: it listens on loopback, refuses a login
 * without the generated password and keeps that password in a file only its owner reads.
 */
@Tag("db")
class EmbeddedServerIT extends DbTestSupport {

  private static int port() {
    return URI.create(database().jdbcSettings().url().substring("jdbc:".length())).getPort();
  }

  @Test
  void port_notReachableOnNonLoopbackAddresses() throws SocketException {
    String bindAddress = withHandle(h -> h.createQuery("SELECT @@bind_address").mapTo(String.class).one());
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
      assertThatThrownBy(() -> {
        try (Socket socket = new Socket()) {
          socket.connect(new InetSocketAddress(address, port()), 2000);
        }
      }).as("connect to %s:%d", address, port()).isInstanceOf(ConnectException.class);
    }
  }

  @Test
  void login_withoutOrWithWrongPassword_refused() throws SQLException {
    DbSettings server = database().jdbcSettings();
    for (String[] login : new String[][] {{"root", ""}, {"root", "wrong"}, {"nobody", ""}, {"", ""}}) {
      assertThatThrownBy(() -> DriverManager.getConnection(server.url(), login[0], login[1]).close())
          .as("user '%s' password '%s'", login[0], login[1])
          .isInstanceOfSatisfying(SQLException.class, e -> {
            assertThat(e.getSQLState()).isEqualTo("28000");
            assertThat(e.getErrorCode()).isEqualTo(1045);
          });
    }
    try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password())) {
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
    try (Connection connection = DriverManager.getConnection(database().jdbcSettings().url(),
        credentials.getProperty("user"), credentials.getProperty("password"))) {
      assertThat(connection.isValid(5)).isTrue();
    }
  }
}
