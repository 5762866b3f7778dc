package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.TableSpec;

/**
 * A TIMESTAMP time column holds instants, which the server renders in the session's time zone.
 * These tests change the server's global time_zone (restored after each test) and check that
 * TIMESTAMP values are read as UTC instants whatever it is, and DATETIME values as they are; and
 * that DATETIME values bound through Jdbi are stored as written whatever the JVM's zone.
 *
 * <p>The embedded server has no time zone tables, so the daylight-saving test adds one zone to
 * them, {@code Test/Berlin-2024}: Berlin's rules for 2024 only (CET +01:00, CEST +02:00 from
 * 2024-03-31 01:00 UTC to 2024-10-27 01:00 UTC), enough for the fall-back hour.
 */
@Tag("db")
class TimestampZoneIT extends DbTestSupport {
  private static final String TABLE = "timestamp_zone_posts";
  private static final String DST_ZONE = "Test/Berlin-2024";

  @TempDir Path dir;
  private String globalZone;

  @BeforeEach
  void rememberGlobalZone() {
    globalZone =
        withHandle(h -> h.createQuery("SELECT @@global.time_zone").mapTo(String.class).one());
  }

  @AfterEach
  void restoreGlobalZone() {
    useHandle(h -> h.createUpdate("SET GLOBAL time_zone = ?").bind(0, globalZone).execute());
  }

  /**
   * The table with a TIMESTAMP column ts beside the DATETIME reg_time; rows inserted in a UTC
   * session.
   */
  private void createTable(String... utcTimes) {
    createPostsTable(TABLE);
    useHandle(
        h -> {
          h.execute("ALTER TABLE " + TABLE + " ADD COLUMN ts TIMESTAMP NULL DEFAULT NULL");
          h.execute("SET SESSION time_zone = '+00:00'");
          for (int i = 0; i < utcTimes.length; i++) {
            h.createUpdate(
                    "INSERT INTO "
                        + TABLE
                        + " (id, title, product, phone, content, reg_time, ts)"
                        + " VALUES (?, '供应红富士苹果', '苹果', '13800138000', '本人有苹果。', ?, ?)")
                .bind(0, i + 1)
                .bind(1, utcTimes[i])
                .bind(2, utcTimes[i])
                .execute();
          }
        });
  }

  private static Map<Long, Long> readTimes(String timeColumn) {
    TableSpec spec =
        new TableSpec(
            TABLE,
            "id",
            timeColumn,
            TableSpec.SAMPLE_TEXT_COLUMNS,
            List.of("phone"),
            Map.of("fields.near", List.of("title", "product", "content")));
    Map<Long, Long> times = new TreeMap<>();
    new RecordSource(database(), spec).forEachRecord(r -> times.put(r.id(), r.regTime()));
    return times;
  }

  private static long utc(String time) {
    return Instant.parse(time.replace(' ', 'T') + "Z").toEpochMilli();
  }

  @Test
  void timestamp_isReadAsUtcInstant_whateverTheServerAndJvmZone() {
    createTable("2024-05-01 08:00:00", "2024-10-27 00:30:00");
    useHandle(h -> h.execute("SET GLOBAL time_zone = '+08:00'"));
    TimeZone jvmZone = TimeZone.getDefault();
    Map<Long, Long> timestamps;
    Map<Long, Long> datetimes;
    try {
      TimeZone.setDefault(TimeZone.getTimeZone("America/New_York"));
      timestamps = readTimes("ts");
      datetimes = readTimes("reg_time");
    } finally {
      TimeZone.setDefault(jvmZone);
    }

    Map<Long, Long> expected =
        Map.of(1L, utc("2024-05-01 08:00:00"), 2L, utc("2024-10-27 00:30:00"));
    assertThat(timestamps).as("TIMESTAMP: the instants").isEqualTo(expected);
    assertThat(datetimes).as("DATETIME: as written (read as UTC)").isEqualTo(expected);
  }

  @Test
  void jdbiBindsAndMapsLocalDateTimeAsWritten_whateverTheJvmZone() {
    createPostsTable(TABLE);
    LocalDateTime written =
        LocalDateTime.of(2024, 3, 10, 2, 30); // in New York's spring-forward gap
    TimeZone jvmZone = TimeZone.getDefault();
    String stored;
    LocalDateTime mapped;
    try {
      TimeZone.setDefault(TimeZone.getTimeZone("America/New_York"));
      insert(TABLE, 1, "供应红富士苹果", "苹果", "13800138000", "本人有苹果。", written); // binds through Jdbi
      stored =
          withHandle(
              h ->
                  h.createQuery("SELECT CAST(reg_time AS CHAR) FROM " + TABLE)
                      .mapTo(String.class)
                      .one());
      mapped =
          withHandle(
              h -> h.createQuery("SELECT reg_time FROM " + TABLE).mapTo(LocalDateTime.class).one());
    } finally {
      TimeZone.setDefault(jvmZone);
    }

    assertThat(stored).isEqualTo("2024-03-10 02:30:00");
    assertThat(mapped).isEqualTo(written);
  }

  @Test
  void run_timestampsInTheFallBackHour_keepsTheLaterInstant() {
    // 00:30 UTC is 02:30 CEST, 01:15 UTC is 02:15 CET: in Berlin time the later instant reads
    // earlier.
    createTable("2024-10-27 00:30:00", "2024-10-27 01:15:00");
    installDstZone();
    useHandle(h -> h.createUpdate("SET GLOBAL time_zone = ?").bind(0, DST_ZONE).execute());

    CliRun run =
        cli(
            "run",
            "--config",
            writeConfig(dir, TABLE, dir.resolve("index"), Map.of("source.time-column", "ts"))
                .toString(),
            "--apply");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(ids(TABLE)).as("the later instant, id 2, is kept").containsExactly(2L);
  }

  /**
   * Adds {@link #DST_ZONE} to the server's time zone tables (once) and checks the server uses it.
   */
  private static void installDstZone() {
    useHandle(
        h -> {
          boolean installed =
              !h.createQuery("SELECT 1 FROM mysql.time_zone_name WHERE Name = ?")
                  .bind(0, DST_ZONE)
                  .mapTo(Integer.class)
                  .list()
                  .isEmpty();
          if (!installed) {
            h.execute("INSERT INTO mysql.time_zone (Use_leap_seconds) VALUES ('N')");
            long id = h.createQuery("SELECT LAST_INSERT_ID()").mapTo(Long.class).one();
            h.createUpdate("INSERT INTO mysql.time_zone_name (Name, Time_zone_id) VALUES (?, ?)")
                .bind(0, DST_ZONE)
                .bind(1, id)
                .execute();
            h.createUpdate(
                    "INSERT INTO mysql.time_zone_transition_type (Time_zone_id, Transition_type_id, `Offset`,"
                        + " Is_DST, Abbreviation) VALUES (?, 0, 3600, 0, 'CET'), (?, 1, 7200, 1, 'CEST')")
                .bind(0, id)
                .bind(1, id)
                .execute();
            h.createUpdate(
                    "INSERT INTO mysql.time_zone_transition (Time_zone_id, Transition_time, Transition_type_id)"
                        + " VALUES (?, ?, 1), (?, ?, 0)")
                .bind(0, id)
                .bind(1, utc("2024-03-31 01:00:00") / 1000)
                .bind(2, id)
                .bind(3, utc("2024-10-27 01:00:00") / 1000)
                .execute();
          }
          List<String> local =
              h.createQuery(
                      "SELECT DATE_FORMAT(CONVERT_TZ(t, '+00:00', ?), '%Y-%m-%d %H:%i:%s') FROM (SELECT"
                          + " '2024-10-27 00:30:00' AS t UNION ALL SELECT '2024-10-27 01:15:00') x")
                  .bind(0, DST_ZONE)
                  .mapTo(String.class)
                  .list();
          assertThat(local)
              .as("the zone is loaded")
              .containsExactly("2024-10-27 02:30:00", "2024-10-27 02:15:00");
        });
  }
}
