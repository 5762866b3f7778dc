package org.xiaochong.spark.read;

import java.io.Serializable;
import java.util.Map;
import java.util.Properties;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.DbSettings;

/**
 * The run's config as the executors receive it: the properties of the config file, the password
 * resolved on the driver. Each executor builds its {@link DedupConfig} from them with the same code
 * as the single machine ({@link DedupConfig#fromProperties}), so the table spec, the near settings
 * and the methods' settings cannot differ between driver and executors. The passwords travel inside
 * Spark's task closures (never in a log; {@link #toString} leaves them out).
 */
public final class JobConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The environment variable with db.read-password. */
  public static final String READ_PASSWORD_ENV = "DEDUP_DB_READ_PASSWORD";

  private final Properties properties;
  private final String password;
  private final String readPassword;
  private transient DedupConfig config;

  private JobConfig(Properties properties, String password, String readPassword) {
    this.properties = properties;
    this.password = password;
    this.readPassword = readPassword;
  }

  /**
   * The config of {@code properties} (a config file's keys) with DEDUP_DB_PASSWORD from {@code
   * env}.
   *
   * @throws BadInputException for a bad config, or one on the embedded database, which executors on
   *     other machines cannot reach
   */
  public static JobConfig of(Properties properties, Map<String, String> env) {
    DedupConfig config = DedupConfig.fromProperties(properties, env);
    if (config.db().embedded()) {
      throw new BadInputException(
          "dedup-spark needs db.url naming a MySQL/MariaDB server the executors reach"
              + " (jdbc:mysql://host:3306/db), not the embedded database");
    }
    String readPassword = properties.getProperty("db.read-password", "").strip();
    if (readPassword.isEmpty()) {
      readPassword = env.getOrDefault(READ_PASSWORD_ENV, "");
    }
    JobConfig job = new JobConfig(properties, config.db().password(), readPassword);
    job.config = config;
    job.readDb(); // a bad db.read-url fails here, on the driver, in one line
    return job;
  }

  /**
   * The config file {@code file} (required: it names the server), with DEDUP_DB_PASSWORD from
   * {@code env}.
   */
  public static JobConfig load(java.nio.file.Path file, Map<String, String> env) {
    if (file == null) {
      throw new BadInputException(
          "dedup-spark needs --config FILE naming the database (db.url) and the table");
    }
    Properties props = new Properties();
    try (java.io.Reader reader =
        java.nio.file.Files.newBufferedReader(file, java.nio.charset.StandardCharsets.UTF_8)) {
      props.load(reader);
    } catch (java.nio.file.NoSuchFileException e) {
      throw new BadInputException("config file " + file + " does not exist");
    } catch (java.io.IOException | IllegalArgumentException e) {
      throw new BadInputException("config file " + file + " cannot be read: " + e.getMessage(), e);
    }
    return of(props, env);
  }

  /** The config, built on first use in each JVM. */
  public synchronized DedupConfig config() {
    if (config == null) {
      config =
          DedupConfig.fromProperties(
              properties, password == null ? Map.of() : Map.of(DedupConfig.PASSWORD_ENV, password));
    }
    return config;
  }

  /**
   * Where the executors read the table: the replica of {@code db.read-url} when the config names
   * one (with {@code db.read-user} and {@code db.read-password} or DEDUP_DB_READ_PASSWORD, each
   * defaulting to the primary's), else {@code db.url}. The plan is always applied on {@code
   * db.url}: its re-check under row locks compares each row with what was read, so a replica that
   * lags costs rows decided again, never a wrong removal.
   *
   * @throws BadInputException for a bad URL (the rules of db.url)
   */
  public DbSettings readDb() {
    DbSettings primary = config().db();
    String url = properties.getProperty("db.read-url", "").strip();
    if (url.isEmpty()) {
      return primary;
    }
    if (url.equals(DbSettings.EMBEDDED)) {
      throw new BadInputException("db.read-url must name a replica's JDBC URL, not 'embedded'");
    }
    String user = properties.getProperty("db.read-user", "").strip();
    try {
      return new DbSettings(
          url,
          user.isEmpty() ? primary.user() : user,
          readPassword.isEmpty() ? primary.password() : readPassword,
          primary.dataDir());
    } catch (BadInputException e) {
      throw new BadInputException(e.getMessage().replace("db.url", "db.read-url"), e);
    }
  }

  /** Whether the reads go to a replica ({@code db.read-url}). */
  public boolean readsReplica() {
    return !properties.getProperty("db.read-url", "").isBlank();
  }

  @Override
  public String toString() {
    return "JobConfig[" + config().table().table() + " at " + config().db() + "]";
  }
}
