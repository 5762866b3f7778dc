package org.xiaochong.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.xiaochong.archive.ReferencedRows;
import org.xiaochong.method.FingerprintMethods;
import org.xiaochong.source.BadInputException;

class DedupConfigTest {
  private static final Path DOCUMENTED = Path.of("..", "config", "dedup.properties");

  @Test
  void documentedConfig_listsEveryKeyWithItsDefault() throws IOException {
    Properties documented = new Properties();
    try (Reader reader = Files.newBufferedReader(DOCUMENTED, StandardCharsets.UTF_8)) {
      documented.load(reader);
    }
    // Methods found on the class path (tests' own) document their keys elsewhere.
    java.util.Set<String> pluginKeys = new java.util.HashSet<>();
    FingerprintMethods.known().stream()
        .filter(m -> !FingerprintMethods.isBuiltIn(m))
        .forEach(
            m -> {
              pluginKeys.addAll(m.settingDefaults().keySet());
              m.columns().ifPresent(c -> pluginKeys.addAll(c.defaults().keySet()));
            });
    java.util.List<String> builtInKeys =
        ConfigKeys.knownKeys().stream().filter(k -> !pluginKeys.contains(k)).toList();
    assertThat(documented.stringPropertyNames()).containsExactlyInAnyOrderElementsOf(builtInKeys);
    for (String key : builtInKeys) {
      assertThat(documented.getProperty(key)).as(key).isEqualTo(ConfigKeys.DEFAULTS.get(key));
    }
    // The documented file, used as it is, gives the built-in defaults.
    assertThat(DedupConfig.fromProperties(documented, Map.of()).fieldsDigest())
        .isEqualTo(DedupConfig.fromProperties(new Properties(), Map.of()).fieldsDigest());
  }

  @Test
  void fromProperties_typoInKey_suggestsTheKnownKey() {
    Properties props = new Properties();
    props.setProperty("fileds.exact", "title");
    assertThatThrownBy(() -> DedupConfig.fromProperties(props, Map.of()))
        .isInstanceOf(BadInputException.class)
        .hasMessage("unknown config key 'fileds.exact' (did you mean 'fields.exact'?)");
  }

  @Test
  void fromProperties_aMethodsOwnKeys_areKnownCheckedAndHandedToTheMethods() {
    Properties props = new Properties();
    props.setProperty("simhash.max-distance", "2");
    assertThat(DedupConfig.fromProperties(props, Map.of()).methodSettings())
        .containsEntry("simhash.max-distance", "2")
        .containsEntry("simhash.tokenizer", "shingles-4/3");

    props.setProperty("simhash.max-distance", "9");
    assertThatThrownBy(() -> DedupConfig.fromProperties(props, Map.of()))
        .isInstanceOf(BadInputException.class)
        .hasMessage("simhash.max-distance (9) must be in [0, 3]");
  }

  @Test
  void fromProperties_applySettings_defaultToRefuseAndReadTheOwnersChoice() {
    assertThat(DedupConfig.fromProperties(new Properties(), Map.of()).references())
        .isEqualTo(ReferencedRows.Settings.DEFAULT);
    Properties props = new Properties();
    props.setProperty("apply.referenced", "merge");
    props.setProperty("apply.delete-triggers", "accept");
    assertThat(DedupConfig.fromProperties(props, Map.of()).references())
        .isEqualTo(new ReferencedRows.Settings(ReferencedRows.Policy.MERGE, true));
  }

  @Test
  void fromProperties_passwordFromEnvironment_isUsedAndNeverPrinted() {
    DedupConfig config =
        DedupConfig.fromProperties(new Properties(), Map.of("DEDUP_DB_PASSWORD", "S3cret!pw"));
    assertThat(config.db().password()).isEqualTo("S3cret!pw");
    assertThat(config.toString()).doesNotContain("S3cret!pw");
    assertThat(config.db().toString()).doesNotContain("S3cret!pw");
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource(
      delimiter = '|',
      value = {
        "threads|two|threads 'two' is not a whole number",
        "threads|300|threads (300) must be in [0, 256]; 0 means one per core",
        "prefilter.enabled|yes|prefilter.enabled 'yes' must be true or false",
        "prefilter.hashes|8.5|prefilter.hashes '8.5' is not a whole number",
        "near.min-similarity|0,6|near.min-similarity '0,6' is not a number",
        "near.traditional|1|near.traditional '1' must be true or false",
        "apply.referenced|cascade|apply.referenced 'cascade' must be refuse, merge or keep",
        "apply.delete-triggers|yes|apply.delete-triggers 'yes' must be refuse or accept",
        "apply.batch-rows|0|apply.batch-rows (0) must be in [1, 1000000]",
        "apply.batch-bytes|32MB|apply.batch-bytes '32MB' is not a whole number",
        "apply.lock-wait-seconds|0|apply.lock-wait-seconds (0) must be in [1, 3600]",
        "apply.pause-ms|-5|apply.pause-ms (-5) must be in [0, 60000]",
        "index.read-chunk-rows|10|index.read-chunk-rows (10) must be in [100, 10000000]"
      })
  void fromProperties_badValue_oneLineNamingKeyAndValue(String key, String value, String message) {
    Properties props = new Properties();
    props.setProperty(key, value);
    assertThatThrownBy(() -> DedupConfig.fromProperties(props, Map.of()))
        .isInstanceOf(BadInputException.class)
        .hasMessage(message);
  }

  @Test
  void fromProperties_applyAndReadSettings_areRead() {
    Properties props = new Properties();
    props.setProperty("apply.batch-rows", "500");
    props.setProperty("apply.lock-wait-seconds", "2");
    props.setProperty("apply.pause-ms", "100");
    props.setProperty("index.read-chunk-rows", "5000");

    DedupConfig config = DedupConfig.fromProperties(props, Map.of());

    assertThat(config.apply())
        .isEqualTo(new org.xiaochong.archive.ApplySettings(500, 32L << 20, 2, 8, 100));
    assertThat(config.readChunkRows()).isEqualTo(5000);
  }

  @Test
  void fromProperties_injectionInTableName_isRejected() {
    Properties props = new Properties();
    props.setProperty("source.table", "x; DROP TABLE y");
    assertThatThrownBy(() -> DedupConfig.fromProperties(props, Map.of()))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("source.table 'x; DROP TABLE y' is not a valid SQL identifier");
  }

  @Test
  void fromProperties_passwordInUrl_isRejected() {
    Properties props = new Properties();
    props.setProperty("db.url", "jdbc:mysql://h/db?user=a&password=hunter2");
    assertThatThrownBy(() -> DedupConfig.fromProperties(props, Map.of()))
        .isInstanceOf(BadInputException.class)
        .hasMessageNotContaining("hunter2")
        .hasMessageContaining("must not carry the password");
  }

  @Test
  void fromProperties_defaultIndexDir_isUnderDataDirPerTable() {
    Properties props = new Properties();
    props.setProperty("data.dir", "/srv/x");
    props.setProperty("source.table", "posts");
    props.setProperty("fields.exact", "title");
    props.setProperty("fields.phone", "");
    props.setProperty("fields.near", "title");
    assertThat(DedupConfig.fromProperties(props, Map.of()).indexDir())
        .isEqualTo(Path.of("/srv/x/index/posts"));
  }

  @Test
  void fromProperties_placeAndNumberFields_defaultToTheSampleColumnsInUse_andAreValidated() {
    DedupConfig defaults = DedupConfig.fromProperties(new Properties(), Map.of());
    assertThat(defaults.table().columns("fields.place")).containsExactly("region");
    assertThat(defaults.table().columns("fields.number")).containsExactly("price");
    // Another table without those columns: the defaults do not apply.
    Properties other = new Properties();
    other.setProperty("fields.exact", "title,estate,area");
    other.setProperty("fields.near", "title");
    DedupConfig ads = DedupConfig.fromProperties(other, Map.of());
    assertThat(ads.table().columns("fields.place")).isEmpty();
    assertThat(ads.table().columns("fields.number")).isEmpty();
    other.setProperty("fields.place", "estate");
    other.setProperty("fields.number", "area");
    ads = DedupConfig.fromProperties(other, Map.of());
    assertThat(ads.table().columns("fields.place")).containsExactly("estate");
    assertThat(ads.table().fingerprintColumns()).contains("estate", "area");

    Properties bad = new Properties();
    bad.setProperty("fields.place", "region; DROP TABLE x");
    assertThatThrownBy(() -> DedupConfig.fromProperties(bad, Map.of()))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("fields.place 'region; DROP TABLE x' is not a valid SQL identifier");
    Properties both = new Properties();
    both.setProperty("fields.place", "region");
    both.setProperty("fields.number", "region");
    assertThatThrownBy(() -> DedupConfig.fromProperties(both, Map.of()))
        .isInstanceOf(BadInputException.class)
        .hasMessage("column 'region' is in both fields.place and fields.number: name it in one");
  }

  @Test
  void methodColumns_areReadUnderTheKeysTheMethodsDeclare_andKeepTheDigestOfIndexesMadeBefore() {
    Properties props = new Properties();
    props.setProperty("source.table", "posts");
    props.setProperty("fields.exact", "title,body");
    props.setProperty("fields.near", "body");
    props.setProperty("fields.seller", "who");
    props.setProperty("linkage.columns", "title,city");
    DedupConfig config = DedupConfig.fromProperties(props, Map.of());
    // Each method's keys, in the order the methods declare them; near's role defaults the table
    // does not read (product, region, price) are dropped, a role set by hand is read even when no
    // other key names its column.
    assertThat(config.table().methodColumns())
        .containsExactly(
            Map.entry("fields.near", List.of("body")),
            Map.entry("fields.must-match", List.of()),
            Map.entry("fields.place", List.of()),
            Map.entry("fields.number", List.of()),
            Map.entry("fields.seller", List.of("who")),
            Map.entry("simhash.fields", List.of()),
            // linkage.columns, set by hand: read even where no other key names the column (city)
            Map.entry("linkage.columns", List.of("title", "city")),
            // the tests' minhash (MethodColumns.of): its default (title,product,content) keeps
            // the one column the table reads anyway
            Map.entry("minhash.fields", List.of("title")));
    assertThat(config.table().fingerprintColumns()).containsExactly("title", "body", "who", "city");
    // The digest is the one builds wrote before the near columns moved out of the table's model:
    // the main columns (fields.near) stay in it, so those indexes stay usable.
    assertThat(config.fieldsDigest())
        .isEqualTo(
            org.apache.commons.codec.digest.DigestUtils.md5Hex(
                "posts|id|reg_time|title,body||body"));
  }

  @Test
  void keepPolicy_latestKeepsTheDigestOfIndexesMadeBefore_anotherPolicyNeedsAnotherIndex() {
    DedupConfig latest = DedupConfig.fromProperties(new Properties(), Map.of());
    // the digest of the fields alone, as builds without keep.policy wrote it into every index
    assertThat(latest.fieldsDigest())
        .isEqualTo(
            org.apache.commons.codec.digest.DigestUtils.md5Hex(
                "supply_demand|id|reg_time|title,category,product,region,price,contact,phone,content|phone|title,product,content"));
    assertThat(latest.table().keepPolicy().isLatest()).isTrue();
    Properties earliest = new Properties();
    earliest.setProperty("keep.policy", "earliest");
    Properties paid = new Properties();
    paid.setProperty("keep.policy", "paid desc, reg_time desc");
    DedupConfig paidConfig = DedupConfig.fromProperties(paid, Map.of());
    assertThat(DedupConfig.fromProperties(earliest, Map.of()).fieldsDigest())
        .isNotEqualTo(latest.fieldsDigest());
    assertThat(paidConfig.fieldsDigest())
        .isNotEqualTo(latest.fieldsDigest())
        .isNotEqualTo(DedupConfig.fromProperties(earliest, Map.of()).fieldsDigest());
    assertThat(paidConfig.table().fingerprintColumns()).endsWith("paid");
  }

  @Test
  void keepPolicy_badValue_oneLineNamingIt() {
    Properties props = new Properties();
    props.setProperty("keep.policy", "paid downwards");
    assertThatThrownBy(() -> DedupConfig.fromProperties(props, Map.of()))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("keep.policy")
        .hasMessageContaining("paid downwards");
    props.setProperty("keep.policy", "`paid` desc");
    assertThatThrownBy(() -> DedupConfig.fromProperties(props, Map.of()))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("keep.policy");
  }
}
