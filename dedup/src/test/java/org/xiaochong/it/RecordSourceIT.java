package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.xiaochong.fingerprint.ExactKey;
import org.xiaochong.index.RecordDocumentMaker;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * Rows are read as the UTF-8 bytes the server sends when every fingerprint column arrives as UTF-8,
 * else as strings: the exact keys are the same either way, whatever the columns' character set.
 */
@Tag("db")
class RecordSourceIT extends DbTestSupport {
  private static final LocalDateTime T = LocalDateTime.of(2024, 3, 1, 8, 30);
  private static final String[] TITLES = {
    "供应山东烟台红富士苹果，价格２．５元／斤。", "Red  Fuji　ＡＰＰＬＥ", "【特级】赣南脐橙 🍊", null, "", "繁體：蘋果"
  };

  /**
   * A table with the sample columns, its text columns in {@code charset}, holding {@link #TITLES}.
   */
  private static void createTable(String table, String charset) {
    useHandle(
        h -> {
          h.execute("DROP TABLE IF EXISTS `" + table + "`");
          h.execute(
              "CREATE TABLE `"
                  + table
                  + "` (id BIGINT PRIMARY KEY, title VARCHAR(255), category VARCHAR(16),"
                  + " product VARCHAR(64), region VARCHAR(64), price VARCHAR(64), contact VARCHAR(64), phone VARCHAR(64),"
                  + " content TEXT, reg_time DATETIME) ENGINE=InnoDB DEFAULT CHARSET="
                  + charset);
        });
    for (int i = 0; i < TITLES.length; i++) {
      // gbk and utf8mb3 have no emoji: the server would store '?' there (or refuse it)
      String title =
          TITLES[i] == null || charset.equals("utf8mb4") ? TITLES[i] : TITLES[i].replace("🍊", "?");
      insert(
          table, i + 1, title, "苹果", "+86 138-0013-8000", title == null ? null : title + " 内容", T);
    }
  }

  private static List<SourceRecord> readAll(String table) {
    List<SourceRecord> records = new ArrayList<>();
    new RecordSource(database(), spec(table))
        .forEachRecordInRange(Long.MIN_VALUE, Long.MAX_VALUE, records::add);
    return records;
  }

  @Test
  void forEachRecordInRange_utf8mb4Table_readsUtf8BytesWithTheKeysOfTheStrings() {
    createTable("rs_utf8", "utf8mb4");
    TableSpec spec = spec("rs_utf8");
    List<SourceRecord> records = readAll("rs_utf8");

    assertThat(records).hasSize(TITLES.length);
    RecordDocumentMaker keys = new RecordDocumentMaker(spec);
    ExactKey fromStrings = new ExactKey(spec.exactFields(), spec.phoneFields());
    for (SourceRecord record : records) {
      assertThat(record.utf8OrNull()).isNotNull();
      assertThat(record.values()[spec.fingerprintColumns().indexOf("title")])
          .isEqualTo(TITLES[(int) record.id() - 1]);
      String[] exactValues =
          spec.exactFields().stream()
              .map(f -> record.values()[spec.fingerprintColumns().indexOf(f)])
              .toArray(String[]::new);
      assertThat(keys.exactKey(record)).isEqualTo(fromStrings.compute(exactValues));
    }
  }

  @Test
  void forEachRecordInRange_gbkTable_readsStringsAndGivesTheSameKeysAsUtf8mb4() {
    createTable("rs_gbk", "gbk");
    createTable("rs_gbk_as_utf8", "utf8mb4");
    useHandle(
        h ->
            h.execute(
                "UPDATE rs_gbk_as_utf8 SET title = REPLACE(title, '🍊', '?'),"
                    + " content = REPLACE(content, '🍊', '?')"));
    List<SourceRecord> gbk = readAll("rs_gbk");
    List<SourceRecord> utf8 = readAll("rs_gbk_as_utf8");

    assertThat(gbk).hasSize(TITLES.length);
    assertThat(gbk)
        .allSatisfy(r -> assertThat(r.utf8OrNull()).isNull()); // the driver decodes GBK itself
    RecordDocumentMaker gbkKeys = new RecordDocumentMaker(spec("rs_gbk"));
    RecordDocumentMaker utf8Keys = new RecordDocumentMaker(spec("rs_gbk_as_utf8"));
    for (int i = 0; i < gbk.size(); i++) {
      assertThat(gbk.get(i).values()).containsExactly(utf8.get(i).values());
      assertThat(gbkKeys.exactKey(gbk.get(i)))
          .as("row %s", i + 1)
          .isEqualTo(utf8Keys.exactKey(utf8.get(i)));
    }
  }

  /**
   * The checksum of a row read in full (computed by the client for UTF-8 columns) equals the one
   * the server computes in the sync's id stream, for every charset and for NULLs, '', 0x1F inside a
   * value, trailing spaces, emoji: else every sync would re-index every row and every apply decide
   * again.
   */
  @Test
  void rowChecksums_readRowsAndServerStream_agreeForEveryCharset() {
    for (String charset : List.of("utf8mb4", "utf8mb3", "gbk", "latin1", "mixed")) {
      String table = "rs_crc_" + charset;
      createTable(
          table,
          charset.equals("mixed") ? "utf8mb4" : charset.equals("latin1") ? "utf8mb4" : charset);
      insert(table, 101, "a\u001Fb", "x\u001F", null, "trailing  ", T);
      insert(table, 102, "a", "\u001Fbx", null, "trailing", T);
      insert(table, 103, null, null, null, null, T);
      insert(table, 104, "", "", "", "", T);
      if (charset.equals("latin1")) {
        useHandle(
            h -> {
              h.execute("DELETE FROM " + table + " WHERE id <= 6");
              h.execute(
                  "UPDATE "
                      + table
                      + " SET category = 'supply', region = 'Yantai', price = '2.50',"
                      + " contact = 'Mr Wang'");
              h.execute(
                  "INSERT INTO "
                      + table
                      + " (id, title, category, product, region, price, contact, phone,"
                      + " content, reg_time) VALUES (105, 'café crème', 'offre', 'naïve', 'Zürich', '3 €', 'Mme Ünï', '138',"
                      + " 'Ünïcödé ½', '2024-03-01 08:30:00')");
              h.execute("ALTER TABLE " + table + " CONVERT TO CHARACTER SET latin1");
            });
      }
      if (charset.equals("mixed")) {
        useHandle(
            h ->
                h.execute(
                    "ALTER TABLE " + table + " MODIFY phone VARCHAR(64) CHARACTER SET ascii"));
      }
      java.util.Map<Long, Long> server = new java.util.TreeMap<>();
      new RecordSource(database(), spec(table))
          .forEachRowStateInRange(
              Long.MIN_VALUE, Long.MAX_VALUE, true, (id, time, crc) -> server.put(id, crc));
      java.util.Map<Long, Long> client = new java.util.TreeMap<>();
      readAll(table).forEach(r -> client.put(r.id(), r.rowCrc()));

      assertThat(server)
          .as(charset)
          .hasSizeGreaterThanOrEqualTo(5)
          .doesNotContainValue(SourceRecord.UNKNOWN_CRC);
      assertThat(client).as(charset).isEqualTo(server);
    }
    // rows 101 and 102 differ only in where the 0x1F is; 103 (NULLs) and 104 ('') differ
    java.util.Map<Long, Long> crcs = new java.util.TreeMap<>();
    readAll("rs_crc_utf8mb4").forEach(r -> crcs.put(r.id(), r.rowCrc()));
    assertThat(crcs.get(101L)).isNotEqualTo(crcs.get(102L));
    assertThat(crcs.get(103L)).isNotEqualTo(crcs.get(104L));
  }
}
