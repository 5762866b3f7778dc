package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.ArchiveTables;
import org.xiaochong.archive.Restorer;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.source.Database;
import org.xiaochong.source.RecordSource;

/**
 * What a server's settings must not change: the session's sql_mode is the tool's whatever the
 * server's global one ({@link Database#SQL_MODE}), and the archive is made with its primary key in
 * one statement for servers that refuse a table without one (MariaDB's {@code
 * innodb_force_primary_key}, the counterpart of MySQL 8's {@code sql_require_primary_key}).
 */
@Tag("db")
class ServerSettingsIT extends DbTestSupport {
  private static final String TABLE = "server_settings";

  @TempDir Path dir;

  private String globalSqlMode;

  @AfterEach
  void restoreGlobals() {
    withHandle(
        h -> {
          if (globalSqlMode != null) {
            h.createUpdate("SET GLOBAL sql_mode = ?").bind(0, globalSqlMode).execute();
          }
          h.execute("SET GLOBAL innodb_force_primary_key = OFF");
          return null;
        });
  }

  private void setGlobalSqlMode(String mode) {
    globalSqlMode =
        withHandle(h -> h.createQuery("SELECT @@GLOBAL.sql_mode").mapTo(String.class).one());
    withHandle(h -> h.createUpdate("SET GLOBAL sql_mode = ?").bind(0, mode).execute());
  }

  @Test
  void session_underALenientServerMode_isTheToolsStrictMode() {
    setGlobalSqlMode("NO_BACKSLASH_ESCAPES,ANSI_QUOTES");

    String session =
        withHandle(h -> h.createQuery("SELECT @@SESSION.sql_mode").mapTo(String.class).one());

    assertThat(List.of(session.split(",")))
        .containsExactlyInAnyOrder(
            "STRICT_TRANS_TABLES", "NO_AUTO_VALUE_ON_ZERO", "NO_ENGINE_SUBSTITUTION");
  }

  @Test
  void apply_underNoBackslashEscapes_loadsThePlan() {
    setGlobalSqlMode("NO_BACKSLASH_ESCAPES,ANSI_QUOTES");
    createPostsTable(TABLE);
    LocalDateTime t = LocalDateTime.of(2024, 5, 1, 8, 0);
    insert(TABLE, 1, "莱阳梨", "梨", "13900000000", "莱阳梨 批发", t);
    insert(TABLE, 2, "莱阳梨", "梨", "13900000000", "莱阳梨 批发", t.plusDays(1));
    insert(TABLE, 3, "烟台苹果", "苹果", "13800000000", "红富士 产地直供", t);
    insert(TABLE, 4, "烟台苹果", "苹果", "13800000000", "红富士 产地直供", t.plusDays(1));

    DedupRunner.Outcome outcome = runExact(TABLE, dir.resolve("index"), null, null, true);

    assertThat(ids(TABLE)).containsExactly(2L, 4L);
    List<Long> archived =
        withHandle(
            h ->
                h.createQuery("SELECT id FROM server_settings_removed ORDER BY id")
                    .mapTo(Long.class)
                    .list());
    assertThat(archived).containsExactly(1L, 3L);
    String status =
        withHandle(
            h ->
                h.createQuery("SELECT status FROM dedup_run WHERE id = ?")
                    .bind(0, outcome.summary().runId())
                    .mapTo(String.class)
                    .one());
    assertThat(status).isEqualTo("applied");
  }

  @Test
  void applyAndRestore_rowWithIdZero_comesBackAsIdZero() {
    setGlobalSqlMode("");
    createPostsTable(TABLE);
    LocalDateTime t = LocalDateTime.of(2024, 5, 1, 8, 0);
    insert(TABLE, 5, "烟台苹果", "苹果", "13800000000", "红富士 产地直供", t.plusDays(1));
    withHandle(
        h -> {
          // A row with id 0, as a site's import may hold one (stored under NO_AUTO_VALUE_ON_ZERO).
          h.execute("SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO'");
          return h.execute(
              "INSERT INTO server_settings (id, title, category, product, region, price, contact, phone,"
                  + " content, reg_time) SELECT 0, title, category, product, region, price, contact, phone, content,"
                  + " reg_time - INTERVAL 1 DAY FROM server_settings WHERE id = 5");
        });
    assertThat(ids(TABLE)).containsExactly(0L, 5L);
    DedupRunner.Outcome outcome = runExact(TABLE, dir.resolve("index"), null, null, true);
    assertThat(ids(TABLE)).containsExactly(5L);

    ArchiveTables archive =
        ArchiveTables.ensure(
            database(), spec(TABLE), new RecordSource(database(), spec(TABLE)).checkSchema());
    long restored = new Restorer(archive).restore(outcome.summary().runId());

    assertThat(restored).isEqualTo(1);
    assertThat(ids(TABLE)).containsExactly(0L, 5L);
  }

  @Test
  void archive_onAServerThatForcesPrimaryKeys_isCreatedWithItsKey() {
    createPostsTable(TABLE);
    LocalDateTime t = LocalDateTime.of(2024, 5, 1, 8, 0);
    insert(TABLE, 1, "莱阳梨", "梨", "13900000000", "莱阳梨 批发", t);
    insert(TABLE, 2, "莱阳梨", "梨", "13900000000", "莱阳梨 批发", t.plusDays(1));
    withHandle(h -> h.execute("SET GLOBAL innodb_force_primary_key = ON"));

    runExact(TABLE, dir.resolve("index"), null, null, true);

    assertThat(ids(TABLE)).containsExactly(2L);
    List<String> key =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT column_name FROM information_schema.key_column_usage"
                            + " WHERE table_schema = DATABASE() AND table_name = 'server_settings_removed'"
                            + " AND constraint_name = 'PRIMARY' ORDER BY ordinal_position")
                    .mapTo(String.class)
                    .list());
    assertThat(key).containsExactly("dedup_run_id", "id");
  }
}
