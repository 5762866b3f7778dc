package org.xiaochong.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.FingerprintMethods;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import picocli.CommandLine.Option;

/** Options every database command takes. */
public final class ConfigOptions {
  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      description =
          "Java properties file (keys: see config/dedup.properties). Default: built-in defaults, embedded MariaDB.")
  Path config;

  @Option(names = "--verbose", description = "Print stack traces of errors.")
  boolean verbose;

  DedupConfig load() {
    return DedupConfig.load(config, System.getenv());
  }

  static Database openDatabase(DedupConfig config) {
    return Database.open(config.db());
  }

  /**
   * A runner for the configured table, with the configured prefilter and method settings.
   *
   * @param notes receives one-line notes for the user (e.g. a prefilter rebuilt, and why)
   */
  public static DedupRunner runner(
      DedupConfig config,
      Database database,
      FingerprintIndex index,
      Progress progress,
      Consumer<String> notes) {
    return new DedupRunner(
            database, config.table(), index, config.digest(), config.threads(), progress)
        .withPrefilter(config.prefilter())
        .withNotes(notes)
        .withMethodSettings(config.fieldsDigest(), config.methodSettings())
        .withUpdatedColumn(config.updatedColumn())
        .withReferences(config.references())
        .withApplySettings(config.apply())
        .withReadChunkRows(config.readChunkRows());
  }

  /**
   * The methods of {@code --method} (names, comma-separated, or {@code both}), in the order given.
   *
   * @throws BadInputException naming the known methods
   */
  public static List<FingerprintMethod> methods(String spec) {
    try {
      return FingerprintMethods.parse(spec);
    } catch (IllegalArgumentException e) {
      throw new BadInputException("--method: " + e.getMessage());
    }
  }
}
