package org.xiaochong.config;

import static org.xiaochong.config.ConfigValues.bool;
import static org.xiaochong.config.ConfigValues.columnsInUse;
import static org.xiaochong.config.ConfigValues.integer;
import static org.xiaochong.config.ConfigValues.list;
import static org.xiaochong.config.ConfigValues.longInteger;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.commons.codec.digest.DigestUtils;
import org.xiaochong.archive.ApplySettings;
import org.xiaochong.archive.ReferencedRows;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.FingerprintMethods;
import org.xiaochong.method.MethodColumns;
import org.xiaochong.method.MethodContext;
import org.xiaochong.policy.KeepPolicy;
import org.xiaochong.prefilter.PrefilterSettings;
import org.xiaochong.progress.Progress;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.DbSettings;
import org.xiaochong.source.TableSpec;

/**
 * The effective configuration: a Java properties file over the defaults ({@link ConfigKeys}). Every
 * key is documented in {@code config/dedup.properties}; an unknown key is an error (a typo must not
 * silently fall back to a default), with the closest known key suggested.
 */
public record DedupConfig(
    DbSettings db,
    TableSpec table,
    Path indexDir,
    Path dataDir,
    int threads,
    PrefilterSettings prefilter,
    String updatedColumn,
    Map<String, String> methodSettings,
    ReferencedRows.Settings references,
    ApplySettings apply,
    int readChunkRows) {

  public static final String PASSWORD_ENV = "DEDUP_DB_PASSWORD";

  /** Loads {@code file} (may be null: defaults only); {@code env} supplies DEDUP_DB_PASSWORD. */
  public static DedupConfig load(Path file, Map<String, String> env) {
    Properties props = new Properties();
    if (file != null) {
      try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        props.load(reader);
      } catch (NoSuchFileException e) {
        throw new BadInputException("config file " + file + " does not exist");
      } catch (IOException | IllegalArgumentException e) {
        throw new BadInputException(
            "config file " + file + " cannot be read: " + e.getMessage(), e);
      }
    }
    return fromProperties(props, env);
  }

  /**
   * The defaults with {@code data.dir} set: the embedded database and index under {@code dataDir}.
   */
  public static DedupConfig forDataDir(Path dataDir) {
    Properties props = new Properties();
    props.setProperty("data.dir", dataDir.toString());
    return fromProperties(props, Map.of());
  }

  public static DedupConfig fromProperties(Properties props, Map<String, String> env) {
    ConfigKeys.requireKnown(props);
    Map<String, String> values = new LinkedHashMap<>(ConfigKeys.DEFAULTS);
    props.stringPropertyNames().forEach(k -> values.put(k, props.getProperty(k).strip()));
    String password = values.get("db.password");
    if (password.isEmpty() && env.get(PASSWORD_ENV) != null) {
      password = env.get(PASSWORD_ENV);
    }
    Path dataDir = Path.of(values.get("data.dir"));
    String user = values.get("db.user");
    DbSettings db =
        new DbSettings(values.get("db.url"), user.isEmpty() ? null : user, password, dataDir);
    List<String> exactFields = list(values.get("fields.exact"));
    // Each method's main columns as set; its other columns (and fields.phone) default to columns
    // of the sample table (phone, product, region, …), a default applying only where the table
    // reads that column anyway, so another table's config need not clear them (MethodColumns).
    Map<String, List<String>> methodColumns = new LinkedHashMap<>();
    for (FingerprintMethod method : FingerprintMethods.known()) {
      method
          .columns()
          .ifPresent(
              c -> {
                List<String> main = c.main() == null ? List.of() : list(values.get(c.main()));
                if (c.main() != null) {
                  methodColumns.put(c.main(), main);
                }
                for (String key : c.keys().keySet()) {
                  methodColumns.put(key, columnsInUse(props, values, key, exactFields, main));
                }
              });
    }
    List<String> mainColumns = mainColumns(methodColumns);
    List<String> phoneFields =
        columnsInUse(props, values, "fields.phone", exactFields, mainColumns);
    TableSpec table =
        new TableSpec(
            values.get("source.table"),
            values.get("source.id-column"),
            values.get("source.time-column"),
            exactFields,
            phoneFields,
            methodColumns,
            KeepPolicy.parse(values.get("keep.policy"), values.get("source.time-column")));
    for (String phone : table.phoneFields()) {
      if (!table.exactFields().contains(phone) && !mainColumns.contains(phone)) {
        throw new BadInputException(
            "fields.phone names '"
                + phone
                + "', which is in neither fields.exact nor a method's columns ("
                + String.join(", ", mainKeys())
                + ")");
      }
    }
    String indexDir = values.get("index.dir");
    Path index =
        indexDir.isEmpty() ? dataDir.resolve("index").resolve(table.table()) : Path.of(indexDir);
    int threads = integer(values, "threads");
    if (threads < 0 || threads > 256) {
      throw new BadInputException(
          "threads (" + threads + ") must be in [0, 256]; 0 means one per core");
    }
    if (threads == 0) {
      threads = Runtime.getRuntime().availableProcessors();
    }
    PrefilterSettings prefilter;
    try {
      prefilter =
          new PrefilterSettings(
              bool(values, "prefilter.enabled"),
              integer(values, "prefilter.bits-per-key"),
              integer(values, "prefilter.hashes"));
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage(), e);
    }
    String updated = values.get("source.updated-column");
    if (!updated.isEmpty()) {
      try {
        TableSpec.quote(updated); // validates
      } catch (BadInputException e) {
        throw new BadInputException(
            "source.updated-column '"
                + updated
                + "' is not a valid SQL identifier (letters, digits, _ and $, at most 64)",
            e);
      }
    }
    Map<String, String> methodSettings = new TreeMap<>();
    for (FingerprintMethod method : FingerprintMethods.known()) {
      method.settingDefaults().keySet().forEach(key -> methodSettings.put(key, values.get(key)));
      method.checkSettings(methodSettings, table); // a bad value fails every command
    }
    ApplySettings apply;
    try {
      apply =
          new ApplySettings(
              integer(values, "apply.batch-rows"),
              longInteger(values, "apply.batch-bytes"),
              integer(values, "apply.lock-wait-seconds"),
              integer(values, "apply.attempts"),
              longInteger(values, "apply.pause-ms"));
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage(), e);
    }
    int readChunkRows = integer(values, "index.read-chunk-rows");
    if (readChunkRows < 100 || readChunkRows > 10_000_000) {
      throw new BadInputException(
          "index.read-chunk-rows (" + readChunkRows + ") must be in [100, 10000000]");
    }
    return new DedupConfig(
        db,
        table,
        index,
        dataDir,
        threads,
        prefilter,
        updated.isEmpty() ? null : updated,
        Map.copyOf(methodSettings),
        references(values),
        apply,
        readChunkRows);
  }

  private static ReferencedRows.Settings references(Map<String, String> values) {
    String triggers = values.get("apply.delete-triggers");
    if (!triggers.equals("refuse") && !triggers.equals("accept")) {
      throw new BadInputException(
          "apply.delete-triggers '" + triggers + "' must be refuse or accept");
    }
    return new ReferencedRows.Settings(
        ReferencedRows.Policy.of(values.get("apply.referenced")), triggers.equals("accept"));
  }

  /**
   * A digest of what decides the index documents (table, fields and the keep policy's rank): the
   * index records it and refuses to be used with another.
   */
  public String fieldsDigest() {
    String digest =
        String.join(
            "|",
            table.table(),
            table.idColumn(),
            table.timeColumn(),
            String.join(",", table.exactFields()),
            String.join(",", table.phoneFields()),
            String.join(",", mainColumns(table.methodColumns())));
    // The index keeps each record's rank under the keep policy: another policy needs another index.
    // latest ranks by the time the index holds anyway, so its digest is the one of indexes made
    // before keep.policy existed, and they stay usable.
    return DigestUtils.md5Hex(
        table.keepPolicy().isLatest() ? digest : digest + "|keep.policy=" + table.keepPolicy());
  }

  /** The methods' main column keys ({@link MethodColumns#main()}), in the registry's order. */
  private static List<String> mainKeys() {
    return FingerprintMethods.known().stream()
        .flatMap(method -> method.columns().stream())
        .map(MethodColumns::main)
        .filter(Objects::nonNull)
        .toList();
  }

  /** The columns of every method's main key, in the registry's order. */
  private static List<String> mainColumns(Map<String, List<String>> methodColumns) {
    return mainKeys().stream()
        .flatMap(key -> methodColumns.getOrDefault(key, List.of()).stream())
        .toList();
  }

  /**
   * What a method needs to open its part of {@code check} over {@code recordIndex} (read-only or
   * writable).
   */
  public MethodContext methodContext(FingerprintIndex recordIndex, Consumer<String> notes) {
    return new MethodContext(
        table,
        recordIndex,
        fieldsDigest(),
        prefilter,
        false,
        1,
        updatedColumn,
        Progress.NONE,
        notes,
        methodSettings);
  }

  /** A digest of the whole effective config, password excluded, for the run log. */
  public String digest() {
    Map<String, String> sorted = new TreeMap<>();
    sorted.put("db.url", DbSettings.redactUrl(db.url()));
    sorted.put("db.user", String.valueOf(db.user()));
    sorted.put("fields", fieldsDigest());
    sorted.put("index.dir", indexDir.toAbsolutePath().toString());
    return DigestUtils.md5Hex(sorted.toString());
  }

  @Override
  public String toString() {
    return "DedupConfig[db="
        + db
        + ", table="
        + table
        + ", indexDir="
        + indexDir
        + ", threads="
        + threads
        + "]";
  }
}
