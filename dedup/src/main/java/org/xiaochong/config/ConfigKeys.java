package org.xiaochong.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.commons.text.similarity.LevenshteinDistance;
import org.xiaochong.archive.ApplySettings;
import org.xiaochong.method.FingerprintMethods;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.DbSettings;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.TableSpec;

/**
 * The keys of the configuration ({@link DedupConfig}) and their defaults. An unknown key is an
 * error (a typo must not silently fall back to a default), with the closest known key suggested.
 */
final class ConfigKeys {
  /** Keys and defaults, in the order of config/dedup.properties. */
  static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

  static {
    DEFAULTS.put("db.url", DbSettings.EMBEDDED);
    DEFAULTS.put("db.user", "");
    DEFAULTS.put("db.password", "");
    // A replica for dedup-spark's reads (read there by spark's JobConfig; bin/dedup uses db.url).
    DEFAULTS.put("db.read-url", "");
    DEFAULTS.put("db.read-user", "");
    DEFAULTS.put("db.read-password", "");
    DEFAULTS.put("data.dir", "data");
    DEFAULTS.put("source.table", "supply_demand");
    DEFAULTS.put("source.id-column", "id");
    DEFAULTS.put("source.time-column", "reg_time");
    DEFAULTS.put("source.updated-column", "");
    DEFAULTS.put("keep.policy", KeepPolicy.LATEST);
    DEFAULTS.put("apply.referenced", "refuse");
    DEFAULTS.put("apply.delete-triggers", "refuse");
    DEFAULTS.put("fields.exact", String.join(",", TableSpec.SAMPLE_TEXT_COLUMNS));
    DEFAULTS.put("fields.phone", "phone");
    // The keys naming the columns of methods that read columns of their own (fields.near, …).
    FingerprintMethods.known()
        .forEach(method -> method.columns().ifPresent(c -> DEFAULTS.putAll(c.defaults())));
    DEFAULTS.put("index.dir", "");
    DEFAULTS.put("index.read-chunk-rows", Integer.toString(RecordSource.DEFAULT_CHUNK_ROWS));
    DEFAULTS.put("prefilter.enabled", "true");
    DEFAULTS.put("prefilter.bits-per-key", "20");
    DEFAULTS.put("prefilter.hashes", "8");
    DEFAULTS.put("apply.batch-rows", Integer.toString(ApplySettings.DEFAULTS.batchRows()));
    DEFAULTS.put("apply.batch-bytes", Long.toString(ApplySettings.DEFAULTS.batchBytes()));
    DEFAULTS.put(
        "apply.lock-wait-seconds", Integer.toString(ApplySettings.DEFAULTS.lockWaitSeconds()));
    DEFAULTS.put("apply.attempts", Integer.toString(ApplySettings.DEFAULTS.attempts()));
    DEFAULTS.put("apply.pause-ms", Long.toString(ApplySettings.DEFAULTS.pauseMillis()));
    DEFAULTS.put("threads", "0");
    DEFAULTS.put("serve.token", "");
    // The keys of methods with settings of their own (simhash.*), as each method declares them.
    FingerprintMethods.known()
        .forEach(method -> new TreeMap<>(method.settingDefaults()).forEach(DEFAULTS::put));
  }

  private ConfigKeys() {}

  /**
   * @throws BadInputException naming the first key of {@code props} that is not a known key, and
   *     the closest known key
   */
  static void requireKnown(Properties props) {
    for (String key : props.stringPropertyNames()) {
      if (!DEFAULTS.containsKey(key)) {
        throw new BadInputException("unknown config key '" + key + "'" + suggestion(key));
      }
    }
  }

  static List<String> knownKeys() {
    return List.copyOf(DEFAULTS.keySet());
  }

  private static String suggestion(String key) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String known : DEFAULTS.keySet()) {
      int d = LevenshteinDistance.getDefaultInstance().apply(key, known);
      if (d < bestDistance) {
        bestDistance = d;
        best = known;
      }
    }
    return bestDistance <= 3
        ? " (did you mean '" + best + "'?)"
        : " (known keys: " + String.join(", ", DEFAULTS.keySet()) + ")";
  }
}
