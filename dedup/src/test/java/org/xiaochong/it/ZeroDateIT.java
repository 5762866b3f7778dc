package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Zero dates ('0000-00-00', '0000-00-00 00:00:00'), which MariaDB's default sql_mode stores in
 * DATETIME and DATE columns, and dates with a zero month or day: they count as NULL, the oldest
 * time, so in a group the record with a real time is kept; and the run, its archive and its report
 * go through.
 */
@Tag("db")
class ZeroDateIT extends DbTestSupport {
  private static final String TABLE = "zero_date_posts";

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"DATETIME", "DATE"})
  void run_zeroDates_countAsNullTheOldest(String type) throws IOException {
    createPostsTable(TABLE);
    useHandle(h -> h.execute("ALTER TABLE " + TABLE + " MODIFY reg_time " + type + " NULL"));
    // 1, 2, 3, 5: one post; 2 has the only real time, so it is the latest and kept. 4: alone, a
    // zero date.
    // 5: a zero month and day, which MariaDB's default sql_mode also stores: no day, so no time
    // either.
    insert(TABLE, 1, "供应红富士苹果", "苹果", "13800138000", "本人有苹果。", null);
    insert(TABLE, 2, "供应红富士苹果", "苹果", "13800138000", "本人有苹果。", LocalDateTime.of(2020, 1, 1, 0, 0));
    insert(TABLE, 3, "供应红富士苹果", "苹果", "13800138000", "本人有苹果。", null);
    insert(TABLE, 4, "求购脐橙", "脐橙", "13900139000", "长期求购。", null);
    insert(TABLE, 5, "供应红富士苹果", "苹果", "13800138000", "本人有苹果。", null);
    useHandle(
        h -> {
          h.execute(
              "SET SESSION sql_mode = ''"); // permissive, as the tables that hold zero dates were
          // filled
          h.execute("UPDATE " + TABLE + " SET reg_time = '0000-00-00' WHERE id IN (1, 3, 4)");
          h.execute("UPDATE " + TABLE + " SET reg_time = '2024-00-00' WHERE id = 5");
        });
    long zeroDates =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT COUNT(*) FROM "
                            + TABLE
                            + " WHERE CAST(reg_time AS CHAR) LIKE '0000-00-00%'")
                    .mapTo(Long.class)
                    .one());
    assertThat(zeroDates).as("the zero dates are stored").isEqualTo(3);

    Path report = dir.resolve("report");
    CliRun run =
        cli(
            "run",
            "--config",
            writeConfig(dir, TABLE, dir.resolve("index"), Map.of()).toString(),
            "--apply",
            "--report",
            report.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(ids(TABLE)).containsExactly(2L, 4L);
    List<List<Long>> archived =
        withHandle(
            h ->
                h.createQuery("SELECT id, dedup_kept_id FROM " + TABLE + "_removed ORDER BY id")
                    .map((rs, ctx) -> List.of(rs.getLong(1), rs.getLong(2)))
                    .list());
    assertThat(archived).containsExactly(List.of(1L, 2L), List.of(3L, 2L), List.of(5L, 2L));
    // The report counts a zero date as no time, like NULL.
    assertThat(Files.readString(report.resolve("report.html")))
        .contains("no time")
        .doesNotContain("0000-00", "2024-00");
  }
}
