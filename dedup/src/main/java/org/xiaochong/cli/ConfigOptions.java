package org.xiaochong.cli;

import java.nio.file.Path;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.source.Database;
import picocli.CommandLine.Option;

/** Options every database command takes. */
final class ConfigOptions {
  @Option(names = {"-c", "--config"}, paramLabel = "FILE",
      description = "Java properties file (keys: see config/dedup.properties). Default: built-in defaults, embedded MariaDB.")
  Path config;

  @Option(names = "--verbose", description = "Print stack traces of errors.")
  boolean verbose;

  DedupConfig load() {
    return DedupConfig.load(config, System.getenv());
  }

  static Database openDatabase(DedupConfig config) {
    return Database.open(config.db());
  }

  static FingerprintIndex openIndex(DedupConfig config, boolean rebuild) {
    return FingerprintIndex.open(config.indexDir(), config.fieldsDigest(), rebuild);
  }

  /**
   * The near index if a near run built it (and fields.near is set), else null: commands that change
   * the table (restore, an applied exact run) and {@code check} keep it in step.
   */
  static FingerprintIndex openNearIndexIfBuilt(DedupConfig config) {
    if (config.table().nearFields().isEmpty() || !FingerprintIndex.exists(config.nearIndexDir())) {
      return null;
    }
    return openNearIndex(config, false);
  }

  /** The near index, {@code <index.dir>/near}; only for --method near|both. */
  static FingerprintIndex openNearIndex(DedupConfig config, boolean rebuild) {
    return FingerprintIndex.open(config.nearIndexDir(), config.nearFieldsDigest(), rebuild);
  }
}
