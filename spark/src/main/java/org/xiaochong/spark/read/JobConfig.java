package org.xiaochong.spark.read;

import java.io.Serializable;
import java.util.Map;
import java.util.Properties;
import org.xiaochong.cli.DedupConfig;
import org.xiaochong.source.BadInputException;

/**
 * The run's config as the executors receive it: the properties of the config file, the password
 * resolved on the driver. Each executor builds its {@link DedupConfig} from them with the same code
 * as the single machine ({@link DedupConfig#fromProperties}), so the table spec, the near settings
 * and the methods' settings cannot differ between driver and executors. The password travels inside
 * Spark's task closures (never in a log; {@link #toString} leaves it out).
 */
public final class JobConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  private final Properties properties;
  private final String password;
  private transient DedupConfig config;

  private JobConfig(Properties properties, String password) {
    this.properties = properties;
    this.password = password;
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
    JobConfig job = new JobConfig(properties, config.db().password());
    job.config = config;
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

  @Override
  public String toString() {
    return "JobConfig[" + config().table().table() + " at " + config().db() + "]";
  }
}
