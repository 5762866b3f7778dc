package org.xiaochong.config;

import java.util.function.Consumer;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.run.IndexHandOver;

/**
 * The configured index ({@code index.dir}, built for the configured fields), opened the three ways
 * the commands and the online check need: to write, to write once a serving process has handed over
 * its write lock, or to read beside a writer.
 */
public final class ConfiguredIndex {
  private ConfiguredIndex() {}

  /** The index with its write lock; {@code rebuild} starts it empty. */
  public static FingerprintIndex open(DedupConfig config, boolean rebuild) {
    return FingerprintIndex.open(config.indexDir(), config.fieldsDigest(), rebuild);
  }

  /**
   * The index with its write lock, handed over by a {@code dedup serve} that holds it for its adds
   * ({@link IndexHandOver}: it is asked, and waited for up to a minute), with a note saying so.
   */
  public static FingerprintIndex openHandedOver(
      DedupConfig config, boolean rebuild, Consumer<String> notes) {
    return IndexHandOver.open(
        config.indexDir(), () -> open(config, rebuild), IndexHandOver.WAIT, notes);
  }

  /** The index for reading only (no write lock: a run may write beside it). */
  public static FingerprintIndex openReadOnly(DedupConfig config) {
    return FingerprintIndex.openReadOnly(config.indexDir(), config.fieldsDigest());
  }
}
